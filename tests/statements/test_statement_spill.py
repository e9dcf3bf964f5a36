"""A statement sorted through the spill (runs written to a temporary file and merged) reads
as the one sorted in memory: every fixture, and a 同花顺 交割单 of 400 rows listed newest
first with equal fills, rows without numbers and rows of one second."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

import pytest

from pixiu_cli.account.statements import reader as spill
from pixiu_cli.account.statements.reader import SortedSpill, read_statement

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
TODAY = date(2025, 8, 20)
HEADER = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,发生金额,资金余额,合同编号"


def _big(path: Path) -> Path:
    rng = random.Random(5)
    lines = []
    for i in range(400):
        day = f"202503{3 + i // 40:02d}"
        qty, price = rng.choice([100, 200]), rng.choice([10.0, 10.5])
        number = "" if i % 7 == 0 else str(5000 + i // 2)  # two rows under one order number
        lines.append(
            f"{day},10:0{i % 3}:00,600036,招商银行,买入,{qty},{price},{qty * price:.2f},5.00,{-(qty * price + 5):.2f},,{number}"
        )
    path.write_text("\n".join([HEADER, *reversed(lines)]) + "\n", encoding="gbk")
    return path


@pytest.mark.parametrize("run", [1, 3, 50])
def test_a_spilled_statement_reads_as_one_sorted_in_memory(tmp_path, monkeypatch, run):
    files = [*sorted(p for p in FIXTURES.iterdir() if p.suffix in (".csv", ".txt")), _big(tmp_path / "big.csv")]
    whole = [read_statement(p, skip_bad=True, today=TODAY) for p in files]
    monkeypatch.setattr(spill, "RUN", run)
    assert [read_statement(p, skip_bad=True, today=TODAY) for p in files] == whole
    assert len(whole[-1].fills) == 400 and whole[-1].fills[0].day == "2025-03-03"


def test_the_spill_merges_runs_from_its_file():
    rows = [(random.Random(i).random(), i) for i in range(2_500)]
    sorted_ = SortedSpill(lambda r: r, run=300)
    for row in rows:
        sorted_.add(row)
    assert list(sorted_) == sorted(rows) and sorted_._runs  # eight runs spilled and merged
    sorted_.close()
