"""Case files and their data sets, shared by the context evals and the answer evals: where the
case files are, the data set a case names (or holds inline) and its `dataset_patch`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pixiu_cli.conversation.evals.case_setup import WATCH
from pixiu_cli.home.document_file import ACCOUNT, SECTIONS
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.resources import data_dir

EVALS_FOLDER = "evals"
DATASETS_FOLDER = "datasets"


class EvalError(UserError):
    """A malformed case file or case; the message names the file and the case id."""


def default_cases_dir() -> Path:
    return data_dir() / EVALS_FOLDER


def case_files(paths: Sequence[Path] | None) -> list[Path]:
    roots = [default_cases_dir()] if paths is None else [Path(p) for p in paths]
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            files.extend(sorted(p for p in root.glob("*.json") if p.is_file()))
        elif root.is_file():
            files.append(root)
        else:
            raise EvalError(f"找不到用例文件或目录：{root}")
    return files


def case_dataset(value: Any, source: Path | None, fail) -> tuple[str | None, dict]:
    if isinstance(value, dict):
        return None, json.loads(json.dumps(value))  # a private deep copy
    if not isinstance(value, str) or not value.strip():
        raise fail("dataset 应为数据集文件名或内联的导入文档对象")
    name = value if value.endswith(".json") else f"{value}.json"
    if Path(name).name != name:
        raise fail(f"dataset 应为 datasets/ 下的文件名，而不是路径 {value!r}")
    folders = [source.parent / DATASETS_FOLDER] if source else []
    folders.append(default_cases_dir() / DATASETS_FOLDER)
    for folder in folders:
        path = folder / name
        if path.is_file():
            try:
                return name.removesuffix(".json"), json.loads(_readcase_dataset(str(path)))
            except json.JSONDecodeError as exc:
                raise fail(f"数据集 {name} 不是有效的 JSON（第 {exc.lineno} 行：{exc.msg}）") from None
    raise fail(f"找不到数据集 {name}（查找了 {', '.join(str(f) for f in folders)}）")


@cache
def _readcase_dataset(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


# Besides the document's row sections and persona, a patch may change the account (its
# fills and cash: ``{"fills": […], "cash": […]}``) and the eval's watch list (case_setup.py).
_PATCHABLE = (*SECTIONS, ACCOUNT, WATCH)


def apply_patch(document: dict, patch: Any, fail) -> dict:
    if patch is None:
        return document
    if not isinstance(patch, dict) or set(patch) - {"replace", "append"}:
        raise fail('dataset_patch 应为 {"replace": {…}, "append": {…}}')
    for mode in ("replace", "append"):
        part = patch.get(mode, {})
        if not isinstance(part, dict):
            raise fail(f"dataset_patch.{mode} 应为对象")
        for section, value in part.items():
            if section not in _PATCHABLE:
                raise fail(f"dataset_patch.{mode} 中未知的数据段 {section}（可用：{', '.join(_PATCHABLE)}）")
            value = json.loads(json.dumps(value))
            if section == "persona":
                if not isinstance(value, dict):
                    raise fail(f"dataset_patch.{mode}.persona 应为对象")
                document["persona"] = value if mode == "replace" else {**document.get("persona", {}), **value}
            elif section == ACCOUNT:
                document[ACCOUNT] = _patched_account(document.get(ACCOUNT, {}), value, mode, fail)
            else:
                if not isinstance(value, list):
                    raise fail(f"dataset_patch.{mode}.{section} 应为数组")
                document[section] = value if mode == "replace" else [*document.get(section, []), *value]
    return document


def _patched_account(account: Any, value: Any, mode: str, fail) -> dict:
    """The account section with its fills and cash replaced or appended to, each on its own."""
    if not isinstance(value, dict) or set(value) - {"fills", "cash"}:
        raise fail(f'dataset_patch.{mode}.account 应为 {{"fills": […], "cash": […]}}')
    account = dict(account) if isinstance(account, dict) else {}
    for key, rows in value.items():
        if not isinstance(rows, list):
            raise fail(f"dataset_patch.{mode}.account.{key} 应为数组")
        account[key] = rows if mode == "replace" else [*account.get(key, []), *rows]
    return account
