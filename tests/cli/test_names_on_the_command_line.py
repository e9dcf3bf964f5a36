"""Every CODE argument takes a code in any spelling, a name, a short name or an alias, through
the one name matcher the conversation uses; an ambiguous name lists the candidates."""

from __future__ import annotations

import json

import pytest

from tests.helpers import clean_env, in_process_ok, pixiu_in_process


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home", PIXIU_NOW="2025-08-20T16:00:00")


@pytest.mark.parametrize(
    "typed, code",
    [
        ("宁德时代", "300750"),
        ("宁王", "300750"),
        ("茅台", "600519"),
        ("贵州茅台", "600519"),
        ("６００５１９", "600519"),
    ],
)
def test_a_name_short_name_alias_or_any_spelling_is_the_stock(env, typed, code):
    assert f"已加入自选：{code}" in in_process_ok(env, "watch", "add", typed)


def test_trade_takes_a_name_and_the_account_is_the_stock(env):
    told = in_process_ok(env, "trade", "buy", "比亚迪", "100", "250")
    assert "买入 002594 100 股 @ 250" in told
    (held,) = json.loads(in_process_ok(env, "holdings", "--json"))["holdings"]
    assert (held["symbol"], held["name"]) == ("002594", "比亚迪")
    assert "002594 比亚迪" in in_process_ok(env, "trades", "比亚迪")


def test_an_ambiguous_name_lists_the_candidates_in_one_line(env):
    done = pixiu_in_process(env, "trade", "buy", "银行", "100", "10", text=True)
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()
    assert "银行 可能是：" in line and "601398 工商银行" in line and "请用代码" in line


def test_an_unknown_name_is_one_line_and_nothing_is_written(env):
    done = pixiu_in_process(env, "trade", "buy", "不存在的股票", "100", "1", text=True)
    assert done.returncode != 0 and "找不到股票 '不存在的股票'" in done.stderr
    assert json.loads(in_process_ok(env, "holdings", "--json"))["holdings"] == []


def test_chart_finds_the_stock_by_name_and_says_what_is_missing(env):
    done = pixiu_in_process(env, "chart", "茅台", text=True)
    assert done.returncode != 0 and "没有 600519 的行情数据" in done.stderr


def test_a_mistyped_code_is_still_a_code_error(env):
    done = pixiu_in_process(env, "watch", "add", "60051", text=True)
    assert done.returncode != 0 and "股票代码应为 6 位数字，而不是 '60051'" in done.stderr
