"""Turn data/selection/corpus_*.txt into eval case files: data/selection/tune.json and
data/selection/heldout.json (the standard `pixiu eval` case format), and each frozen set
data/selection/frozen_N.txt into its own file: frozen_1.txt into frozen.json (its name
from before there was a second), frozen_N.txt into frozen_N.json; and the topic corpus
data/selection/topics_*.txt (fundamentals and the market review, issue 39) into
data/selection/topics_tune.json and topics_heldout.json by the same hash.

The split is a hash of the message, fixed before any selection rule was written, so the
held-out part is never looked at while tuning: about 40% of every category is held out.

    python scripts/build_selection_corpus.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "data" / "selection"
DATASETS = {
    "A": "energy_consumer",
    "B": "tech_autos",
    "C": "small_mixed",
    # The frozen set's own accounts (issue 27): new holdings, not the ones the rules were tuned on.
    "D": "pharma_liquor",
    "E": "home_brands",
    "F": "growth_mix",
    # The frozen set of issue 38 (the whole account and the daily routine) and its tuning account.
    "G": "routine_trader",
    "H": "routine_retiree",
    "K": "routine_tune",
}
NOW = "2026-11-25T10:30:00+08:00"
HELDOUT_SHARE = 4  # out of 10


def is_heldout(message: str) -> bool:
    return int(hashlib.sha1(message.encode("utf-8")).hexdigest()[:8], 16) % 10 < HELDOUT_SHARE


def checks(expect: str) -> dict:
    """The checks of an expectation: a kind (and its codes), then `;`-separated extras."""
    head, *extras = expect.split(";")
    result = _kind_checks(head)
    for extra in extras:
        _extra(result, extra)
    return result


# An extra: +section required, -section forbidden, =text must, !text must not,
# $cash=figure the account line's cash.
_EXTRA_KEYS = {"+": "sections", "-": "no_sections", "=": "must", "!": "must_not"}


def _extra(result: dict, extra: str) -> None:
    mark, value = extra[:1], extra[1:]
    if mark in _EXTRA_KEYS and value:
        result.setdefault(_EXTRA_KEYS[mark], []).append(value)
        return
    if mark == "$" and "=" in value:
        name, _, figure = value.partition("=")
        result.setdefault("account", {})[name] = figure
        return
    raise ValueError(f"unknown extra {extra!r}")


def _kind_checks(expect: str) -> dict:
    kind, _, codes_text = expect.partition(":")
    codes = [c for c in codes_text.split(",") if c]
    symbol_sections = [f"symbol:{c}" for c in codes]
    if kind == "P":
        return {
            "intent": "portfolio_review",
            "symbols": [],
            "sections": ["portfolio_profiles"],
            "no_sections": ["symbol:*"],
        }
    if kind == "M":
        return {"intent": "portfolio_review", "symbols": codes, "sections": ["portfolio_profiles", *symbol_sections]}
    if kind == "S":
        return {
            "intent": "single_stock",
            "symbols": codes,
            "sections": symbol_sections,
            "no_sections": ["portfolio_profiles"],
        }
    if kind == "G":
        return {"intent": "general", "symbols": [], "no_sections": ["portfolio_profiles", "symbol:*"]}
    if kind == "T":
        result = {"intent": "trade_review", "symbols": codes, "no_sections": ["portfolio_profiles"]}
        if symbol_sections:
            result["sections"] = symbol_sections
        return result
    if kind == "TP":
        return {"intent": "trade_review", "sections": ["portfolio_profiles"]}
    if kind in TOPIC_KINDS:
        return topic_checks(kind, codes)
    if kind == "W":
        return {
            "intent": "general",
            "symbols": [],
            "sections": ["watchlist"],
            "no_sections": ["portfolio_profiles", "symbol:*"],
        }
    if kind == "N":
        return {
            "intent": "general",
            "symbols": [],
            "no_sections": ["portfolio_profiles", "symbol:*", "trades", "watchlist", "news"],
        }
    if kind == "X":
        return {}
    raise ValueError(f"unknown expectation {expect!r}")


# The topic corpus's expectations: the stock's 基本面 part is an item of its section that says
# 基本面; the market review is the section `market`.
FUNDAMENTALS = "基本面"
TOPIC_KINDS = ("F", "PF", "K", "KP", "SN", "PN", "GN")


def topic_checks(kind: str, codes: list[str]) -> dict:
    symbol_sections = [f"symbol:{c}" for c in codes]
    if kind == "F":
        return {
            "intent": "single_stock",
            "symbols": codes,
            "sections": symbol_sections,
            "no_sections": ["portfolio_profiles", "market"],
            "must": [FUNDAMENTALS],
        }
    if kind == "SN":
        return {
            "intent": "single_stock",
            "symbols": codes,
            "sections": symbol_sections,
            "no_sections": ["portfolio_profiles", "market"],
            "must_not": [FUNDAMENTALS],
        }
    if kind == "PF":
        return {
            "intent": "portfolio_review",
            "symbols": [],
            "sections": ["portfolio_profiles"],
            "no_sections": ["symbol:*", "market"],
            "must": [FUNDAMENTALS],
        }
    if kind == "PN":
        return {
            "intent": "portfolio_review",
            "symbols": [],
            "sections": ["portfolio_profiles"],
            "no_sections": ["symbol:*", "market"],
            "must_not": [FUNDAMENTALS],
        }
    if kind == "K":
        return {
            "symbols": [],
            "sections": ["market"],
            "no_sections": ["portfolio_profiles", "symbol:*"],
            "must_not": [FUNDAMENTALS],
        }
    if kind == "KP":
        return {
            "intent": "portfolio_review",
            "symbols": [],
            "sections": ["market", "portfolio_profiles"],
            "no_sections": ["symbol:*"],
            "must_not": [FUNDAMENTALS],
        }
    return {
        "intent": "general",
        "symbols": [],
        "no_sections": ["portfolio_profiles", "symbol:*", "market"],
        "must_not": [FUNDAMENTALS],
    }


def main() -> int:
    tune, heldout = [], []
    counters: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    # frozen_N.txt: a frozen set (issue 27's, issue 38's), on accounts of its own, never split
    # and never tuned on (their digests are checked by tests/selection/test_frozen_set.py).
    frozen: dict[str, list[dict]] = {}
    for path in sorted(ROOT.glob("frozen_*.txt")):
        number = path.stem.removeprefix("frozen_")
        name, prefix = ("frozen", "frozen") if number == "1" else (f"frozen_{number}", f"frozen{number}")
        frozen[name] = list(cases(path, prefix, {}, seen))
    # corpus_*.txt: split by hash; probe_*.txt: written after the first rules and looked at
    # while tuning, so always in the tune part.
    # fresh_*.txt: written after all rules, measured once, never tuned on: always held out.
    for path in sorted(ROOT.glob("corpus_*.txt")) + sorted(ROOT.glob("probe_*.txt")) + sorted(ROOT.glob("fresh_*.txt")):
        probe = path.name.startswith("probe_")
        fresh = path.name.startswith("fresh_")
        prefix = "probe" if probe else "fresh" if fresh else "sel"
        for case in cases(path, prefix, counters, seen):
            split_key = case["message"] + "||".join(case.get("history", []))
            (heldout if fresh or (not probe and is_heldout(split_key)) else tune).append(case)
    # topics_*.txt (issue 39): written before its rules, split by the same hash into a part
    # to tune on and a held-out part, kept apart so the older parts' figures stay as they were.
    topics_tune, topics_heldout = [], []
    topic_counters: dict[str, int] = {}
    for path in sorted(ROOT.glob("topics_*.txt")):
        for case in cases(path, "topic", topic_counters, seen):
            split_key = case["message"] + "||".join(case.get("history", []))
            (topics_heldout if is_heldout(split_key) else topics_tune).append(case)
    outputs = (
        ("tune", tune),
        ("heldout", heldout),
        *frozen.items(),
        ("topics_tune", topics_tune),
        ("topics_heldout", topics_heldout),
    )
    for name, found in outputs:
        (ROOT / f"{name}.json").write_text(
            "[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in found) + "\n]\n", encoding="utf-8"
        )
    sizes = ", ".join(f"{name} {len(found)}" for name, found in frozen.items())
    print(
        f"tune {len(tune)}, held-out {len(heldout)}, {sizes}, topics tune {len(topics_tune)}, topics held-out {len(topics_heldout)}"
    )
    return 0


def cases(path: Path, prefix: str, counters: dict[str, int], seen: set[tuple[str, str]]):
    """The cases of one corpus file, in file order; ids count per category in `counters`.
    A line `%now <ISO time>` sets the cases' `now` from there on (else NOW)."""
    category, now = None, NOW
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("%now "):
            now = line.removeprefix("%now ").strip()
            continue
        if line.startswith("@"):
            category = line[1:].strip()
            continue
        parts = line.split("\t")
        if len(parts) not in (3, 4) or category is None:
            raise SystemExit(f"{path.name}:{number}: bad line {line!r}")
        dataset, expect, message = parts[:3]
        key = (message, parts[3] if len(parts) == 4 else "")
        if key in seen:
            raise SystemExit(f"{path.name}:{number}: duplicate message {message!r}")
        seen.add(key)
        counters[category] = counters.get(category, 0) + 1
        case = {
            "id": f"{prefix}-{category}-{counters[category]:03d}",
            "category": category,
            "now": now,
            "market_list": True,
            "dataset": DATASETS[dataset],
            "message": message,
            **checks(expect),
        }
        if len(parts) == 4:
            case["history"] = [t.strip() for t in parts[3].split("||")]
        yield case


if __name__ == "__main__":
    sys.exit(main())
