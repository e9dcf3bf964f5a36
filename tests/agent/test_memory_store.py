from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.store import PortfolioStore
from pixiu_cli.home.document_file import SHANGHAI
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.memory.store import MemoryRefError, MemoryStore

NOW = datetime(2026, 11, 24, 10, 0, tzinfo=SHANGHAI)


def at(days: float = 0) -> str:
    return (NOW + timedelta(days=days)).isoformat()


@pytest.fixture
def memory(tmp_path):
    return MemoryStore(open_database(tmp_path / "m.db"))


def test_near_duplicates_merge_and_forget_undoes_the_merge(memory):
    first = memory.add_note(
        note_kind="plan",
        text="海康估值偏高，回踩 30 元再加仓",
        symbol="002415",
        source="model",
        author="model_from_user",
        at=at(),
    )
    assert first.outcome == "added"
    again = memory.add_note(
        note_kind="plan", text="海康估值偏高, 回踩30元再加仓!", symbol="002415", source="user", author="user", at=at(1)
    )
    assert again.outcome == "merged" and again.event.id == first.event.id
    assert again.event.created_at.startswith("2026-11-25") and again.event.source == "user"
    other = memory.add_note(
        note_kind="plan", text="宁德跌到 150 再买", symbol="300750", source="user", author="user", at=at()
    )
    assert other.outcome == "added" and other.event.id != first.event.id
    # /forget undoes what the confirmation said: the merge, restoring the earlier text
    undone = memory.forget(first.event.id, at(2))
    assert undone.action == "unmerged" and undone.restored_text == "海康估值偏高，回踩 30 元再加仓"
    restored = memory.get(first.event.id)
    assert restored.text == "海康估值偏高，回踩 30 元再加仓" and restored.source == "model"
    assert restored.created_at == at()
    # forgetting again deletes it
    assert memory.forget(first.event.id, at(2)).action == "deleted"
    assert memory.get(first.event.id) is None and memory.forget(first.event.id, at(2)) is None
    assert [e.id for e in memory.search()] == [other.event.id]


@pytest.mark.parametrize(
    "a,b",
    [
        ("茅台跌破1500元加仓", "茅台跌破1500元减仓"),
        ("茅台跌破1500元买入", "茅台跌破1500元卖出"),
        ("我看多茅台，长期持有", "我看空茅台，长期持有"),
        ("茅台跌破1500元加仓", "茅台突破1500元加仓"),
        ("茅台跌破1500元加仓", "茅台跌破1400元加仓"),
        ("茅台回撤 10% 就加仓一成", "茅台回撤 15% 就加仓一成"),
        ("茅台到1800就止盈一半仓位", "茅台到1800就止损一半仓位"),
        ("茅台跌破1500元要加仓", "茅台跌破1500元不要加仓"),
    ],
)
def test_opposite_plans_never_merge(memory, a, b):
    first = memory.add_note(note_kind="plan", text=a, symbol="600519", source="user", author="user", at=at())
    second = memory.add_note(note_kind="plan", text=b, symbol="600519", source="user", author="user", at=at(1))
    assert second.outcome == "added" and second.event.id != first.event.id
    assert sorted(e.text for e in memory.search()) == sorted([a, b])
    # and forgetting one leaves the other
    memory.forget(second.event.id, at(2))
    assert [e.text for e in memory.search()] == [a]


def test_same_text_under_another_kind_is_one_memory(memory):
    first = memory.add_note(note_kind="view", text="白酒估值太高", symbol=None, source="user", author="user", at=at())
    second = memory.add_note(
        note_kind="plan", text="白酒估值太高。", symbol=None, source="user", author="user", at=at(1)
    )
    assert second.event.id == first.event.id and second.event.note_kind == "plan"
    assert len(memory.search()) == 1
    assert memory.forget(first.event.id, at(2)).action == "unmerged"
    assert memory.get(first.event.id).note_kind == "view"


def test_model_never_rewrites_a_hand_written_note(memory):
    mine = memory.add_note(
        note_kind="rule", text="茅台跌破1500止损", symbol="600519", source="user", author="user", at=at()
    )
    near = memory.add_note(
        note_kind="rule", text="茅台跌破1300止损", symbol="600519", source="model", author="model_from_user", at=at(1)
    )
    assert near.outcome == "added" and near.event.id != mine.event.id
    # even a near-duplicate with the same numbers becomes the model's own memory
    close = memory.add_note(
        note_kind="rule",
        text="茅台跌破1500止损！！",
        symbol="600519",
        source="model",
        author="model_from_user",
        at=at(1),
    )
    assert close.event.id == mine.event.id and close.outcome == "unchanged"
    fuzzy = memory.add_note(
        note_kind="rule",
        text="茅台股价跌破1500止损",
        symbol="600519",
        source="model",
        author="model_from_user",
        at=at(1),
    )
    assert fuzzy.outcome == "added"
    kept = memory.get(mine.event.id)
    assert (kept.text, kept.source, kept.created_at) == ("茅台跌破1500止损", "user", at())
    # nor an imported one; the model's own notes it may refresh
    imported = memory.add_note(
        note_kind="plan", text="宁德回踩200元加仓", symbol="300750", source="import", author="import", at=at()
    )
    assert (
        memory.add_note(
            note_kind="plan",
            text="宁德回踩200元再加仓",
            symbol="300750",
            source="model",
            author="model_from_user",
            at=at(1),
        ).outcome
        == "added"
    )
    assert memory.get(imported.event.id).text == "宁德回踩200元加仓"
    own = memory.add_note(
        note_kind="view", text="光伏产能过剩还没出清", symbol=None, source="model", author="model_from_user", at=at()
    )
    assert (
        memory.add_note(
            note_kind="view",
            text="光伏产能过剩还没有出清",
            symbol=None,
            source="model",
            author="model_from_user",
            at=at(1),
        ).event.id
        == own.event.id
    )


def test_emoji_or_punctuation_notes_never_merge(memory):
    texts = ["👍👍👍", "🚀🚀🚀", "！！！", "？？？", "👍👍👍"]
    ids = [
        memory.add_note(note_kind="view", text=t, symbol=None, source="user", author="user", at=at()).event.id
        for t in texts
    ]
    assert len(set(ids)) == len(texts)
    assert sorted(e.text for e in memory.search(limit=50)) == sorted(texts)


def test_near_duplicate_check_is_fast_with_long_notes(memory):
    # the attack run's reproduction: 200 notes of 10,000 characters, then one more
    import random

    rng = random.Random(3)
    alphabet = "茅台海康宁德估值仓位回撤加减买卖计划观点纪律长期短期"
    base = "".join(rng.choice(alphabet) for _ in range(10_000))
    for i in range(200):
        text = base[:9_990] + f"{i:010d}"
        memory.db.conn.execute(
            "insert into memory_events (kind, note_kind, text, created_at, source, author) "
            "values ('user_note', 'view', ?, ?, 'user', 'user')",
            [text, at()],
        )
    started = time.perf_counter()
    write = memory.add_note(
        note_kind="view", text=base[:9_990] + "x" * 10, symbol=None, source="model", author="model_from_user", at=at(1)
    )
    elapsed = time.perf_counter() - started
    assert write.outcome == "added"
    assert elapsed < 1.0, elapsed
    short = memory.add_note(
        note_kind="view", text="短笔记" * 50, symbol=None, source="model", author="model_from_user", at=at(1)
    )
    started = time.perf_counter()
    assert (
        memory.add_note(
            note_kind="view", text="短笔记" * 50 + "。", symbol=None, source="model", author="model_from_user", at=at(2)
        ).event.id
        == short.event.id
    )
    assert time.perf_counter() - started < 1.0


def test_old_notes_stay_searchable(memory):
    memory.add_note(note_kind="view", text="白酒要完", symbol=None, source="user", author="user", at=at(-400))
    assert memory.search(text="白酒")[0].text == "白酒要完"
    assert memory.search(text="白酒", since=at(-30)) == []
    assert memory.search(text="100%_") == []  # LIKE wildcards are literal


def _holding(db, symbol):
    """Shares and cost as the account derives them (the one valuation)."""
    from pixiu_cli.account.overview import account_record, read_account

    record = account_record(read_account(Account(db), datetime.fromisoformat(at(9))))
    h = next((h for h in record["holdings"] if h["symbol"] == symbol), None)
    return None if h is None else (h["shares"], h["cost"])


def _trade(db, *, symbol, side, price, quantity, when, name=None):
    from pixiu_cli.account.trades import NewTrade, record_trade

    return record_trade(
        Account(db), NewTrade(symbol, side, price, quantity, None, name, "model", fee=0.0), when
    ).decision


def test_typed_ids_resolve_and_plain_numbers_ask_when_ambiguous(tmp_path):
    db = open_database(tmp_path / "m.db")
    memory = MemoryStore(db)
    note = memory.add_note(
        note_kind="plan", text="海康回踩30元加仓", symbol="002415", source="user", author="user", at=at()
    )
    decision = _trade(db, symbol="002415", side="buy", price=30, quantity=200, name="海康威视", when=at())
    assert note.event.id == 1 and decision.id == 1
    assert str(memory.resolve("n1")) == "n1" and str(memory.resolve("#d1")) == "d1"
    assert str(memory.resolve("Ｎ１")) == "n1"
    with pytest.raises(MemoryRefError, match="n1 或 d1"):
        memory.resolve("1")
    # the trade's own event (note id 2) stands for the trade
    assert str(memory.resolve("n2")) == "d1"
    with pytest.raises(MemoryRefError, match="没有 ID"):
        memory.resolve("d9")
    with pytest.raises(MemoryRefError, match="格式不对"):
        memory.resolve("x1")
    memory.forget(1, at(1))
    assert str(memory.resolve("1")) == "d1"  # unambiguous now
    listing = memory.listing()
    assert [e.ref for e in listing] == ["d1"] and listing[0].kind == "decision"


@pytest.mark.parametrize(
    "trades,undo,expected",
    [
        # a buy that opened the position: undoing it removes the holding
        ([("buy", 30, 200)], 0, None),
        # a buy added to an existing holding: shares and cost exactly as before
        ([("buy", 1500, 100)], 0, (200, 1600.0)),
        # a sale that cleared the position: the holding comes back whole
        ([("sell", 1700, 200)], 0, (200, 1600.0)),
        # a partial sale
        ([("sell", 1700, 100)], 0, (200, 1600.0)),
        # undo the first of two buys: arithmetic reversal keeps the second
        ([("buy", 1500, 100), ("buy", 1800, 100)], 0, (300, pytest.approx((200 * 1600 + 100 * 1800) / 300, abs=1e-3))),
    ],
)
def test_forgetting_a_trade_reverses_it(tmp_path, trades, undo, expected):
    db = open_database(tmp_path / "m.db")
    from pixiu_cli.account.trades import undo_trade

    domain = InvestorStore(db)
    symbol = "002415" if trades[0][1] == 30 else "600519"
    db["holdings"].insert(
        {
            "symbol": "600519",
            "name": "贵州茅台",
            "short_names": '["茅台"]',
            "shares": 200,
            "cost": 1600.0,
            "role": "core",
            "updated_at": at(-10),
        }
    )
    ids = [
        _trade(db, symbol=symbol, side=s, price=p, quantity=q, name="海康威视", when=at(i)).id
        for i, (s, p, q) in enumerate(trades)
    ]
    undone = undo_trade(Account(db), ids[undo], at(5))
    assert undone.holding_changed
    assert _holding(db, symbol) == expected
    assert all(d.id != ids[undo] for d in domain.recent_decisions(at(-1), at(9), 10))
    assert MemoryStore(db).search(kind="decision", symbol=symbol, limit=10).__len__() == len(trades) - 1
    assert undo_trade(Account(db), ids[undo], at(5)) is None


def test_undoing_a_buy_sold_since_is_refused_with_one_line(tmp_path):
    db = open_database(tmp_path / "m.db")
    from pixiu_cli.account.trades import undo_trade
    from pixiu_cli.kernel.errors import RequestError

    buy = _trade(db, symbol="002415", side="buy", price=30, quantity=200, name="海康威视", when=at())
    _trade(db, symbol="002415", side="sell", price=31, quantity=100, when=at(1))
    with pytest.raises(RequestError, match="先撤销那笔卖出"):
        undo_trade(Account(db), buy.id, at(2))
    assert _holding(db, "002415") == (100, 30.0 - 100 * (31 - 30) / 100)


@pytest.mark.parametrize("price,quantity", [(float("nan"), 100), (1500, float("inf")), (-1, 100), (1e308, 1e308)])
def test_a_trade_never_stores_a_non_finite_holding(tmp_path, price, quantity):
    db = open_database(tmp_path / "m.db")
    db["holdings"].insert(
        {
            "symbol": "600519",
            "name": "贵州茅台",
            "short_names": "[]",
            "shares": 1e308,
            "cost": 1e308,
            "role": "core",
            "updated_at": at(),
        }
    )
    with pytest.raises(ValueError):
        PortfolioStore(db).record_trade(
            symbol="600519", side="buy", price=price, quantity=quantity, reason=None, name=None, at=at(), source="model"
        )
    assert InvestorStore(db).holding("600519").cost == 1e308
    assert db.execute("select count(*) from decisions").fetchone()[0] == 0


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pixiu_cli.memory.dedup import note_key, same_memory  # noqa: E402

_PAIRS = [
    ("加仓", "减仓"),
    ("买入", "卖出"),
    ("看多", "看空"),
    ("跌破", "突破"),
    ("止盈", "止损"),
    ("上涨", "下跌"),
    ("高估", "低估"),
    ("要", "不要"),
]
_FILLER = st.text(alphabet="茅台海康宁德估值仓位回撤计划观点纪律长期短期分批慢慢等", min_size=0, max_size=30)


@settings(max_examples=300, deadline=None)
@given(head=_FILLER, tail=_FILLER, pair=st.sampled_from(_PAIRS), flip=st.booleans())
def test_property_opposite_words_never_merge(head, tail, pair, flip):
    a, b = pair if not flip else pair[::-1]
    assert not same_memory(note_key(head + a + tail), note_key(head + b + tail))


@settings(max_examples=300, deadline=None)
@given(
    head=_FILLER,
    tail=_FILLER,
    x=st.integers(0, 100_000),
    y=st.integers(0, 100_000),
    unit=st.sampled_from(["元", "%", "股", ""]),
)
def test_property_different_numbers_never_merge(head, tail, x, y, unit):
    if x == y:
        return
    assert not same_memory(note_key(f"{head}{x}{unit}{tail}"), note_key(f"{head}{y}{unit}{tail}"))


@settings(max_examples=200, deadline=None)
@given(
    a=st.text(alphabet="👍🚀🎉！？…。，、~-—()（）", min_size=1, max_size=20),
    b=st.text(alphabet="👍🚀🎉！？…。，、~-—()（）", min_size=1, max_size=20),
)
def test_property_symbol_only_notes_never_merge(a, b):
    assert not same_memory(note_key(a), note_key(b))
