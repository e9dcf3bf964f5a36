"""What an eval data set sets up beyond an import document: the watch list, and which plans
replaced which. Both are the user's own doing in the product (`pixiu watch add`, accepting a
newer plan's offer), not rows an import writes, so an eval states them next to the document:

* ``"watch"``: the watch list, each entry a code or ``{"symbol": …, "added_at": …}`` (or
  ``"days_ago"``; without either, added at the case's ``now``);
* a note row's ``"ref"`` (a name for it) and ``"replaced_by"`` (the ref of the plan that
  replaced it): after the import the older plan is replaced as the product replaces one.

`split_setup` takes them out of the document (which then imports like any other) and
`apply_setup` writes them after the import, through the stores the product writes with.

Case files and their data sets, shared by the context evals and the answer evals: where the
case files are, the data set a case names (or holds inline) and its `dataset_patch`.

Market data a context eval case stores beside its data set (the case's `stored` option):
fundamentals, benchmark bars and a whole-market session, as the syncs would have written
them. A file of ``data/evals/datasets/stored/`` holds:

``valuations``  ``{symbol: {"source": s, "rows": [[date, close, pe_ttm, pb_mrq, ps_ttm], …]}}``
``reports``     ``[{symbol, period, source, published, revenue, …}]`` (FinancialReport's fields)
``dividends``   ``[{symbol, source, announced, ex_date, cash, summary, …}]``
``bars``        ``{symbol: {"source": s, "closes": [[date, close], …]}}``: the index benchmarks, and
                the holdings' own closes (a holding with bars is valued at its last close)
``snapshot``    ``{"breadth": {…Breadth's fields}, "industries": [{…IndustryMove's fields}]}``

Numbers are written as JSON numbers or strings and stored as the decimals they spell."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pixiu_cli.home.document_file import ACCOUNT, SECTIONS, DatasetError, normalise_timestamp
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.kernel.vocabulary import normalise_code
from pixiu_cli.market.bars import Bar, SeriesWrite
from pixiu_cli.market.fundamentals.model import Dividend, FinancialReport, FundamentalsWrite, ValuationDay
from pixiu_cli.market.review.model import Breadth, IndustryMove, Snapshot

if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market
    from pixiu_cli.memory.handle import Memory

WATCH = "watch"
REF, REPLACED_BY = "ref", "replaced_by"


@dataclass(frozen=True)
class EvalSetup:
    watch: tuple[tuple[str, str], ...] = ()  # (symbol, when it was added)
    replaced: tuple[tuple[int, int], ...] = ()  # (older note, the note replacing it), as indexes of the notes


def split_setup(document: dict, now: datetime, fail) -> tuple[dict, EvalSetup]:
    """The import document without the eval's own setup, and that setup."""
    document = dict(document)
    watch = _watch(document.pop(WATCH, []), now, fail)
    notes = document.get("notes", [])
    if not isinstance(notes, list):
        return document, EvalSetup(watch)
    refs: dict[str, int] = {}
    links: list[tuple[int, str]] = []
    plain = []
    for index, note in enumerate(notes):
        if isinstance(note, dict) and (REF in note or REPLACED_BY in note):
            note = dict(note)
            ref, replacing = note.pop(REF, None), note.pop(REPLACED_BY, None)
            if ref is not None:
                if not isinstance(ref, str) or not ref or ref in refs:
                    raise fail(f"notes[{index}].ref 应为不重复的非空字符串")
                refs[ref] = index
            if replacing is not None:
                links.append((index, replacing))
        plain.append(note)
    document["notes"] = plain
    replaced = []
    for index, ref in links:
        if ref not in refs or refs[ref] == index:
            raise fail(f"notes[{index}].replaced_by 应为另一条笔记的 ref，而不是 {ref!r}")
        replaced.append((index, refs[ref]))
    return document, EvalSetup(watch, tuple(replaced))


def _watch(value, now: datetime, fail) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise fail("watch 应为数组（代码，或 {symbol, added_at | days_ago}）")
    out = []
    for index, entry in enumerate(value):
        entry = {"symbol": entry} if isinstance(entry, str) else entry
        symbol = normalise_code(entry.get("symbol")) if isinstance(entry, dict) else None
        if symbol is None:
            raise fail(f"watch[{index}] 应为六位代码或 {{symbol, added_at}}")
        out.append((symbol, _added_at(entry, index, now, fail)))
    return tuple(out)


def _added_at(entry: dict, index: int, now: datetime, fail) -> str:
    try:
        if "added_at" in entry:
            return normalise_timestamp(entry["added_at"], f"watch[{index}].added_at", now)
        days = entry.get("days_ago", 0)
        if isinstance(days, bool) or not isinstance(days, int | float) or days < 0:
            raise fail(f"watch[{index}].days_ago 应为非负数字")
        return (now - timedelta(days=days)).isoformat(timespec="seconds")
    except DatasetError as exc:
        raise fail(str(exc)) from None


def apply_setup(memory: Memory, setup: EvalSetup, notes: list) -> None:
    """Write the setup after the import: `notes` are the document's notes as parsed (in its
    order), matched to the stored ones by kind, text and time."""

    for symbol, added_at in setup.watch:
        memory.market.bars.watch(symbol, added_at)
    if not setup.replaced:
        return
    stored = {(n.note_kind, n.text, n.created_at): n.id for n in memory.investor.export().notes}
    ids = [stored[(n.note_kind, n.text, n.created_at)] for n in notes]
    for old, new in setup.replaced:
        memory.store.replace([ids[old]], ids[new])


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


STORED_FOLDER = "stored"
_KEYS = {"valuations", "reports", "dividends", "bars", "snapshot"}


def stored_data(value, source: Path | None, fail) -> dict:
    """The file a case names, parsed (its keys checked)."""
    if not isinstance(value, str) or Path(value).name != value or not value.strip():
        raise fail("stored 应为 datasets/stored/ 下的文件名")
    name = value if value.endswith(".json") else f"{value}.json"
    folders = [source.parent / DATASETS_FOLDER / STORED_FOLDER] if source else []
    folders.append(default_cases_dir() / DATASETS_FOLDER / STORED_FOLDER)
    path = next((f / name for f in folders if (f / name).is_file()), None)
    if path is None:
        raise fail(f"找不到已存数据文件 {name}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise fail(f"已存数据 {name} 不是有效的 JSON（第 {exc.lineno} 行：{exc.msg}）") from None
    if not isinstance(data, dict) or set(data) - _KEYS:
        raise fail(f"已存数据 {name} 只能有 {'、'.join(sorted(_KEYS))}")
    return data


def _decimal(value) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _typed(cls, row: dict):
    names = {f.name: str(f.type) for f in fields(cls)}
    return cls(**{k: _decimal(v) if "Decimal" in names[k] else v for k, v in row.items()})


def write_stored(market: Market, data: dict, at: str) -> None:
    store = market.fundamentals
    reports, dividends = data.get("reports", []), data.get("dividends", [])
    symbols = set(data.get("valuations", {})) | {r["symbol"] for r in reports} | {d["symbol"] for d in dividends}
    for symbol in sorted(symbols):
        spec = data.get("valuations", {}).get(symbol, {"source": "baostock", "rows": []})
        days = tuple(
            ValuationDay(symbol, d, spec["source"], *(_decimal(v) for v in values)) for d, *values in spec["rows"]
        )
        mine = tuple(_typed(FinancialReport, r) for r in reports if r["symbol"] == symbol)
        paid = tuple(_typed(Dividend, d) for d in dividends if d["symbol"] == symbol)
        store.write(FundamentalsWrite(symbol, spec["source"], at, days, mine, paid))
    for symbol, spec in data.get("bars", {}).items():
        bars = [Bar(d, c, c, c, c, 1e9) for d, c in spec["closes"]]
        market.bars.write_series(SeriesWrite(symbol, bars, spec["source"], at))
    if "snapshot" in data:
        breadth = _typed(Breadth, data["snapshot"]["breadth"])
        industries = tuple(_typed(IndustryMove, i) for i in data["snapshot"].get("industries", []))
        market.review.write(Snapshot(breadth, industries))
