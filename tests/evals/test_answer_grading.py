"""Ground truth comes from the data set and every check can fail: graded against hand-made
replies, right and wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pixiu_cli.evals.answers import CHECK_FIELDS, Reply, grade, load_answer_cases
from pixiu_cli.evals.cases import EvalError

NOW = "2026-03-04T10:15:00+08:00"


def _case(tmp_path: Path, checks, message="我的持仓哪只夏普最高？", patch=None):
    raw = {"id": "t", "category": "c", "now": NOW, "dataset": "portfolio", "message": message, "checks": checks}
    if patch:
        raw["dataset_patch"] = patch
    path = tmp_path / "case.json"
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    return load_answer_cases([path])[0]


def _passed(case, text, tools=()):
    return [g.passed for g in grade(case, Reply(text, tuple(tools)))]


def test_best_holding_is_computed_from_the_latest_profiles(tmp_path):
    case = _case(tmp_path, [{"check": "best_holding", "metric": "sharpe", "order": "max"}])
    assert _passed(case, "夏普最高的是贵州茅台，1.21。") == [True]
    assert _passed(case, "夏普最高的是美的集团。") == [False]
    # the deepest drawdown is the most negative one; the shallowest uses 600519's newest profile
    deepest = _case(tmp_path, [{"check": "best_holding", "metric": "max_drawdown", "order": "max"}])
    assert _passed(deepest, "中芯国际回撤最深") == [True] and _passed(deepest, "茅台") == [False]
    shallowest = _case(tmp_path, [{"check": "best_holding", "metric": "max_drawdown", "order": "min"}])
    assert _passed(shallowest, "茅台回撤最浅（-18.6%）") == [True]


def test_best_holding_follows_the_data_not_the_case(tmp_path):
    patch = {
        "append": {
            "profiles": [{"symbol": "000333", "strategy": "新策略", "sharpe": 2.5, "days_ago": 0, "time": "09:00"}]
        }
    }
    case = _case(tmp_path, [{"check": "best_holding", "metric": "sharpe", "order": "max"}], patch=patch)
    assert _passed(case, "贵州茅台") == [False] and _passed(case, "美的集团") == [True]


@pytest.mark.parametrize(
    "text, ok",
    [("最大回撤 -33.1%", True), ("回撤33.1%", True), ("-0.331", True), ("回撤 -33.5%", False), ("不知道", False)],
)
def test_metric_value_within_rounding(tmp_path, text, ok):
    case = _case(tmp_path, [{"check": "metric_value", "symbol": "002415", "metric": "max_drawdown"}])
    assert _passed(case, text) == [ok]


def test_notes_decisions_alerts_reports_holdings(tmp_path):
    case = _case(
        tmp_path,
        [
            {"check": "quotes_note", "phrase": "不再追涨杀跌"},
            {"check": "latest_decision"},
            {"check": "alert_stock"},
            {"check": "quotes_report", "phrase": "维持观望"},
            {"check": "holding_figure", "symbol": "600036", "field": "shares"},
        ],
    )
    right = "纪律：不再追涨杀跌。最近买入海康 @ 30.20。中芯国际有预警。点评：维持观望。招行 3,000 股。"
    assert _passed(case, right) == [True] * 5
    assert _passed(case, "最近卖出 @ 192.5，招行 300 股") == [False] * 5


def test_stale_is_judged_both_ways(tmp_path):
    old = {
        "replace": {
            "profiles": [{"symbol": "002415", "strategy": "均值回归", "sharpe": 0.4, "days_ago": 200, "time": "20:00"}]
        }
    }
    stale = _case(tmp_path, [{"check": "stale_profile", "symbol": "002415"}], patch=old)
    assert _passed(stale, "这份画像已过期") == [True] and _passed(stale, "画像可以参考") == [False]
    fresh = _case(tmp_path, [{"check": "stale_profile", "symbol": "600519"}])
    assert _passed(fresh, "画像可以参考") == [True] and _passed(fresh, "画像已过期") == [False]


def test_tools_and_invented_symbols(tmp_path):
    case = _case(tmp_path, [{"check": "calls_tool", "tool": "remember"}, {"check": "no_invented_symbol"}])
    assert _passed(case, "已记住 600519", ["remember"]) == [True, True]
    assert _passed(case, "建议买入 000001", []) == [False, False]
    never = _case(tmp_path, [{"check": "no_tool", "tool": "remember"}])
    assert _passed(never, "好的", ["remember"]) == [False]


def test_every_check_kind_has_its_own_grader(tmp_path):
    args = {
        "metric": "sharpe",
        "order": "max",
        "symbol": "600519",
        "field": "shares",
        "phrase": "不再追涨杀跌",
        "tool": "remember",
    }
    checks = [{"check": name, **{k: args[k] for k in required}} for name, (required, _) in CHECK_FIELDS.items()]
    grades = grade(_case(tmp_path, checks), Reply("好的", ()))
    invented = [g.check for g in grades if g.detail.startswith("回复中不在数据集里的代码")]
    assert len(grades) == len(CHECK_FIELDS) and invented == ["no_invented_symbol"]


def test_a_phrase_not_in_the_data_set_is_a_broken_case(tmp_path):
    case = _case(tmp_path, [{"check": "quotes_note", "phrase": "数据集里没有的话"}])
    grades = grade(case, Reply("数据集里没有的话", ()))
    assert not grades[0].passed and "用例有误" in grades[0].detail


@pytest.mark.parametrize(
    "checks, needle",
    [
        ([{"check": "nope"}], "未知的检查"),
        ([{"check": "metric_value", "symbol": "002415"}], "缺少 metric"),
        ([{"check": "best_holding", "metric": "pe", "order": "max"}], "metric"),
        ([], "checks"),
    ],
)
def test_malformed_cases_name_the_problem(tmp_path, checks, needle):
    with pytest.raises(EvalError, match=needle):
        _case(tmp_path, checks)


def test_shipped_answer_cases_load_and_cover_the_memory_classes():
    cases = load_answer_cases()
    assert len(cases) >= 40
    assert {
        "portfolio_profiles",
        "symbol_context",
        "holdings",
        "notes",
        "decisions",
        "alerts",
        "reports",
        "staleness",
        "tools",
        "hallucination",
    } <= {c.category for c in cases}
