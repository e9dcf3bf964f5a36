"""A comma-separated statement line is cut without the csv module when no field opens with a
quote: the cells must be the ones csv reads, whatever quotes, spaces and 全角 text they hold."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from pixiu_cli.account.statements.rows import kind_of
from pixiu_cli.account.statements.table import clean, line_rows

_CELL = st.text(alphabet=st.sampled_from(list("0123456789.-= \"'ab买入卖出　６\t")), max_size=8)


def _csv(line: str) -> tuple[str, ...]:
    return tuple(map(clean, next(csv.reader(io.StringIO(line)), [])))


def _split(line: str, sep: str) -> tuple[str, ...]:
    return next(row.cells for row in line_rows([line], sep, lambda cells: False))


@given(st.lists(_CELL, min_size=1, max_size=8))
def test_a_line_is_cut_into_the_cells_csv_reads(cells):
    line = "x," + ",".join(cells)  # a blank line is no row at all
    assert _split(line, ",") == _csv(line)


def test_quoted_fields_still_go_through_csv():
    line = '20250102,"贵州茅台,A",="600519","1,000"'
    assert _split(line, ",") == ("20250102", "贵州茅台,A", "600519", "1,000")
    assert _split(line, ",") == _csv(line)


def test_a_business_name_is_known_the_same_each_time():
    assert kind_of("证券买入") == kind_of("证券买入") == kind_of("证券 买入")
    assert kind_of("没有这种业务") == (None, None)
