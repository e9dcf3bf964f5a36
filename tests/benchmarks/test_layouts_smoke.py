"""Smoke test of benchmarks/layouts.py: a short session through every layout, checking
behaviour (what the prefix cache rewards), not speed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

LAYOUTS_PY = Path(__file__).resolve().parents[2] / "benchmarks" / "layouts.py"
TURNS, COMPACT_AT = 8, 6


def load_layouts():
    spec = importlib.util.spec_from_file_location("pixiu_benchmark_layouts", LAYOUTS_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return load_layouts()


@pytest.fixture(scope="module")
def report(bench):
    return bench.run_benchmark(turns=TURNS, compact_at=COMPACT_AT)


def test_script_intents_match_the_detector(bench):
    bench.check_script()  # raises if a scripted question no longer has its intended intent
    intents = {turn.intent for turn in bench.SCRIPT[:TURNS]}
    assert len(intents) == 4  # the short session still switches between every intent


@pytest.mark.slow  # one 8-turn session through every layout (~5 s of CPU)
def test_every_call_reports_hit_plus_miss_equal_to_prompt(report):
    for result in report.results:
        assert result.calls
        for call in result.calls:
            assert call.hit + call.miss == call.prompt, (result.key, call)
            assert call.hit % 64 == 0 and call.ideal % 64 == 0


@pytest.mark.slow  # one 8-turn session through every layout (~5 s of CPU)
def test_same_script_and_exactly_one_compaction_everywhere(report):
    assert [r.key for r in report.results] == ["a", "b", "drop", "keep", "delta"]
    assert len({len(r.calls) for r in report.results}) == 1  # same calls in every layout
    for result in report.results:
        assert result.compactions == 1, result.key
        summaries = [c for c in result.calls if c.kind == "summary"]
        assert [c.turn for c in summaries] == [COMPACT_AT]
        assert result.summarised_turns >= 1
        # the summary call comes right before the turn's own call
        index = result.calls.index(summaries[0])
        assert result.calls[index + 1].kind == "answer" and result.calls[index + 1].turn == COMPACT_AT


@pytest.mark.slow  # one 8-turn session through every layout (~5 s of CPU)
def test_pixiu_keep_and_delta_reach_the_ideal(report):
    for key in ("keep", "delta"):
        result = report.by_key(key)
        assert result.hit >= 0.9 * result.ideal, (key, result.hit, result.ideal)


@pytest.mark.slow  # one 8-turn session through every layout (~5 s of CPU)
def test_dynamic_system_message_hits_far_less(report):
    a = report.by_key("a")
    for key in ("keep", "delta"):
        assert 2 * a.hit < report.by_key(key).hit, key


@pytest.mark.slow  # one 8-turn session through every layout (~5 s of CPU)
def test_scene_as_second_system_message_hits_less(report):
    b = report.by_key("b")
    for key in ("keep", "delta"):
        assert b.hit < report.by_key(key).hit, key
    assert b.hit < report.by_key("drop").hit  # same layout as drop plus the scene: only the scene differs


@pytest.mark.slow  # one 8-turn session through every layout (~5 s of CPU)
def test_output_has_a_row_per_layout(bench, report):
    table = bench.markdown_table(report)
    assert table.count("\n") == 1 + len(report.results)
    assert "← default" in table and report.default_layout in ("keep", "drop", "delta")
    assert report.to_dict()["layouts"][0]["times_a"] == 1.0
