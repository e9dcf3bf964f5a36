"""Answer cases: a data set, a question and checks. The case format shares the context
evals' `dataset`, `dataset_patch` and `now` fields; `checks` name what the reply must do,
and their expected values are computed from the data set (evals/answer_grading.py), never
written into the case."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pixiu_cli.conversation.evals.case_files import EvalError, apply_patch, case_dataset, case_files
from pixiu_cli.home.document_file import DatasetError, parse_document
from pixiu_cli.home.model import DomainData
from pixiu_cli.kernel.resources import data_dir

ANSWERS_FOLDER = "answers"
_REQUIRED = ("id", "category", "now", "dataset", "message", "checks")
_OPTIONAL = ("description", "dataset_patch")

# check name → (required fields, optional fields)
CHECK_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "best_holding": (("metric", "order"), ()),
    "metric_value": (("symbol", "metric"), ()),
    "holding_figure": (("symbol", "field"), ()),
    "quotes_note": (("phrase",), ()),
    "quotes_report": (("phrase",), ()),
    "latest_decision": ((), ("symbol",)),
    "alert_stock": ((), ()),
    "stale_profile": (("symbol",), ()),
    "calls_tool": (("tool",), ()),
    "no_tool": (("tool",), ()),
    "no_invented_symbol": ((), ()),
}
METRICS = ("sharpe", "annual_return", "max_drawdown", "win_rate")


@dataclass(frozen=True)
class Check:
    name: str
    args: dict = field(default_factory=dict)

    def describe(self) -> str:
        extra = "，".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.name}（{extra}）" if extra else self.name


@dataclass(frozen=True)
class AnswerCase:
    id: str
    category: str
    now: datetime
    message: str
    document: dict
    data: DomainData
    checks: tuple[Check, ...]
    description: str = ""


def default_answers_dir() -> Path:
    return data_dir() / "evals" / ANSWERS_FOLDER


def load_answer_cases(paths: Sequence[Path] | None = None) -> list[AnswerCase]:
    cases: list[AnswerCase] = []
    seen: set[str] = set()
    for path in case_files(list(paths) if paths else [default_answers_dir()]):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EvalError(f"{path.name}：不是有效的 UTF-8 JSON（{type(exc).__name__}）") from None
        for index, item in enumerate(raw if isinstance(raw, list) else [raw]):
            case = parse_answer_case(item, path, index)
            if case.id in seen:
                raise EvalError(f"{path.name}（用例 {case.id}）：id 重复")
            seen.add(case.id)
            cases.append(case)
    if not cases:
        raise EvalError("没有找到回答评测用例")
    return cases


def _check(raw: Any, fail) -> Check:
    if not isinstance(raw, dict) or not isinstance(raw.get("check"), str):
        raise fail("checks 的每一项应为带 check 字段的对象")
    name = raw["check"]
    if name not in CHECK_FIELDS:
        raise fail(f"未知的检查 {name}（可用：{', '.join(CHECK_FIELDS)}）")
    required, optional = CHECK_FIELDS[name]
    args = {k: v for k, v in raw.items() if k != "check"}
    missing = [k for k in required if k not in args]
    unknown = sorted(set(args) - set(required) - set(optional))
    if missing or unknown:
        raise fail(f"检查 {name}：缺少 {', '.join(missing) or '—'}，未知 {', '.join(unknown) or '—'}")
    if not all(isinstance(v, str) and v for v in args.values()):
        raise fail(f"检查 {name}：参数应为非空字符串")
    if "metric" in args and args["metric"] not in METRICS:
        raise fail(f"检查 {name}：metric 应为 {' / '.join(METRICS)} 之一")
    if args.get("order", "max") not in ("max", "min") or args.get("field", "shares") not in ("shares", "cost"):
        raise fail(f"检查 {name}：order 应为 max/min，field 应为 shares/cost")
    return Check(name, args)


def parse_answer_case(raw: Any, source: Path, index: int) -> AnswerCase:
    where = f"{source.name}（用例 {raw.get('id') if isinstance(raw, dict) else index + 1}）"

    def fail(problem: str) -> EvalError:
        return EvalError(f"{where}：{problem}")

    if not isinstance(raw, dict):
        raise fail("应为 JSON 对象")
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL))
    missing = [k for k in _REQUIRED if k not in raw]
    if unknown or missing:
        raise fail(f"未知字段 {', '.join(unknown) or '—'}；缺少字段 {', '.join(missing) or '—'}")
    for key in ("id", "category", "message"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"{key} 应为非空字符串")
    try:
        now = datetime.fromisoformat(raw["now"])
    except (TypeError, ValueError):
        now = None
    if now is None or now.utcoffset() is None:
        raise fail("now 应为带时区的 ISO 8601 时间")
    _, document = case_dataset(raw["dataset"], source, fail)
    document = apply_patch(document, raw.get("dataset_patch"), fail)
    try:
        data = parse_document(document, now)
    except DatasetError as exc:
        raise fail(f"数据集无效：{exc}") from None
    if not isinstance(raw["checks"], list) or not raw["checks"]:
        raise fail("checks 应为非空数组")
    checks = tuple(_check(c, fail) for c in raw["checks"])
    return AnswerCase(
        raw["id"], raw["category"], now, raw["message"], document, data, checks, raw.get("description", "")
    )
