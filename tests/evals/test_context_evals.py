"""The context evals: every shipped case passes, and the runner can really fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pixiu_cli.evals.cases import EvalError, default_cases_dir
from pixiu_cli.evals.contexts import CaseResult, EvalReport, load_cases, parse_case, run_case, run_evals, summarize

NOW = "2026-03-04T10:15:00+08:00"
EXPECTED_CATEGORIES = {
    "reports",
    "decisions",
    "alerts",
    "notes",
    "symbols",
    "symbol_context",
    "portfolio",
    "negatives",
    "layers",
    "budget",
    "injection",
    "session",
}


@pytest.fixture(scope="module")
def shipped_report() -> EvalReport:
    return run_evals(load_cases())


def test_shipped_cases_all_pass(shipped_report):
    table = "; ".join(f"{k} {p}/{t}" for k, (p, t) in shipped_report.by_category().items())
    failures = "\n".join(shipped_report.failure_lines())
    rate = shipped_report.pass_rate
    assert rate == 1.0, f"pass rate {rate:.1%} ({table})\n{failures}"


def test_shipped_suite_is_broad(shipped_report):
    assert shipped_report.total >= 80
    categories = shipped_report.by_category()
    assert EXPECTED_CATEGORIES <= set(categories), sorted(categories)
    assert all(total >= 5 for _, total in categories.values()), categories


def test_default_load_skips_datasets_and_readme():
    cases = load_cases()
    sources = {c.source.name for c in cases}
    assert sources and all(name.endswith(".json") for name in sources)
    dataset_files = {p.name for p in (default_cases_dir() / "datasets").glob("*.json")}
    assert dataset_files, "the base data sets are shipped"
    assert all(c.source.parent == default_cases_dir() for c in cases)
    assert len({c.id for c in cases}) == len(cases)


# ---------------------------------------------------------------------------------------
# The runner must be able to fail


def _case(**overrides) -> dict:
    case = {
        "id": "t",
        "category": "test",
        "now": NOW,
        "dataset": "small",
        "message": "茅台最近怎么样",
        "must": ["## 标的上下文：600519 贵州茅台"],
    }
    case.update(overrides)
    return case


def _run(**overrides) -> CaseResult:
    return run_case(parse_case(_case(**overrides)))


def test_baseline_case_passes():
    result = _run(intent="single_stock", symbols=["600519"], sections=["symbol:600519", "time"])
    assert result.passed, result.failures
    assert result.tokens and result.block_text.startswith("[上下文信息]")


def test_missing_must_fact_fails():
    result = _run(must=["这句话不在上下文里"])
    assert not result.passed
    assert result.failures == ["缺少应出现的内容 '这句话不在上下文里'"]


def test_present_must_not_fails_and_shows_where():
    result = _run(must_not=["融合信号 +0.42"])
    assert not result.passed
    assert len(result.failures) == 1
    assert "融合信号 +0.42" in result.failures[0] and "\n" not in result.failures[0]


def test_wrong_intent_fails():
    result = _run(intent="portfolio_review")
    assert not result.passed
    assert result.failures == ["意图应为 portfolio_review，实际为 single_stock"]


def test_wrong_symbols_and_sections_fail():
    result = _run(symbols=["300750"], sections=["portfolio_profiles"], no_sections=["symbol:*"])
    assert not result.passed
    assert len(result.failures) == 3
    assert "['300750']" in result.failures[0] and "['600519']" in result.failures[0]


def test_budget_checks_fail():
    result = _run(max_tokens=10, omitted=["notes"], not_omitted=["*"], limits={"budget_tokens": 200})
    assert not result.passed
    reasons = " | ".join(result.failures)
    assert "超过上限 10" in reasons and "段落 notes 应因预算被省略" in reasons and "不应省略 *" in reasons


def test_quoted_check_fails_outside_quotes():
    # The holding name is rendered as part of the holdings line, not as quoted data.
    result = _run(quoted=["贵州茅台（简称：茅台）", "不存在的数据"])
    assert not result.passed
    assert "出现在「」之外" in result.failures[0]
    assert "没有出现在上下文中" in result.failures[1]


def test_counts_check_fails():
    result = _run(counts={"[上下文信息]": 2})
    assert result.failures == ["'[上下文信息]' 应出现 2 次，实际 1 次"]


def test_engine_crash_is_a_failed_case(monkeypatch):
    import pixiu_cli.evals.contexts as evals

    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(evals.ContextBuilder, "context_block", boom)
    result = _run()
    assert not result.passed and result.failures == ["构建上下文时出错：RuntimeError: kaput"]


def test_report_aggregates():
    good = CaseResult("a", "x", True)
    bad = CaseResult("b", "x", False, ["原因"])
    other = CaseResult("c", "y", True)
    report = EvalReport([good, bad, other])
    assert report.by_category() == {"x": (1, 2), "y": (1, 1)}
    assert report.pass_rate == pytest.approx(2 / 3)
    assert report.failure_lines() == ["b [x]: 原因"]
    assert summarize(report)["categories"]["x"] == {"passed": 1, "total": 2}
    assert EvalReport([]).pass_rate == 0.0


def test_patch_and_inline_dataset(tmp_path):
    inline = {
        "holdings": [
            {"symbol": "000333", "name": "美的集团", "short_names": ["美的"], "shares": 100, "cost": 60, "role": "core"}
        ]
    }
    result = _run(
        dataset=inline,
        message="美的怎么样",
        must=["## 标的上下文：000333 美的集团"],
        dataset_patch={
            "append": {"notes": [{"kind": "rule", "text": "不追高", "days_ago": 1}]},
            "replace": {"persona": {"风险偏好": "激进"}},
        },
    )
    assert result.passed, result.failures
    assert "纪律：「不追高」" in result.block_text and "风险偏好：「激进」" in result.block_text


def test_list_and_single_object_files(tmp_path):
    (tmp_path / "one.json").write_text(json.dumps(_case(id="one"), ensure_ascii=False), encoding="utf-8")
    (tmp_path / "many.json").write_text(
        json.dumps([_case(id="m1"), _case(id="m2")], ensure_ascii=False), encoding="utf-8"
    )
    cases = load_cases([tmp_path])
    assert sorted(c.id for c in cases) == ["m1", "m2", "one"]
    assert run_evals(cases).pass_rate == 1.0


def test_case_file_can_bring_its_own_datasets(tmp_path):
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "mine.json").write_text(
        json.dumps(
            {
                "holdings": [
                    {
                        "symbol": "601318",
                        "name": "中国平安",
                        "short_names": ["平安"],
                        "shares": 100,
                        "cost": 45,
                        "role": "core",
                    }
                ]
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps(_case(dataset="mine", message="平安怎么样", must=["601318 中国平安"]), ensure_ascii=False),
        encoding="utf-8",
    )
    [case] = load_cases([path])
    assert run_case(case).passed


# ---------------------------------------------------------------------------------------
# Malformed case files


def _write(tmp_path: Path, content) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "不是有效的 JSON"),
        ([], "没有用例"),
        ([42], "第 1 个用例：应为 JSON 对象"),
        (_case(id="x1", must_nto=["a"]), "用例 x1）：未知字段 must_nto"),
        ({k: v for k, v in _case(id="x2").items() if k != "message"}, "用例 x2）：缺少必填字段 message"),
        (_case(id="x3", now="2026-03-04T10:15:00"), "now 应为带时区"),
        (_case(id="x4", dataset="no_such_dataset"), "找不到数据集 no_such_dataset.json"),
        (_case(id="x5", intent="portfolio"), "intent 应为"),
        (_case(id="x6", limits={"report_days": 3}), "limits 中未知的设置 report_days"),
        (_case(id="x7", must="茅台"), "must 应为非空字符串数组"),
        (_case(id="x8", symbols=["sh600519"]), "symbols 应为六位代码数组"),
        (_case(id="x9", dataset_patch={"append": {"trades": []}}), "未知的数据段 trades"),
        (_case(id="x10", dataset={"holdings": [{"symbol": "abc"}]}), "数据集无效：holdings[0].symbol"),
        ({k: v for k, v in _case(id="x11").items() if k != "must"}, "没有任何检查"),
        ([_case(id="dup"), _case(id="dup")], "用例 dup）：id 与 bad.json 中的用例重复"),
        (_case(id="x12", max_tokens=0), "max_tokens 应为正整数"),
        (_case(id="x13", history="茅台呢"), "history 应为非空字符串数组"),
        (_case(id="x14", market_list="yes"), "market_list 应为 true 或 false"),
    ],
)
def test_malformed_case_file_raises(tmp_path, content, fragment):
    path = _write(tmp_path, content)
    with pytest.raises(EvalError) as info:
        load_cases([path])
    assert "bad.json" in str(info.value)
    assert fragment in str(info.value)


def test_missing_path_raises(tmp_path):
    with pytest.raises(EvalError, match="找不到用例文件或目录"):
        load_cases([tmp_path / "nope.json"])


def test_history_and_market_list_reach_the_builder(tmp_path):
    # the same follow-up without / with the earlier question; 五粮液 known only via the market list
    plain = parse_case(
        _case(id="h0", message="其他几只呢", dataset="portfolio", intent="general", must=["[上下文信息]"])
    )
    follow = parse_case(
        _case(
            id="h1",
            message="其他几只呢",
            dataset="portfolio",
            history=["茅台能加仓吗"],
            must=["[上下文信息]"],
            intent="portfolio_review",
            sections=["portfolio_profiles"],
        )
    )
    assert run_case(plain).intent == "general" and run_case(follow).passed
    # the shipped list of every listed stock names it in any home; the market list adds master rows
    unknown = parse_case(
        _case(id="m0", message="海尔智家怎么样", dataset="portfolio", symbols=["600690"], must=["[上下文信息]"])
    )
    listed = parse_case(
        _case(
            id="m1",
            message="海尔智家怎么样",
            dataset="portfolio",
            market_list=True,
            must=["[上下文信息]"],
            symbols=["600690"],
        )
    )
    assert run_case(unknown).passed and run_case(listed).passed
