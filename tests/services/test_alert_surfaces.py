"""One alert-add path: a rule set by `pixiu alert add` (the CLI's entry point, in process),
`/alert add` (the REPL, in a pty) or the `set_alert` tool (a turn of `pixiu ask`, offline, in
process) reads the same, is checked from the same bar with the same cooldown, and fires on
the same close."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from pixiu_cli.memory.alerts import DEFAULT_COOLDOWN_DAYS
from tests.helpers import MARKET_FIXTURES, PROMPT, in_process_ok, leave, repl_session, say

HOLDING = {
    "holdings": [
        {"symbol": "000333", "name": "美的集团", "short_names": ["美的"], "shares": 1000, "cost": 60.5, "role": "core"}
    ]
}
EARLY_END = "2025-04-30"
RULE_TEXT = "000333 美的集团 收盘突破 76 元"
BARS = MARKET_FIXTURES / "000333.csv"
IMPORT_ARGS = ["--symbol", "000333", "--name", "美的集团", "--actions", str(MARKET_FIXTURES / "000333_actions.csv")]


def _closes() -> list[tuple[str, float]]:
    with BARS.open(encoding="utf-8") as rows:
        return [(row["datetime"][:10], float(row["close"])) for row in csv.DictReader(rows)]


def _last_early_bar() -> str:
    return max(day for day, _ in _closes() if day <= EARLY_END)


def _first_cross_above(level: float) -> tuple[str, float]:
    """The first close above `level` after the early bars, from one at or below it (no
    ex-rights day in that stretch of the file, so raw closes are the reference)."""
    closes = _closes()
    return next(
        (day, close)
        for (_, before), (day, close) in zip(closes, closes[1:])
        if day > EARLY_END and before <= level < close
    )


def _holding_and_early_bars(env, tmp_path: Path) -> None:
    data = tmp_path / "holding.json"
    data.write_text(json.dumps(HOLDING, ensure_ascii=False), encoding="utf-8")
    in_process_ok(env, "import", str(data))
    lines = BARS.read_text(encoding="utf-8").splitlines()
    early = tmp_path / "early.csv"
    early.write_text("\n".join([lines[0], *(ln for ln in lines[1:] if ln[:10] <= EARLY_END)]) + "\n", encoding="utf-8")
    in_process_ok(env, "data", "import", str(early), *IMPORT_ARGS)


def _by_cli(env) -> str:
    return in_process_ok(env, "alert", "add", "000333", "--above", "76")


def _by_repl(env) -> str:
    with repl_session(env) as child:
        child.expect(PROMPT)
        say(child, "/alert add 000333 --above 76")
        child.expect(r"已设预警 a1：[^\r\n]*")
        confirmation = child.after
        child.expect(PROMPT)
        leave(child)
    return confirmation


def _by_tool(env) -> str:
    out = json.loads(in_process_ok(env, "ask", "--json", "美的涨破76元提醒我"))
    return "\n".join(out["notices"])


SURFACES = {"cli": (_by_cli, "手动"), "repl": (_by_repl, "手动"), "tool": (_by_tool, "对话")}


@pytest.mark.slow
@pytest.mark.pty
@pytest.mark.parametrize("surface", SURFACES)
def test_every_surface_sets_the_same_rule_and_it_fires_on_the_same_close(surface, offline_env, tmp_path):
    add, source = SURFACES[surface]
    _holding_and_early_bars(offline_env, tmp_path)
    confirmation = add(offline_env)
    assert f"已设预警 a1：{RULE_TEXT}" in confirmation, confirmation
    (rule,) = json.loads(in_process_ok(offline_env, "alert", "list", "--json"))
    seen = {k: rule[k] for k in ("id", "symbol", "kind", "threshold", "cooldown_days", "checked_through", "source")}
    assert seen == {
        "id": "a1",
        "symbol": "000333",
        "kind": "above",
        "threshold": 76.0,
        "cooldown_days": DEFAULT_COOLDOWN_DAYS,
        "checked_through": _last_early_bar(),  # the bars already stored are history
        "source": source,
    }
    later = in_process_ok(offline_env, "data", "import", str(BARS), *IMPORT_ARGS)
    fired = [line for line in later.splitlines() if line.startswith("预警触发：")]
    day, close = _first_cross_above(76)
    assert len(fired) == 1 and fired[0].startswith(f"预警触发：a1 {RULE_TEXT}：{day} 收盘 {close:.2f} 元"), later
    (rule,) = json.loads(in_process_ok(offline_env, "alert", "list", "--json"))
    assert rule["last_fired_on"] == day


def test_a_drawdown_alert_needs_a_holding(offline_env):
    from tests.helpers import pixiu_in_process

    done = pixiu_in_process(offline_env, "alert", "add", "000333", "--drawdown-from-cost", "10", text=True)
    assert done.returncode == 1 and "没有持有 000333" in done.stderr and done.stderr.count("\n") == 1
    listed = pixiu_in_process(offline_env, "alert", "list", text=True)
    assert "没有预警" in listed.stdout + listed.stderr


def test_one_reading_of_a_rule_id_serves_forget_and_alert_remove():
    from pixiu_cli.memory.alerts import parse_rule_id, rule_ref

    for typed in ("a3", "A3", "#a3", "ａ3", "Ａ3", " a3 "):
        assert rule_ref(typed) == parse_rule_id(typed) == 3, typed
    assert rule_ref("3") is None and parse_rule_id("3") == 3  # a bare number is a rule only where nothing else is meant
    for typed in ("n3", "d3", "a", "a" + "9" * 19, "3²", "a-1"):
        assert rule_ref(typed) is None and parse_rule_id(typed) is None, typed
