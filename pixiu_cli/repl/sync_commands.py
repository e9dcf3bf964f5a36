"""The daily offer (/sync itself is declared in commands/market_data.py): after the close of a trading day the REPL says, once per
session, that the holdings', watch list's or benchmarks' bars are behind and how to fetch
them; with `[market] auto_sync = true` it fetches them in the background instead, its
progress on the right of the prompt line and its result printed above the prompt when done."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.repl.state import ReplState


def _request(state: ReplState, source: str):
    from pixiu_cli.market.service import SyncRequest, sync_targets

    return SyncRequest(sync_targets(state.app.store.db, None), source, daily=True)


class BackgroundSync:
    """One default sync on its own thread and database connection (SQLite in WAL mode lets
    the REPL keep reading and writing meanwhile)."""

    def __init__(self, state: ReplState, source: str):
        self.source = source
        self._request = _request(state, source)
        self._path = state.app.settings.demo_db_path if state.app.demo else state.app.settings.db_path
        self._now, self._costs = state.clock(), state.app.costs
        # [push] alerts: what this sync finds is pushed once (never the demo's)
        self._push = None if state.app.demo else state.app.push
        self.total, self.done = len(self._request.symbols), 0
        self.result, self.error = None, None
        self.on_finish: Callable[[], None] = lambda: None  # called on the sync's thread
        # Set before on_finish runs: a prompt starting meanwhile sees the sync as ended even
        # though its thread is still alive, so one of the two always reports it.
        self._finished = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pixiu-auto-sync", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    def _advance(self, outcome) -> None:
        self.done += 1

    def _run(self) -> None:
        from pixiu_cli.conversation.presenters import error_line
        from pixiu_cli.market.service import sync_market

        try:
            db = open_database(self._path)
            try:
                self.result = sync_market(
                    db, self._request, self._now, self._costs, on_symbol=self._advance, push=self._push
                )
            finally:
                db.close()
        except Exception as exc:  # one line at the next prompt; the REPL goes on
            self.error = error_line(exc)
        self._finished.set()
        self.on_finish()

    def progress_line(self) -> str:
        if self.running:
            return f"后台同步行情（{self.source}）：{self.done}/{self.total}"
        return f"后台同步已完成：{self.done}/{self.total}"

    def wait(self, seconds: float) -> None:
        self._thread.join(seconds)


def offer_sync(state: ReplState) -> None:
    """At the start and after each turn: report a finished background sync, then, once per
    session, say that the data is behind (or start the background sync)."""
    report_background(state)
    if state.background_sync is not None or state.app.demo:  # the demo's bars are dated on purpose
        return
    from pixiu_cli.market.service import stale_market  # after the demo's return: its prompt does without it

    stale = stale_market(state.app.store.db, state.clock())
    if stale is None or stale.session == state.offered_session:
        return
    state.offered_session = stale.session
    count = f"{len(stale.symbols)} 只"
    if state.app.settings.auto_sync:
        from pixiu_cli.market.source_by_name import SOURCE_NAMES

        state.background_sync = BackgroundSync(state, SOURCE_NAMES[0])
        state.background_sync.start()
        state.renderer.dim(f"行情数据落后 {stale.session} 收盘（{count}），已在后台同步；进度见输入行右侧")
        return
    state.renderer.info(
        f"行情数据落后 {stale.session} 收盘（{count}，最多 {stale.behind} 个交易日）："
        "输入 /sync 同步（或 pixiu data sync）；pixiu config set market.auto_sync true 可在收盘后自动同步"
    )


def report_background(state: ReplState) -> None:
    """What a finished background sync did, once; nothing while it runs."""
    running = state.background_sync
    if running is None or running.running:
        return
    state.background_sync = None
    if running.error:
        state.renderer.error(f"后台同步失败：{running.error}")
        return
    from pixiu_cli.market.views import show_sync

    state.renderer.dim(f"后台同步完成（{running.source}，{running.total} 只）：")
    show_sync(state.renderer, running.source, running.result)


def toolbar(state: ReplState):
    """The prompt's right-hand text while a background sync has something to say, else None."""
    running = state.background_sync
    return running.progress_line() if running is not None else None
