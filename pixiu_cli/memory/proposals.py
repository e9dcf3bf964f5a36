"""Changes to the account the model asks for and the user's words of the turn do not state
(services/grounding.py): kept as proposals beside the notes' (a memory event whose author is
`proposal`, its arguments as JSON), shown to the user, and made only when the user accepts
one (`/memory accept`, `pixiu memory accept`, the REPL's y/N after the turn): a trade through
the one record path, an alert through the one add path, each exactly once.

Proposals are bounded — so many a turn, so many pending a day, so long each — so a model
answering with hundreds of calls or megabytes of arguments stores nothing past the bound
and is told why."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, time
from typing import TYPE_CHECKING

from pixiu_cli.account.overview import trade_day
from pixiu_cli.account.trades import NewTrade, RecordedTrade, record_trade
from pixiu_cli.home.model import MemoryEvent
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import write_transaction
from pixiu_cli.kernel.vocabulary import AUTHOR_PROPOSAL, PROPOSAL_NAME, side_name
from pixiu_cli.market.analytics.rules import describe
from pixiu_cli.memory.alerts import SOURCE_CONVERSATION, AddedAlert, NewAlert, add_alert, stock_name
from pixiu_cli.memory.model import decision_ref, note_ref

if TYPE_CHECKING:
    from pixiu_cli.kernel.settings import Commission
    from pixiu_cli.memory.handle import Memory

TRADE, ALERT = "trade", "alert"
PROPOSALS_PER_TURN = 5
PROPOSALS_PER_DAY = 50  # pending, notes and changes together
PROPOSAL_LONGEST = 2000  # characters of a proposal's text, or of its arguments as JSON


@dataclass(frozen=True)
class ProposedChange:
    event: MemoryEvent
    change: str  # TRADE | ALERT
    arguments: dict

    @property
    def ref(self) -> str:
        return note_ref(self.event.id)


def check_room(memory: Memory, size: int, this_turn: int, now: datetime) -> None:
    """Refuse a proposal past the bounds: too long, too many this turn, too many pending today."""
    if size > PROPOSAL_LONGEST:
        raise RequestError(
            f"提议过长（{size} 字，上限 {PROPOSAL_LONGEST} 字），没有保存：只提议用户本轮说的内容，不要附加长文本"
        )
    if this_turn >= PROPOSALS_PER_TURN:
        raise RequestError(
            f"本轮已有 {this_turn} 条提议（每轮上限 {PROPOSALS_PER_TURN} 条），没有再保存：请先请用户确认已有的提议"
        )
    day_start = datetime.combine(now.date(), time(), now.tzinfo).isoformat(timespec="seconds")
    if memory.store.proposals_since(day_start) >= PROPOSALS_PER_DAY:
        raise RequestError(
            f"今天待确认的提议已有 {PROPOSALS_PER_DAY} 条（上限），没有再保存：请用户先在 /memory 里处理已有的提议"
        )


def _propose(memory: Memory, change: str, symbol: str, text: str, arguments: dict, this_turn: int, now: datetime):
    encoded = json.dumps(arguments, ensure_ascii=False)
    check_room(memory, max(len(text), len(encoded)), this_turn, now)
    event = memory.store.add_proposal(
        change=change, symbol=symbol, text=text, arguments=encoded, at=now.isoformat(timespec="seconds")
    )
    return ProposedChange(event, change, arguments)


def propose_trade(memory: Memory, trade: NewTrade, this_turn: int, now: datetime) -> ProposedChange:
    """A trade kept for the user to confirm, its day resolved now (accepted later, it is
    recorded on the day it was said to happen)."""
    day = trade_day(trade.day, now).isoformat()
    arguments = {
        "symbol": trade.symbol,
        "side": trade.side,
        "quantity": float(trade.quantity),
        "price": float(trade.price),
        "day": day,
        "fee": None if trade.fee is None else float(trade.fee),
        "reason": trade.reason,
        "name": trade.name,
    }
    fee = f"，手续费 {float(trade.fee):g} 元" if trade.fee else ""
    text = f"{side_name(trade.side)} {trade.symbol} {float(trade.quantity):g} 股 @ {float(trade.price):g}，{day}{fee}"
    return _propose(memory, TRADE, trade.symbol, text, arguments, this_turn, now)


def propose_alert(memory: Memory, alert: NewAlert, this_turn: int, now: datetime) -> ProposedChange:
    arguments = {"symbol": alert.symbol, "kind": alert.kind, "threshold": float(alert.threshold)}
    text = describe(alert.kind, float(alert.threshold), alert.symbol, stock_name(memory, alert.symbol))
    return _propose(memory, ALERT, alert.symbol, text, arguments, this_turn, now)


def pending_changes(memory: Memory, after_id: int) -> list[ProposedChange]:
    """The proposed changes still pending, of memory ids above `after_id` (a turn's own)."""
    store = memory.store
    found = []
    for event in store.pending_changes(after_id):
        change, encoded = store.proposed(event.id) or ("", None)
        found.append(ProposedChange(event, change, json.loads(encoded or "{}")))
    return found


def accept_change(
    memory: Memory, event: MemoryEvent, at: str, commission: Commission | None = None
) -> RecordedTrade | AddedAlert:
    """The user confirms a proposed change: the trade recorded (or the alert set) once, in one
    transaction with the proposal taken, so a second accept records nothing; a trade is valued
    by the memory's account (its cost method)."""
    store = memory.store
    ref = note_ref(event.id)
    with write_transaction(memory.db):
        current = store.get(event.id)
        proposed = store.proposed(event.id)
        if current is None or proposed is None:
            raise RequestError(f"#{ref} 不是待确认的模型提议（见 /memory）")
        if current.author != AUTHOR_PROPOSAL:
            taken = store.taken_as(event.id)
            recorded = f"，已记录为 #{decision_ref(taken)}" if taken else ""
            raise RequestError(f"#{ref} 已经采纳过{recorded}，没有再记录一次")
        change, encoded = proposed
        done = _make(memory, change, json.loads(encoded or "{}"), at, commission)
        store.take_proposal(event.id, done.decision.id if isinstance(done, RecordedTrade) else None)
    return done


def _make(
    memory: Memory, change: str, arguments: dict, at: str, commission: Commission | None
) -> RecordedTrade | AddedAlert:
    if change == TRADE:
        trade = NewTrade(
            symbol=arguments["symbol"],
            side=arguments["side"],
            price=arguments["price"],
            quantity=arguments["quantity"],
            reason=arguments.get("reason"),
            name=arguments.get("name"),
            source="user",  # the user confirmed it
            day=arguments.get("day"),
            fee=arguments.get("fee"),  # none stated: the account's rates estimate it, as for a told trade
        )
        return record_trade(memory.account, trade, at, commission)
    alert = NewAlert(arguments["symbol"], arguments["kind"], arguments["threshold"], SOURCE_CONVERSATION)
    return add_alert(memory, alert, at)


def change_notice(proposal: ProposedChange) -> str:
    """The line a proposed change leaves in the turn (the REPL then asks y/N)."""
    what = "交易" if proposal.change == TRADE else "预警"
    ref = proposal.ref
    return (
        f"{PROPOSAL_NAME} #{ref}：{what} · {proposal.event.text}——你这一轮的话没有这样说，账户没有改动；"
        f"确认：/memory accept {ref}（命令行 pixiu memory accept {ref}），删除：/forget {ref}"
    )
