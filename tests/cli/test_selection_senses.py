"""Everyday senses and questions about no account of the user's as a user meets them:
`pixiu context --explain` on an imported account says why a held brand used in daily life
is not the stock, why a name compared with another is, and which class of question loads
no portfolio; `pixiu context` prints the same reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import pixiu_in_process

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "travel_wishes.json"


def explain(env, text: str) -> dict:
    done = pixiu_in_process(env, "context", "--explain", text, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def account_env(offline_env):
    done = pixiu_in_process(offline_env, "import", str(ACCOUNT), text=True)
    assert done.returncode == 0, done.stderr
    return offline_env


def _mention(info: dict, text: str) -> dict:
    return next(m for m in info["selection"]["mentions"] if m["text"] == text)


def _keys(info: dict) -> list[str]:
    return [s["key"] for s in info["sections"]]


def test_a_held_name_used_in_daily_life_is_vetoed_with_its_reason(account_env):
    info = explain(account_env, "周末坐广深铁路去广州，票好买吗")
    assert info["symbols"] == [] and "symbol:601333" not in _keys(info)
    note = _mention(info, "广深铁路")
    assert note["symbol"] == "601333" and note["kind"] == "full" and not note["accepted"]
    assert "日常用法" in note["why"] and "乘车" in note["why"]
    held = explain(account_env, "广深铁路分红怎么样")
    assert held["symbols"] == ["601333"] and _mention(held, "广深铁路")["accepted"]


def test_names_compared_are_stocks_and_say_so(account_env):
    info = explain(account_env, "格力和美的选哪个")
    assert info["symbols"] == ["000651", "000333"]
    assert all("比较" in _mention(info, name)["why"] for name in ("格力", "美的"))


def test_the_crowds_talk_loads_no_portfolio_and_names_its_class(account_env):
    info = explain(account_env, "网上都说要割肉止损，该信吗")
    assert info["intent"] == "general" and "portfolio_profiles" not in _keys(info)
    cue = next(c for c in info["selection"]["cues"] if c["group"] == "not_mine")
    assert cue["name"] == "众人的说法" and "众人的说法" in info["selection"]["reason"]
    table = pixiu_in_process(account_env, "context", "网上都说要割肉止损，该信吗", text=True)
    assert table.returncode == 0 and "众人的说法" in table.stdout, table.stderr


def test_a_colloquial_account_question_loads_the_portfolio(account_env):
    info = explain(account_env, "一共浮亏多少了")
    assert info["intent"] == "portfolio_review" and "portfolio_profiles" in _keys(info)
    assert any(c["name"] == "持仓盈亏合计" for c in info["selection"]["cues"])
