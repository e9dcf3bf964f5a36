"""A follow-up's place names a stock (issue 53): in a conversation about stocks, the term after
和…比 / 对比 / 那…呢 / vs / and, or at the start of a short question of its own, is the stock
whose name it starts — the investor's own first, else the one listed stock (of several, the
one in the industry of the stock in focus) — and `pixiu context --explain` says why. Without
the conversation, or for a word that is no stock's (去年, 大盘, 东方, 中国: every 中国… stock's), nothing is added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import pixiu_for_result

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "follow_zhao.json"
EXPRESS, SHENTONG, QIBIN, ZHONGJU, HUANGSHAN = "002120", "002468", "601636", "600872", "600054"


def explain(env, *args) -> dict:
    done = pixiu_for_result(env, "context", "--explain", *args, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def mention(info: dict, text: str) -> dict:
    [found] = [m for m in info["selection"]["mentions"] if m["text"] == text]
    return found


@pytest.fixture
def conversation(offline_env) -> tuple[dict, str]:
    assert pixiu_for_result(offline_env, "import", str(ACCOUNT), timeout=120).returncode == 0
    asked = pixiu_for_result(offline_env, "ask", "--json", "韵达这个月跌了不少", timeout=120)
    assert asked.returncode == 0, asked.stderr
    return offline_env, str(json.loads(asked.stdout)["conversation_id"])


@pytest.mark.slow
def test_a_short_name_in_a_comparison_is_the_listed_stock_of_the_focus_industry(offline_env):
    assert pixiu_for_result(offline_env, "import", str(ACCOUNT), timeout=120).returncode == 0
    alone = explain(offline_env, "和申通比呢")  # no conversation yet: 申通 is nothing pixiu knows
    assert alone["symbols"] == []
    asked = pixiu_for_result(offline_env, "ask", "--json", "韵达这个月跌了不少", timeout=120)
    conversation = str(json.loads(asked.stdout)["conversation_id"])
    added = explain(offline_env, "--conversation", conversation, "和申通比呢")
    assert added["symbols"] == [EXPRESS, SHENTONG]  # 申通快递, not 申通地铁: both begin with 申通
    assert added["selection"]["operation"]["name"] == "add"
    why = mention(added, "申通")["why"]
    assert mention(added, "申通")["accepted"] and "“和…比”" in why and "仓储物流" in why
    assert f"symbol:{SHENTONG}" in [s["key"] for s in added["sections"]]


@pytest.mark.slow
def test_an_english_versus_adds_the_stock_in_the_comparisons_place(conversation):
    env, conversation_id = conversation
    versus = explain(env, "--conversation", conversation_id, "vs 旗滨?")
    assert versus["symbols"] == [EXPRESS, QIBIN] and versus["selection"]["operation"]["name"] == "add"
    assert "“对比…”的位置是一只股票" in mention(versus, "旗滨")["why"]


@pytest.mark.slow
def test_an_english_and_swaps_to_the_investors_own_stock_named_by_an_everyday_word(conversation):
    env, conversation_id = conversation
    swapped = explain(env, "--conversation", conversation_id, "and 黄山?")  # 黄山旅游, held
    assert swapped["symbols"] == [HUANGSHAN] and swapped["selection"]["operation"]["name"] == "replace"
    assert "最近几轮在谈股票" in mention(swapped, "黄山")["why"]


@pytest.mark.slow
def test_a_new_stock_with_its_own_question_replaces_the_one_before(conversation):
    env, conversation_id = conversation
    own = explain(env, "--conversation", conversation_id, "中炬年报啥时候出")
    assert own["symbols"] == [ZHONGJU]  # 韵达 goes
    assert "“点名 + 自己的问题”" in mention(own, "中炬")["why"]
    keys = [s["key"] for s in own["sections"]]
    assert f"symbol:{ZHONGJU}" in keys and f"symbol:{EXPRESS}" not in keys


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "symbols"),
    [("和去年比呢", [EXPRESS]), ("和东方比呢", [EXPRESS]), ("和中国比呢", [EXPRESS]), ("那大盘呢", [])],
)
def test_a_word_that_is_no_single_stock_adds_nothing(conversation, text, symbols):
    env, conversation_id = conversation
    info = explain(env, "--conversation", conversation_id, text)
    assert info["symbols"] == symbols
    assert not [m for m in info["selection"]["mentions"] if m["accepted"]]
