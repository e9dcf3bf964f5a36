"""The performance benchmarks run (each in its tiny --quick mode) and print their figure
lines. Behaviour only: no figure is compared with a goal here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import line, run_quick

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
MS = r"median +\d+\.\d+ ms"
GOAL = r"goal <= [\d.]+ ms.*(OK|MISSED)"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_startup_prints_baseline_help_and_repl_ratios():
    lines = run_quick("startup.py")
    assert re.search(MS, line(lines, "baseline"))
    for name in ("help ", "repl "):
        figure = line(lines, name)
        assert re.search(MS + r".*ratio \d+\.\d\d +goal <= 0\.\d\d +(OK|MISSED)$", figure), figure


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_context_assembly_prints_both_questions_a_breakdown_and_the_plans():
    lines = run_quick("context_assembly.py")
    assert re.search(r"1,000 events \+ 500 holdings generated", line(lines, "data"))
    for question in ("symbols ", "portfolio "):
        figure = line(lines, question)
        assert re.search(r"1,000 events +" + MS + r" +ratio to 1,000: 1\.00", figure), figure
        assert "goal <= 5 ms" in figure
        assert "breakdown " + question.strip() in "\n".join(lines)
    symbols, portfolio = line(lines, "symbols "), line(lines, "portfolio ")
    assert "intent single_stock, 2 symbols" in symbols and "intent portfolio_review" in portfolio
    # the conversation: the next turn reads the history and takes the delta path
    for question in ("symbols ", "portfolio "):
        figure = line(lines, "conversation " + question)
        found = re.search(
            r"1,000 events +" + MS + r" +\(turn 7: (\d+) history messages, block \d+ tokens, "
            r"(\d+) sections unchanged\)",
            figure,
        )
        assert found and int(found.group(1)) >= 12 and int(found.group(2)) >= 1, figure
    # every query the builder issues is served by an index (a property of the plans, not a speed)
    assert re.search(r"^plans +\d+ distinct queries at 1,000 events, 0 with a full-table scan$", line(lines, "plans"))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_turn_overhead_prints_pixiu_raw_and_overhead():
    lines = run_quick("turn_overhead.py")
    assert re.search(MS + r" +\(n=5\)", line(lines, "pixiu "))
    assert re.search(MS + r" +\(n=5\)", line(lines, "raw "))
    # a difference of two medians on a noisy machine may come out below zero
    assert re.search(r"median +-?\d+\.\d+ ms.*" + GOAL, line(lines, "overhead "))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_selection_benchmark_prints_each_question_against_its_baseline():
    lines = run_quick("selection.py")
    assert re.search(r"1,000 events \+ 500 holdings generated", line(lines, "data"))
    for question in ("symbols ", "portfolio ", "mixed "):
        figure = line(lines, question)
        assert re.search(MS + r" with 5,000 names +baseline +\d+\.\d+ ms \(holdings only\) +ratio \d+\.\d\d", figure)
        assert re.search(r"select\(\) +\d+ us", figure) and re.search(GOAL, figure), figure
    assert "intent single_stock" in line(lines, "symbols ") and "intent portfolio_review" in line(lines, "mixed ")
    assert re.search(r"select\(\) \d+ us", line(lines, "known "))
    assert line(lines, "name table rebuilt") and line(lines, "traditional text")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_store_growth_prints_bytes_cache_history_and_statements():
    """A realistic 14-turn demo session (every third turn uses a tool): the request is
    stored once and packed, so growth per turn stays well below the plain layout's."""
    lines = run_quick("store_growth.py")
    growth = re.search(r"today +([\d.]+) KB +baseline +([\d.]+) KB", line(lines, "db bytes/turn"))
    assert growth and float(growth[1]) < 16 and float(growth[1]) < float(growth[2]) / 3, lines
    for prefix in ("/cache 12", "/cache 14"):
        assert re.search(r"today +[\d.]+ s +baseline +[\d.]+ s", line(lines, prefix))
    assert re.search(r"today +[\d.]+ ms +baseline", line(lines, "history"))
    assert re.search(r"tool turn \d+ SQL statements", "\n".join(lines))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_ask_process_prints_pixiu_against_llm_and_the_raw_sdk():
    lines = run_quick("ask_process.py")
    figures = r"median +\d+\.\d+ ms +cpu +\d+\.\d+ ms +peak +\d+\.\d+ MiB"
    assert re.search(figures, line(lines, "raw "))
    llm_installed = not any(candidate.startswith("llm       not given") for candidate in lines)
    if llm_installed:
        assert re.search(figures, line(lines, "llm "))
    for name in ("ask ", "json "):
        figure = line(lines, name)
        assert re.search(figures + r".*raw: \d+\.\d\dx time", figure), figure
        assert re.search(r"goal <= 1\.00x (llm|raw) +(OK|MISSED)$", figure), figure
        assert ("llm: " in figure) == llm_installed


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_market_names_prints_both_trees_and_their_ratios():
    # compared with itself (--before the checkout): a shallow clone may lack the old commit
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "market_names.py"), "--quick", "--before", str(BENCHMARKS.parent)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for figure in ("table ", "first "):
        assert re.search(r"ms CPU +before +\d+\.\d+ ms +ratio +\d+\.\d\d$", line(lines, figure))
    named = line(lines, "warm      宁德时代能买吗")
    assert "symbols ['300750'] (before ['300750'])" in named, named
    for kind in ("context", "ask"):
        assert re.search(r"ratio +\d+\.\d\d +\(median of 1\)$", line(lines, f"process   pixiu {kind}"))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_user_paths_prints_every_figure_against_its_baseline():
    lines = run_quick("user_paths.py")
    verdict = r"ratio +\d+\.\d\d +goal <= \d\.\d\d +(OK|MISSED)"
    context = "context  pixiu context --demo TEXT, "
    for prefix in ("cache    3 turns", context + "repeated", context + "new", "import ", "stream "):
        assert re.search(verdict, line(lines, prefix)), lines
    assert "3/3 calls explained when they finished" in line(lines, "cache    3 turns")
    profile = [candidate for candidate in lines if candidate.startswith("profile ")]
    assert len(profile) == 2 and all(re.search(verdict, p) for p in profile), profile
    assert re.search(verdict, line(lines, "tokenizer pixiu against Rust"))
    assert re.search(r"ms CPU, \+ *\d+\.\d MiB peak$", line(lines, "tokenizer pixiu, no cache yet"))
    assert re.search(verdict, line(lines, "rss      10 turns, request log bounded"))
    assert re.search(r"ratio +\d+\.\d\d$", line(lines, "rss      10 turns, request log unbounded"))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_huge_reply_turn_prints_the_next_turn_and_cache_against_the_baseline():
    lines = run_quick("huge_reply_turn.py")
    figures = r"wall +\d+\.\d\d s +cpu +\d+\.\d\d s +peak +\d+\.\d MiB"
    for step in ("next", "cache"):
        assert re.search(figures, line(lines, f"now    baseline {step}"))
        figure = line(lines, f"now    huge     {step}")
        assert re.search(figures + r".*vs baseline [\d.]+x time, [\d.]+x cpu, [\d.]+x memory", figure), figure
        assert re.search(r"goal <= 1\.2x cpu and memory +(OK|MISSED)$", figure), figure


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_unchanged_work_prints_sync_refresh_and_import_against_their_baselines():
    lines = run_quick("unchanged_work.py")
    verdict = r"ratio +\d+\.\d\d +goal <= \d\.\d\d +(OK|MISSED)"
    sync = line(lines, "sync     data sync")
    assert re.search(r"wall " + verdict + r" +cpu " + verdict + "$", sync), sync
    assert "都未重新计算" in line(lines, "sync     3 holdings")  # the failed sync said it recomputed nothing
    assert re.search(verdict + "$", line(lines, "refresh  profile --refresh of 3 symbols"))
    assert re.search(r"ratio +\d+\.\d\d$", line(lines, "refresh  the same, first after a write"))
    assert re.search(r"pandas\.read_csv +\d+\.\d\d s cpu +" + verdict + "$", line(lines, "import   data import DIR"))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_statement_floor_prints_each_part_and_the_floor_against_both_baselines():
    lines = run_quick("statement_floor.py")
    assert re.search(r"pandas +process +\d+\.\d\d s CPU .* read alone +\d+\.\d\d s CPU$", line(lines, "pandas "))
    for part in ("read ", "store ", "derive "):
        assert re.search(r"\d+\.\d\d s CPU", line(lines, part))
    floors = [x for x in lines if x.startswith("floor ")]
    assert len(floors) == 2 and all(re.search(r"= +\d+\.\d\d× pandas .*\(goal ≤ 3\.0×\)$", x) for x in floors), floors


def test_run_all_names_only_scripts_that_exist():
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS / "run_all.py")
    run_all = importlib.util.module_from_spec(spec)
    sys.modules["run_all"] = run_all  # its data classes look their module up while being built
    spec.loader.exec_module(run_all)
    missing = sorted({row.script for row in run_all.ROWS if not (BENCHMARKS / row.script).exists()})
    assert missing == []


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_run_all_runs_the_chosen_scripts_and_sums_them_up():
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run_all.py"), "--quick", "--only", "stream_render"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = done.stdout.split("## summary", 1)[1].strip().splitlines()
    assert len(summary) == 1 and re.match(r"stream_render\.py +\d+\.\d s  ok$", summary[0]), summary
