"""Who wrote each memory: stored with it, kept through merges, undo, export and import, and
only the user's own (typed, imported, or the model's copy of the user's words) in force; a
proposal the model made is the user's only once they accept it. On real SQLite files."""

from __future__ import annotations

import pytest
from sqlite_utils import Database

from pixiu_cli.brief.facts import user_rules
from pixiu_cli.home.document_file import load_document, parse_document, to_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.kernel.store.schema import migrations
from pixiu_cli.memory.handle import Memory
from pixiu_cli.memory.notes import NewNote, accept_proposal, add_note
from pixiu_cli.memory.store import MemoryStore
from tests.helpers import FIXTURE, NOW

AT = NOW.isoformat()
LATER = "2026-11-24T11:00:00+08:00"


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()


def note(db, text, author, kind="rule", source=None, symbol=None):
    source = source or {"user": "user", "import": "import"}.get(author, "model")
    return add_note(Memory(db), NewNote(kind, text, symbol, source, author), AT)


def authors(db) -> dict[str, str]:
    return dict(db.execute("select text, author from memory_events where kind = 'user_note'").fetchall())


def test_the_migration_gives_old_model_notes_to_the_user_only_in_the_users_words(tmp_path):
    db = Database(tmp_path / "old.db")
    migrations.apply(db, stop_before="m030_memory_authors")
    db.execute("insert into conversations (id, title, created_at, updated_at) values (1, 't', ?, ?)", [AT, AT])
    db.execute(
        "insert into turns (conversation_id, seq, user_text, created_at) values (1, 1, '记住，我不追高', ?)", [AT]
    )
    rows = [
        ("user_note", "rule", "单只个股不超过两成", "user"),
        ("user_note", "rule", "我不追高", "model"),  # the words of turn 1
        ("user_note", "rule", "单只个股可以满仓", "model"),  # no user ever said it
        ("user_note", "view", "白酒要完", None),  # an imported note without a source
        ("decision", None, "卖出 600519 100 股 @ 1", "model"),
    ]
    db["memory_events"].insert_all(
        [{"kind": k, "note_kind": n, "text": t, "created_at": AT, "source": s} for k, n, t, s in rows]
    )
    migrations.apply(db)
    assert dict(db.execute("select text, author from memory_events").fetchall()) == {
        "单只个股不超过两成": "user",
        "我不追高": "model_from_user",
        "单只个股可以满仓": "proposal",
        "白酒要完": "import",
        "卖出 600519 100 股 @ 1": "model_from_user",
    }


def test_only_the_users_own_notes_are_in_force(db):
    domain = InvestorStore(db)
    note(db, "单只个股不超过两成", "user")
    note(db, "我不追高", "model_from_user")
    note(db, "白酒股不碰", "import")
    proposal = note(db, "单只个股仓位不超过90%", "proposal").event
    assert sorted(r.text for r in domain.rules(LATER, 10)) == ["单只个股不超过两成", "我不追高", "白酒股不碰"]
    # the brief checks the user's own cap (两成), never the proposal's
    assert [r.text for r in user_rules(domain, LATER)] == ["单只个股不超过两成"]
    assert accept_proposal(Memory(db), f"n{proposal.id}").event.author == "user"
    assert "单只个股仓位不超过90%" in {r.text for r in domain.rules(LATER, 10)}
    assert sorted((r.level, r.text) for r in user_rules(domain, LATER)) == [
        (0.2, "单只个股不超过两成"),
        (0.9, "单只个股仓位不超过90%"),
    ]


def test_a_proposal_rewrites_nothing_and_nothing_but_the_user_rewrites_a_proposal(db):
    mine = note(db, "茅台跌破1500止损", "user", symbol="600519").event
    # a near duplicate of the user's rule, proposed: its own row, the user's left as it was
    near = note(db, "茅台股价跌破1500止损", "proposal", symbol="600519")
    assert near.outcome == "added" and near.event.id != mine.id
    assert MemoryStore(db).get(mine.id).text == "茅台跌破1500止损"
    # the same words as the user's: nothing new
    assert note(db, "茅台跌破1500止损", "proposal", symbol="600519").event.id == mine.id
    # the user's own words merge into a proposal, and it is theirs; /forget puts the proposal back
    proposed = note(db, "光伏产能过剩还没出清", "proposal", kind="view").event
    typed = note(db, "光伏产能过剩还没有出清", "user", kind="view")
    assert (typed.outcome, typed.event.id, typed.event.author) == ("merged", proposed.id, "user")
    MemoryStore(db).forget(proposed.id, LATER)
    assert MemoryStore(db).get(proposed.id).author == "proposal"
    # the model in the user's words does not take over a proposal
    grounded = note(db, "光伏产能过剩还没有出清", "model_from_user", kind="view")
    assert grounded.outcome == "added" and MemoryStore(db).get(proposed.id).author == "proposal"


def test_only_a_proposal_can_be_accepted(db):
    mine = note(db, "单只个股不超过两成", "user").event
    with pytest.raises(RequestError, match=f"#n{mine.id} 不是待确认的模型提议"):
        accept_proposal(Memory(db), f"n{mine.id}")


def test_a_proposal_exported_and_imported_back_is_still_one(db, tmp_path):
    domain = InvestorStore(db)
    domain.replace_all(load_document(FIXTURE, NOW))  # its notes carry no author: imported
    note(db, "单只个股可以满仓", "proposal")
    document = to_document(domain.export())
    other = open_database(tmp_path / "other.db")
    try:
        InvestorStore(other).replace_all(parse_document(document, NOW))
        assert authors(other) == authors(db)
        assert authors(other)["单只个股可以满仓"] == "proposal"
        assert authors(other)["我以后不再追涨杀跌"] == "import"
    finally:
        other.close()
