"""Context evals: does the `[上下文信息]` block hold the facts the model needs for a question?

A category of questions that scores below 100% points at a context gap (something that
should have been injected and was not, or something that should not have been), and the gap
is fixed in the context engine, never by deleting or weakening the case. These evals call
no model: each case imports a data set into a fresh SQLite file, assembles the block with
`ContextBuilder.context_block` at a frozen `now`, and checks facts about the text and the
sections.

Case files
----------
Every ``*.json`` file directly in ``data/evals/`` (not ``data/evals/datasets/``) holds one
case object or a list of them. A case:

``id`` (str, unique across all loaded files), ``category`` (str), ``description`` (str,
optional), ``now`` (ISO 8601 with an offset, e.g. ``2026-03-04T10:15:00+08:00``),
``message`` (the user's message).

``dataset``
    Either the file name of a data set (``"portfolio"`` or ``"portfolio.json"``, looked up
    in the ``datasets/`` folder next to the case file, then in ``data/evals/datasets/``)
    or an inline import document (`pixiu_cli.home.document_file`). Relative timestamps
    (``"days_ago": N`` + ``"time": "HH:MM"``) are resolved against the case's ``now``.
    Besides an import document's sections a data set may hold the eval's own setup
    (`case_setup`): ``watch`` (the watch list) and, on a note row, ``ref`` and
    ``replaced_by`` (the older plan is replaced by the one with that ref after the import).
``dataset_patch`` (optional)
    ``{"replace": {section: value}, "append": {section: [rows]}}`` with the document's
    sections (holdings, profiles, news, signals, reports, decisions, alerts, notes,
    persona), ``account`` (``{"fills": [...], "cash": [...]}``: each list replaced or
    appended to on its own) and ``watch``. ``replace`` swaps a whole section; ``append``
    adds rows (for ``persona``: merges keys). Replacing happens before appending.
``limits`` (optional)
    Overrides of `MemoryLimits` fields (``reports_days``, ``notes_limit``,
    ``budget_tokens`` …), applied with `MemoryLimits.from_mapping`.
``summary`` (optional)
    The conversation summary passed to the builder.
``earlier`` (optional)
    Earlier turns of the same conversation, in order, before ``message`` is asked. Each
    step is ``{"ask": "question"}`` (a turn: its block and question go into the history,
    the reply is "好的"), ``{"forget": "n1"}`` (`/forget`: delete a note or undo a merge;
    ``d1`` undoes a trade) or ``{"edit": "n1", "text": "新文本"}`` (`/memory edit`). With
    ``earlier`` the checked block is the one `build_messages` sends for ``message`` in that
    conversation (delta layout); without it, a fresh block as before. Each ``ask`` is a
    stored turn, and the message is selected against the earlier ones as the REPL selects
    it (their focus, as for ``history``).
``stored`` (optional)
    A file of ``datasets/stored/`` with market data stored as the syncs would: valuation
    days, report periods, dividends, benchmark bars and each holding's closes (per-holding
    prices), a whole-market session (`pixiu_cli.conversation.evals.stored_data`).
``market_list`` (optional, boolean)
    Load the shipped security names (``data/selection/securities.tsv``) into the security
    master first, standing in for a market-data sync: every name there is known.
``history`` (optional)
    The user's earlier messages in this conversation, oldest first (an elliptical
    follow-up such as "其他几只呢" is judged against them). Each is read with the ones
    before it and leaves its own focus (stocks, overview, topic), so a follow-up can operate
    on any of the last four: ``["神华的分红怎么样", "今天大盘怎么样", "谢谢"]`` then
    "和汾酒比呢" adds 汾酒 to 神华, three turns back (`selection/follow_up.py`).

Checks (at least one):

``must`` / ``must_not``
    Substrings that must / must not appear in the block text.
``intent``
    The expected intent value (``portfolio_review``, ``single_stock``, ``trade_review``,
    ``general``).
``symbols``
    The exact list of extracted symbols, in order (``[]`` = none).
``sections`` / ``no_sections``
    Section keys that must / must not be in the assembled block (after trimming):
    ``time``, ``scene``, ``summary``, ``holdings``, ``persona``, ``symbol:600519``,
    ``portfolio_profiles``, ``reports``, ``decisions``, ``alerts``, ``notes``. A key ending
    in ``*`` is a prefix (``symbol:*`` = any symbol section, ``*`` = any section).
``omitted`` / ``not_omitted``
    Section keys that must / must not appear in ``block.omitted`` (trimmed for the token
    budget); the same ``*`` prefix rule applies (``not_omitted: ["*"]`` = nothing trimmed).
``max_tokens``
    ``block.tokens`` must not exceed it.
``counts``
    ``{substring: n}``: the substring occurs exactly n times (e.g. the block markers).
``quoted``
    Substrings that must occur in the block, and only inside a quoted data span 「…」.
``account``
    ``{figure: text}`` for the account line of the holdings section, figures ``cash``,
    ``total_assets``, ``stock_value``, ``realised``: the product's valuation
    (`AccountReader`, what every surface shows) must give that text, and the block's line
    must say it (``"cash": "62,751.30"``: 现金 62,751.30).

Unknown keys, wrong types, an unknown data set or an invalid document raise `EvalError`
naming the file and the case id, so a typo can never turn a check into a silent pass.

API: `load_cases(paths)` → `list[EvalCase]` (here); `run_case(case)` → `CaseResult` and
`run_evals(cases)` → `EvalReport` (``by_category()``, ``pass_rate``, ``failure_lines()``) in
`context_runner.py`; the checks themselves in `context_checks.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pixiu_cli.conversation.context.memory import MemoryLimits
from pixiu_cli.conversation.evals.case_files import EvalError, apply_patch, case_dataset, case_files
from pixiu_cli.conversation.evals.case_setup import EvalSetup, split_setup
from pixiu_cli.conversation.evals.stored_data import stored_data
from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.home.document_file import DatasetError, parse_document

_REQUIRED = ("id", "category", "now", "dataset", "message")
_OPTIONAL = ("description", "dataset_patch", "limits", "summary", "earlier", "history", "market_list", "stored")
_STRING_LIST_CHECKS = ("must", "must_not", "sections", "no_sections", "omitted", "not_omitted", "quoted")
_CHECKS = (*_STRING_LIST_CHECKS, "intent", "symbols", "max_tokens", "counts", "account")
# The account line's figures a case can check (the `account` check).
ACCOUNT_FIGURES = ("cash", "total_assets", "stock_value", "realised")
_KNOWN = frozenset((*_REQUIRED, *_OPTIONAL, *_CHECKS))


@dataclass(frozen=True)
class EvalCase:
    id: str
    category: str
    now: datetime
    message: str
    document: dict  # the import document after dataset_patch (the eval's own setup taken out)
    description: str = ""
    dataset_name: str | None = None  # None for an inline document
    limits: dict = field(default_factory=dict)
    summary: str | None = None
    earlier: tuple[dict, ...] = ()
    history: tuple[str, ...] = ()
    market_list: bool = False
    stored: dict | None = None  # market data stored beside the data set (evals/stored_data.py)
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()
    intent: str | None = None
    symbols: tuple[str, ...] | None = None
    sections: tuple[str, ...] = ()
    no_sections: tuple[str, ...] = ()
    omitted: tuple[str, ...] = ()
    not_omitted: tuple[str, ...] = ()
    max_tokens: int | None = None
    counts: dict = field(default_factory=dict)
    quoted: tuple[str, ...] = ()
    account: dict = field(default_factory=dict)
    setup: EvalSetup = EvalSetup()
    source: Path | None = None


# ---------------------------------------------------------------------------------------
# Loading


def load_cases(paths: Sequence[Path] | None = None) -> list[EvalCase]:
    """Cases from the given files/folders (a folder: its ``*.json`` files, not recursive);
    by default every case file in ``data/evals/``."""
    cases: list[EvalCase] = []
    seen: dict[str, Path] = {}
    for path in case_files(paths):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise EvalError(f"{path.name}：不是 UTF-8 文本文件") from None
        except json.JSONDecodeError as exc:
            raise EvalError(f"{path.name}：不是有效的 JSON（第 {exc.lineno} 行第 {exc.colno} 列：{exc.msg}）") from None
        items = raw if isinstance(raw, list) else [raw]
        if not items:
            raise EvalError(f"{path.name}：文件中没有用例")
        for index, item in enumerate(items):
            case = parse_case(item, path, index)
            if case.id in seen:
                raise EvalError(f"{path.name}（用例 {case.id}）：id 与 {seen[case.id].name} 中的用例重复")
            seen[case.id] = path
            cases.append(case)
    return cases


def parse_case(raw: Any, source: Path | None = None, index: int = 0) -> EvalCase:
    """Validate one case object (see the module docstring)."""
    file = source.name if source else "<inline>"
    if not isinstance(raw, dict):
        raise EvalError(f"{file} 第 {index + 1} 个用例：应为 JSON 对象")
    case_id = raw.get("id")
    where = (
        f"{file}（用例 {case_id}）" if isinstance(case_id, str) and case_id.strip() else f"{file} 第 {index + 1} 个用例"
    )

    def fail(problem: str) -> EvalError:
        return EvalError(f"{where}：{problem}")

    _check_fields(raw, fail)
    now = _case_now(raw["now"], fail)
    dataset_name, document = case_dataset(raw["dataset"], source, fail)
    document, setup = split_setup(apply_patch(document, raw.get("dataset_patch"), fail), now, fail)
    try:
        parse_document(document, now)
    except DatasetError as exc:
        raise fail(f"数据集无效：{exc}") from None
    limits = _limits(raw.get("limits", {}), fail)
    earlier = _earlier(raw.get("earlier", []), fail)
    checks = {key: _CHECK_PARSERS[key](key, raw[key], fail) for key in _CHECKS if key in raw}
    if not checks:
        raise fail("没有任何检查（must / must_not / intent / symbols / sections / …）")

    return EvalCase(
        id=raw["id"],
        category=raw["category"],
        now=now,
        message=raw["message"],
        document=document,
        description=raw.get("description", ""),
        dataset_name=dataset_name,
        limits=limits,
        summary=raw.get("summary"),
        earlier=earlier,
        history=tuple(raw.get("history", [])),
        market_list=raw.get("market_list", False),
        stored=stored_data(raw["stored"], source, fail) if "stored" in raw else None,
        setup=setup,
        source=source,
        **checks,
    )


def _check_fields(raw: dict, fail) -> None:
    """The case's keys and its plain fields (everything but the data set, limits, steps and checks)."""
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise fail(f"未知字段 {', '.join(unknown)}")
    for key in _REQUIRED:
        if key not in raw:
            raise fail(f"缺少必填字段 {key}")
    for key in ("id", "category", "message"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"{key} 应为非空字符串")
    for key in ("description", "summary"):
        if key in raw and not isinstance(raw[key], str):
            raise fail(f"{key} 应为字符串")
    history = raw.get("history", [])
    if not isinstance(history, list) or not all(isinstance(t, str) and t.strip() for t in history):
        raise fail("history 应为非空字符串数组（此前用户的提问，从早到晚）")
    if not isinstance(raw.get("market_list", False), bool):
        raise fail("market_list 应为 true 或 false")


def _case_now(value: Any, fail) -> datetime:
    try:
        now = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        now = None
    if now is None or now.tzinfo is None or now.utcoffset() is None:
        raise fail(f"now 应为带时区的 ISO 8601 时间（如 2026-03-04T10:15:00+08:00），而不是 {value!r}")
    return now


def _limits(limits: Any, fail) -> dict:
    if not isinstance(limits, dict):
        raise fail("limits 应为对象")
    fields = MemoryLimits.__dataclass_fields__
    for key, value in limits.items():
        if key not in fields:
            raise fail(f"limits 中未知的设置 {key}（可用：{', '.join(fields)}）")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise fail(f"limits.{key} 应为非负数字")
    return dict(limits)


def _string_list_check(key: str, value: Any, fail) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) and s for s in value):
        raise fail(f"{key} 应为非空字符串数组")
    return tuple(value)


def _intent_check(key: str, value: Any, fail) -> str:
    values = [i.value for i in Intent]
    if value not in values:
        raise fail(f"intent 应为 {' / '.join(values)} 之一，而不是 {value!r}")
    return value


def _symbols_check(key: str, value: Any, fail) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) and re.fullmatch(r"\d{6}", s) for s in value):
        raise fail("symbols 应为六位代码数组")
    return tuple(value)


def _max_tokens_check(key: str, value: Any, fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise fail("max_tokens 应为正整数")
    return value


def _counts_check(key: str, value: Any, fail) -> dict:
    if not isinstance(value, dict) or not all(
        k and isinstance(n, int) and not isinstance(n, bool) and n >= 0 for k, n in value.items()
    ):
        raise fail("counts 应为 {子串: 非负整数} 对象")
    return dict(value)


def _account_check(key: str, value: Any, fail) -> dict:
    if not isinstance(value, dict) or not value or set(value) - set(ACCOUNT_FIGURES):
        raise fail(f"account 应为 {{数值名: 文本}} 对象，数值名为 {' / '.join(ACCOUNT_FIGURES)}")
    if not all(isinstance(v, str) and v.strip() for v in value.values()):
        raise fail('account 的每个数值应为非空字符串（如 "62,751.30"）')
    return dict(value)


# check key → validator returning the value the case keeps; keys are checked in `_CHECKS` order
_CHECK_PARSERS = {
    **dict.fromkeys(_STRING_LIST_CHECKS, _string_list_check),
    "intent": _intent_check,
    "symbols": _symbols_check,
    "max_tokens": _max_tokens_check,
    "counts": _counts_check,
    "account": _account_check,
}


def _earlier(value: Any, fail) -> tuple[dict, ...]:
    shapes = ({"ask"}, {"forget"}, {"edit", "text"})
    if not isinstance(value, list):
        raise fail("earlier 应为步骤数组")
    for step in value:
        if (
            not isinstance(step, dict)
            or set(step) not in shapes
            or not all(isinstance(v, str) and v.strip() for v in step.values())
        ):
            raise fail(
                f'earlier 的步骤应为 {{"ask": 问题}}、{{"forget": ID}} 或 {{"edit": ID, "text": 新文本}}，'
                f"而不是 {step!r}"
            )
    return tuple(dict(step) for step in value)
