"""A ledger row's fields are declared once, on the domain type (account/model.py Fill and
CashBalance): the store reads each by its declared type, the export writes the table's own
columns, a statement row before its id is a Fill with its line, and a listed trade holds its
Fill. Adding a field is one line."""

from __future__ import annotations

import ast
import inspect
from dataclasses import asdict, fields, replace

from pixiu_cli.account import store as account
from pixiu_cli.account.model import CashBalance, Fill
from pixiu_cli.account.store import AccountStore
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import package_syntax_trees, walked

_LENIENT = {"quantity", "price", "amount", "fees"}  # NULL reads as 0: named once, with the reason


def test_the_store_reads_no_field_by_name_but_the_lenient_ones():
    for reader, cls in ((account._fill, Fill), (AccountStore.cash, CashBalance)):
        source = inspect.getsource(reader)
        named = {f.name for f in fields(cls) if f'"{f.name}"' in source or f"{f.name}=" in source}
        assert named <= _LENIENT | {"seq", "origin", "amount"}, (reader.__name__, named)


def test_every_field_of_a_fill_comes_back_as_it_was_written(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    try:
        given = Fill(
            "T1", "2025-03-03", "10:05:12", "buy", "600519", "贵州茅台", 100.0, 1500.0, 150000.0, 5.5,
            -150005.5, 49994.5, account="A123", contract="9001", origin="statement", decision_id=None,
            contract_kind="trade", broker_account="默认账户",
        )  # fmt: skip
        store = AccountStore(db)
        store.add_fill(given, source_file="x.csv", at="2025-03-03T16:00:00+08:00")
        (back,) = store.fills()
        assert replace(back, seq=None, recorded_at=None) == given
        assert set(asdict(back)) == {f.name for f in fields(Fill)}
    finally:
        db.close()


def _declared_fields(node: ast.ClassDef) -> set[str]:
    return {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}


def test_no_other_record_declares_the_fills_fields_again():
    """A record that names six of a fill's fields again is a second fill record: it drifts
    (account/statements/rows.py once had its own copy of the fields; account/overview.py another)."""
    fill = {f.name for f in fields(Fill)}
    again = {
        f"{path}:{node.name}": sorted(shared)
        for path, tree in package_syntax_trees()
        for node in walked(tree)
        if isinstance(node, ast.ClassDef) and node.name != "Fill"
        if len(shared := _declared_fields(node) & fill) >= 6
    }
    assert again == {}
