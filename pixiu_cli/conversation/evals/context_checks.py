"""The checks of a context eval case against an assembled block: one line per failed check,
naming what was expected and where the block said otherwise."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pixiu_cli.conversation.context.block import ContextBlock
from pixiu_cli.conversation.context.memory import ACCOUNT_LABELS
from pixiu_cli.conversation.evals.context_cases import EvalCase

_QUOTED_SPAN = re.compile(r"「[^「」\n]*」")
_SNIPPET = 60


def one_line(text: str, limit: int = 120) -> str:
    text = text.replace("\r", "").replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where(text: str, needle: str, at: int | None = None) -> str:
    """The block line holding `needle` (its first occurrence, or the one at `at`), shortened
    around it."""
    at = text.find(needle) if at is None else at
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at + len(needle))
    line = text[start : end if end >= 0 else len(text)]
    offset = at - start
    if len(line) > 2 * _SNIPPET:
        lo = max(0, offset - _SNIPPET)
        line = ("…" if lo else "") + line[lo : offset + len(needle) + _SNIPPET] + "…"
    return one_line(line, 4 * _SNIPPET)


def _matches(pattern: str, key: str) -> bool:
    return key.startswith(pattern[:-1]) if pattern.endswith("*") else key == pattern


def _unquoted_at(text: str, needle: str) -> int | None:
    """Offset of the first occurrence of `needle` not inside a 「…」 span, else None."""
    spans = [m.span() for m in _QUOTED_SPAN.finditer(text)]
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        if not any(lo < start and end < hi for lo, hi in spans):
            return start
        start = text.find(needle, start + 1)
    return None


def check(
    case: EvalCase, block: ContextBlock, intent: str, symbols: list[str], figures: Mapping[str, str] | None = None
) -> list[str]:
    """Every failed check of `case` against an assembled block, one line each; `figures`:
    the account line's figures by the product's valuation (for the `account` check)."""
    keys = [s.key for s in block.sections]
    return [
        *_text_failures(case, block.text),
        *_extraction_failures(case, intent, symbols),
        *_section_failures(case, keys),
        *_omitted_failures(case, block.omitted),
        *_size_failures(case, block),
        *_quoted_failures(case, block.text),
        *_account_failures(case, block.text, figures or {}),
    ]


def _text_failures(case: EvalCase, text: str) -> list[str]:
    failures = [f"缺少应出现的内容 {one_line(needle)!r}" for needle in case.must if needle not in text]
    failures += [
        f"出现了不应出现的内容 {one_line(needle)!r}：{_where(text, needle)}"
        for needle in case.must_not
        if needle in text
    ]
    return failures


def _extraction_failures(case: EvalCase, intent: str, symbols: list[str]) -> list[str]:
    failures = []
    if case.intent is not None and intent != case.intent:
        failures.append(f"意图应为 {case.intent}，实际为 {intent}")
    if case.symbols is not None and list(case.symbols) != symbols:
        failures.append(f"提取的标的应为 {list(case.symbols)}，实际为 {symbols}")
    return failures


def _section_failures(case: EvalCase, keys: list[str]) -> list[str]:
    failures = [
        f"缺少段落 {pattern}（实际段落：{', '.join(keys)}）"
        for pattern in case.sections
        if not any(_matches(pattern, k) for k in keys)
    ]
    for pattern in case.no_sections:
        found = [k for k in keys if _matches(pattern, k)]
        if found:
            failures.append(f"不应出现段落 {', '.join(found)}")
    return failures


def _omitted_failures(case: EvalCase, omitted: Mapping[str, int]) -> list[str]:
    failures = []
    for pattern in case.omitted:
        if not any(_matches(pattern, k) for k in omitted):
            actual = "、".join(f"{k} {n} 条" for k, n in omitted.items()) or "无"
            failures.append(f"段落 {pattern} 应因预算被省略，实际省略：{actual}")
    for pattern in case.not_omitted:
        found = [f"{k} {n} 条" for k, n in omitted.items() if _matches(pattern, k)]
        if found:
            failures.append(f"不应省略 {pattern}，实际省略了 {'、'.join(found)}")
    return failures


def _size_failures(case: EvalCase, block: ContextBlock) -> list[str]:
    failures = []
    if case.max_tokens is not None and block.tokens > case.max_tokens:
        failures.append(f"上下文 {block.tokens} tokens，超过上限 {case.max_tokens}")
    for needle, expected in case.counts.items():
        actual = block.text.count(needle)
        if actual != expected:
            failures.append(f"{one_line(needle)!r} 应出现 {expected} 次，实际 {actual} 次")
    return failures


def _quoted_failures(case: EvalCase, text: str) -> list[str]:
    failures = []
    for needle in case.quoted:
        if needle not in text:
            failures.append(f"应以「」引用的内容 {one_line(needle)!r} 没有出现在上下文中")
            continue
        at = _unquoted_at(text, needle)
        if at is not None:
            failures.append(f"{one_line(needle)!r} 出现在「」之外：{_where(text, needle, at)}")
    return failures


def _account_failures(case: EvalCase, text: str, figures: Mapping[str, str]) -> list[str]:
    """Each figure the case names: the valuation gives it, and the block's account line says it."""
    failures = []
    for name, expected in case.account.items():
        actual = figures.get(name)
        if actual != expected:
            failures.append(f"账户估值的 {ACCOUNT_LABELS[name]} 应为 {expected}，实际为 {actual or '未知'}")
        line = f"{ACCOUNT_LABELS[name]} {expected}"
        if line not in text:
            failures.append(f"账户行缺少 {line!r}")
    return failures
