"""benchmarks/market_data.py runs in its --quick mode and prints its figure lines, each
with the baseline measured in the same run. Behaviour only: no figure is compared here."""

from __future__ import annotations

import re

import pytest

from tests.helpers import line, run_quick


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_market_benchmark_prints_ratios_against_baselines():
    lines = run_quick("market_data.py")
    assert re.search(r"20 symbols × 4 years = [\d,]+ bars", line(lines, "data "))
    assert re.search(r"pixiu [\d.]+ ms .* csv-module [\d.]+ ms .* ratio \d+\.\d\d", line(lines, "import "))
    assert re.search(r"ratio \d+\.\d\d +goal <= 3\.00 +(OK|MISSED)$", line(lines, "read "))
    assert re.search(
        r"valued [\d.]+ ms +unvalued [\d.]+ ms +ratio \d+\.\d\d +goal <= 1\.50 +(OK|MISSED)", line(lines, "context ")
    )
