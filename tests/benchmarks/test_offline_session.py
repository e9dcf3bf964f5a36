"""benchmarks/offline_session.py on a shorter session: one `pixiu ask --continue` process per
turn in offline mode (no key) must get at least 0.95 of the ideal prompt-cache hit, with no
turn failing and no call flagged by /cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "offline_session.py"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_twelve_offline_turns_one_process_each_reach_the_ideal_cache_hit():
    # The default block budget: sections it drops must never fail a turn (the delta path).
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--turns", "12", "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=880,
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["failed"] == [], report["failed"]
    assert report["calls"] >= 12 and report["ideal"] > 0
    assert report["hit_of_ideal"] >= 0.95, report
    assert report["flagged"] == 0 and report["cost_ratio"] <= 1.05, report
