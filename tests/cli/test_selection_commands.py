"""Selection as a user meets it: aliases, imported names, follow-ups across turns, the
explanation in `pixiu context`, and `pixiu eval`'s tune / held-out report."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers import REPO, pixiu_for_result

CORPUS_PORTFOLIO = Path(__file__).resolve().parents[2] / "data" / "selection" / "datasets" / "energy_consumer.json"
CONVO_PORTFOLIO = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "convo_chen.json"


def pixiu(env, *args, timeout=120):
    return pixiu_for_result(env, *args, timeout=timeout)


def explain(env, *args) -> dict:
    done = pixiu(env, "context", "--explain", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_alias_set_used_listed_and_removed(offline_env):
    assert pixiu(offline_env, "import", str(CORPUS_PORTFOLIO)).returncode == 0
    assert explain(offline_env, "大宁最近怎么样")["symbols"] == []
    done = pixiu(offline_env, "alias", "大宁", "３００７５０")  # full-width digits are folded
    assert done.returncode == 0 and "大宁 → 300750 宁德时代" in done.stdout, done.stderr
    info = explain(offline_env, "大宁最近怎么样")
    assert info["symbols"] == ["300750"]
    assert {"text": "大宁", "symbol": "300750", "kind": "user", "accepted": True, "why": "用户设置的别名"} in info[
        "selection"
    ]["mentions"]
    listed = json.loads(pixiu(offline_env, "alias", "--json").stdout)
    assert {"alias": "大宁", "symbol": "300750", "name": "宁德时代", "source": "user"} in listed
    assert any(r["alias"] == "宁王" and r["source"] == "shipped" for r in listed)
    assert pixiu(offline_env, "alias", "--remove", "大宁").returncode == 0
    assert explain(offline_env, "大宁最近怎么样")["symbols"] == []


@pytest.mark.slow
def test_alias_bad_input_is_one_clear_line(offline_env):
    for args, message in [
        (("大宁", "30075"), "股票代码应为 6 位数字，而不是 '30075'"),
        (("宁", "300750"), "别名至少两个字"),
        (("600519", "300750"), "别名不能是数字"),
        (("--remove", "没有这个"), "没有别名 没有这个"),
    ]:
        done = pixiu(offline_env, "alias", *args)
        assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_import_registers_stocks_it_has_data_about(offline_env):
    assert pixiu(offline_env, "import", str(CORPUS_PORTFOLIO)).returncode == 0
    info = explain(offline_env, "五粮液最近怎么样")  # not held: a profile, news and a signal stored
    assert info["symbols"] == ["000858"] and info["intent"] == "single_stock"
    assert "symbol:000858" in [s["key"] for s in info["sections"]]


@pytest.mark.slow
def test_follow_up_in_a_conversation_gets_the_overview(offline_env):
    assert pixiu(offline_env, "import", str(CORPUS_PORTFOLIO)).returncode == 0
    first = pixiu(offline_env, "ask", "茅台现在能加仓吗")
    assert first.returncode == 0, first.stderr
    conversation = json.loads(pixiu(offline_env, "ask", "--json", "--continue", "其他几只呢").stdout)
    assert conversation["status"] == "complete"
    stored = explain(offline_env)  # the last real call of the latest conversation
    assert stored["intent"] == "portfolio_review" and stored["symbols"] == []
    assert "portfolio_profiles" in [s["key"] for s in stored["sections"]]
    assert "其他" in stored["selection"]["follow_up"]
    table = pixiu(offline_env, "context")
    assert "选择依据" in table.stdout and "追问" in table.stdout, table.stdout


@pytest.mark.slow
def test_holdings_lines_carry_profile_figures_without_portfolio_intent(offline_env):
    assert pixiu(offline_env, "import", str(CORPUS_PORTFOLIO)).returncode == 0
    done = pixiu(offline_env, "context", "--json", "今天天气怎么样")
    block = next(m["content"] for m in json.loads(done.stdout) if m["content"].startswith("[上下文信息]"))
    assert "持仓画像概览" not in block
    assert "600900 长江电力（简称：长电） · 核心仓 · 3,000 股 · 成本 22.40 · 红利持有 年化11% 回撤-16%" in block


def test_eval_reports_shipped_tune_and_held_out(offline_env, monkeypatch):
    """Both reports' shape, on three cases of each split: the whole corpus and its floors are
    CI's own `pixiu eval` step (.ci/run), which exits 1 below them (the gate's tests follow)."""
    from pixiu_cli.evals import answers as consent_runner
    from pixiu_cli.evals import contexts as context_runner
    from tests.helpers import pixiu_in_process

    shipped = context_runner.load_cases()
    one_each = list({c.category: c for c in shipped}.values())  # every category, one case
    monkeypatch.setattr(context_runner, "load_cases", lambda paths=None: one_each)
    few = {split: cases[:3] for split, cases in context_runner.selection_corpus().items()}
    monkeypatch.setattr(context_runner, "selection_corpus", lambda: few)
    sets = {split: (cases[:3], held) for split, (cases, held) in consent_runner.consent_sets().items()}
    monkeypatch.setattr(consent_runner, "consent_sets", lambda: sets)
    done = pixiu_in_process(offline_env, "eval", "--json", text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    summary = json.loads(done.stdout)
    assert summary["pass_rate"] == 1.0 and "categories" in summary and "failures" in summary  # shape kept
    assert summary["total"] == len(one_each) and len(shipped) >= 200
    assert {"notes", "portfolio", "symbols", "negatives", "budget", "injection", "layers", "performance"} <= set(
        summary["categories"]
    )
    assert set(summary["selection"]) == set(context_runner.SELECTION_SPLITS)
    assert set(summary["consent"]) == set(sets)
    text = pixiu_in_process(offline_env, "eval", text=True).stdout
    assert "留出集" in text and "调参集" in text and "冻结留出集" in text


def test_the_held_out_floors_make_eval_fail(offline_env, monkeypatch):
    from pixiu_cli.evals import answers as consent_runner
    from pixiu_cli.evals import contexts as context_runner
    from tests.helpers import pixiu_in_process

    heldout = context_runner.load_cases([REPO / "data" / "selection" / "heldout.json"])
    held = [c for c in heldout if c.category == heldout[0].category][:4]
    broken = [replace(c, sections=("no-such-section",)) for c in held[:1]] + held[1:]  # 3 of 4 pass: 75%
    monkeypatch.setattr(context_runner, "selection_corpus", lambda: {"heldout": broken})
    monkeypatch.setattr(consent_runner, "consent_sets", lambda: {})
    monkeypatch.setattr(context_runner, "load_cases", lambda paths=None: [])  # the shipped cases: CI's run
    done = pixiu_in_process(offline_env, "eval", text=True)
    assert done.returncode == 1
    assert "留出集未达标：heldout 3/4 低于 95%" in done.stderr
    assert f"heldout 的类别 {held[0].category} 3/4 低于 90%" in done.stderr
    monkeypatch.setattr(context_runner, "selection_corpus", lambda: {"heldout": held})
    assert pixiu_in_process(offline_env, "eval", text=True).returncode == 0


def test_context_on_a_three_turn_conversation_selects_both_and_names_their_turns(offline_env):
    assert pixiu(offline_env, "import", str(CORPUS_PORTFOLIO)).returncode == 0
    first = json.loads(pixiu(offline_env, "ask", "--json", "贵州茅台最近走势怎么样").stdout)
    assert pixiu(offline_env, "ask", "--continue", "宁德时代呢").returncode == 0
    info = explain(offline_env, "--conversation", str(first["conversation_id"]), "它俩哪个回撤更大")
    assert info["symbols"] == ["600519", "300750"] and info["intent"] == "single_stock"
    carried = info["selection"]["carried"]
    assert [(c["symbol"], c["turns_ago"]) for c in carried] == [("600519", 2), ("300750", 1)]
    assert carried[0]["message"] == "贵州茅台最近走势怎么样" and carried[1]["message"] == "宁德时代呢"
    assert "前 2 轮" in info["selection"]["follow_up"]
    keys = [s["key"] for s in info["sections"]]
    assert "symbol:600519" in keys and "symbol:300750" in keys


@pytest.mark.slow
def test_explain_says_why_a_window_moved_and_context_shows_it(offline_env, tmp_path):
    # the tuning account of issue 38, as an import document (its watch list is the eval's own)
    document = json.loads((CORPUS_PORTFOLIO.parent / "routine_tune.json").read_text(encoding="utf-8"))
    document.pop("watch")
    for note in document["notes"]:
        note.pop("ref", None), note.pop("replaced_by", None)
    path = tmp_path / "routine.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    env = {**offline_env, "PIXIU_NOW": "2026-11-25T20:30:00+08:00"}
    assert pixiu(env, "import", str(path)).returncode == 0
    info = explain(env, "上个月的操作帮我列一下")
    assert info["intent"] == "trade_review" and "trades" in [s["key"] for s in info["sections"]]
    windows = info["selection"]["windows"]
    assert [(w["section"], w["start"], w["end"], w["words"]) for w in windows] == [
        ("trades", "2026-10-01", "2026-10-31", "上个月"),
        ("decisions", "2026-10-01", "2026-10-31", "上个月"),
    ]
    assert (
        windows[0]["why"]
        == "时间词“上个月”（2026-10-01 至 2026-10-31）：成交记录的窗口移到 2026-10-01 至 2026-10-31（平时为近 7 天）"
    )
    table = pixiu(env, "context", "上个月的操作帮我列一下")
    assert "问到的记忆：成交与已实现盈亏" in table.stdout and "窗口：时间词“上个月”" in table.stdout, table.stdout


@pytest.mark.slow
def test_a_conversation_adds_a_stock_then_turns_to_the_others(offline_env):
    """Follow-ups through the real conversation store, as the REPL sends them: 和X比呢 adds X
    to the stock in focus, 除了这俩… turns to the rest of the portfolio, and each stored call
    names its operation and the turn it came from."""
    assert pixiu(offline_env, "import", str(CONVO_PORTFOLIO)).returncode == 0
    first = json.loads(pixiu(offline_env, "ask", "--json", "神华的分红怎么样").stdout)
    assert pixiu(offline_env, "ask", "--continue", "和汾酒比呢").returncode == 0
    added = explain(offline_env)
    assert added["symbols"] == ["601088", "600809"] and added["intent"] == "single_stock"
    assert added["selection"]["operation"] == {"name": "add", "turns_ago": 1, "message": "神华的分红怎么样"}
    assert added["selection"]["topics"]["fundamentals"] is True  # the dividend question's topic, for both
    assert pixiu(offline_env, "ask", "--continue", "除了这俩，其他的怎么样").returncode == 0
    rest = explain(offline_env)
    assert rest["intent"] == "portfolio_review" and rest["symbols"] == []
    assert "portfolio_profiles" in [s["key"] for s in rest["sections"]]
    assert rest["selection"]["operation"] == {"name": "complement", "turns_ago": 1, "message": "和汾酒比呢"}
    table = pixiu(offline_env, "context").stdout
    assert "操作：转向其余持仓（complement），作用于上一轮的问题“和汾酒比呢”" in table, table
    asked = explain(offline_env, "--conversation", str(first["conversation_id"]), "compare it with 兴业")
    assert asked["symbols"] == ["600809", "601166"] and asked["selection"]["operation"]["turns_ago"] == 2
