"""Round four of issue 53 as a user meets it in `pixiu context --explain`, on a real home: a
named holiday that is not the latest one (春节 asked in December) with its side said as a
reopening (开市那天, 开门那天) or a stocking word (囤) moves the trades / reports / alerts
windows to the Spring Festival closure; an own stock's form that is also its product (解放 of
一汽解放) is the stock when the question is about keeping the position (还能拿吗 + a remark);
a form inside a studio's brand with a life context (海马体拍证件照) is not; 和X呢 after a
question about one stock adds X when it is of the same industry, 那X呢 still replaces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import pixiu_for_result

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "holiday_gao.json"
NOW = "2026-12-04T20:00:00+08:00"  # National Day 2026 is the latest closure; 春节 closed 02-14..02-23
JIEFANG, HAIMA, ZHONGQI, WEICHAI = "000800", "000572", "000951", "000338"


@pytest.fixture
def home(offline_env):
    env = {**offline_env, "PIXIU_NOW": NOW}
    done = pixiu_for_result(env, "import", str(ACCOUNT), timeout=120)
    assert done.returncode == 0, done.stderr
    return env


def explain(env, *args) -> dict:
    done = pixiu_for_result(env, "context", "--explain", *args, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def windows(info: dict) -> list[tuple[str, str, str]]:
    return [(w["section"], w["start"], w["end"]) for w in info["selection"]["windows"]]


def test_the_spring_festivals_reopening_moves_the_reports_and_alerts_windows(home):
    review = explain(home, "春节开市那天的复盘翻出来看看")
    assert ("reports", "2026-02-24", "2026-02-24") in windows(review)
    [move] = [w for w in review["selection"]["windows"] if w["section"] == "reports"]
    assert move["reading"] == "春节休市 2026-02-14 至 2026-02-23，取复市首日"
    alert = explain(home, "春节开门那天报警的是哪只")
    assert ("alerts", "2026-02-24", "2026-02-24") in windows(alert)
    latest = explain(home, "国庆开市那天的复盘")  # the latest closure's reopening, not the spring's
    assert ("reports", "2026-10-08", "2026-10-08") in windows(latest)


def test_stocking_before_the_spring_festival_is_a_trade_of_that_window(home):
    info = explain(home, "春节前囤的那只现在咋样了")
    assert [w[0] for w in windows(info)][:1] == ["trades"]
    start, end = windows(info)[0][1:]
    assert start < "2026-02-11" <= end <= "2026-02-15"  # the 青岛啤酒 bought on 02-11 is inside
    assert explain(home, "过年囤年货花了多少钱")["selection"]["windows"] == []  # groceries, not a trade


def test_keeping_a_position_makes_a_product_form_the_stock(home):
    kept = explain(home, "解放还能拿吗 师傅我心里没底")
    assert kept["symbols"] == [JIEFANG]
    [mention] = kept["selection"]["mentions"]
    assert mention["accepted"] and "还能拿" in mention["why"]
    truck = explain(home, "解放的车油耗高不高")
    assert truck["symbols"] == []


def test_a_studio_brand_with_a_life_context_is_not_the_stock(home):
    photo = explain(home, "海马体拍证件照多少钱")
    assert photo["symbols"] == []
    [mention] = photo["selection"]["mentions"]
    assert not mention["accepted"] and "证件照" in mention["why"]
    assert explain(home, "海马套住了咋办")["symbols"] == [HAIMA]


@pytest.mark.slow
def test_and_x_of_the_same_industry_adds_while_another_industry_replaces(home):
    asked = pixiu_for_result(home, "ask", "--json", "一汽解放最近咋样", timeout=120)
    assert asked.returncode == 0, asked.stderr
    conversation = str(json.loads(asked.stdout)["conversation_id"])
    added = explain(home, "--conversation", conversation, "和中国重汽呢")
    assert added["symbols"] == [JIEFANG, ZHONGQI] and added["selection"]["operation"]["name"] == "add"
    other = explain(home, "--conversation", conversation, "跟潍柴动力呢")  # a parts maker: instead
    assert other["symbols"] == [WEICHAI]
    instead = explain(home, "--conversation", conversation, "那中国重汽呢")
    assert instead["symbols"] == [ZHONGQI]
