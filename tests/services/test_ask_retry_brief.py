"""The conversation's use cases in process (conversation/ask.py `ask` and `retry`,
brief/daily_brief.py `brief`): the product's app over a real SQLite file, the deterministic
in-process model, the sink and the confirm callback a surface would pass. What `pixiu ask`,
a REPL turn, /retry, `pixiu brief` and /brief have in common is checked here once."""

from __future__ import annotations

import io
import os
import sqlite3
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from unittest import mock

import pytest

from pixiu_cli.app import App, build_agent, configured
from pixiu_cli.brief.daily_brief import BriefRequest, brief
from pixiu_cli.brief.views import cost_line
from pixiu_cli.conversation.agent.calls import SilentSink
from pixiu_cli.conversation.ask import INTERRUPTED, RETRIED_LABEL, AskRequest, RetryRequest, ask, retry
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from pixiu_cli.conversation.presenters import error_line
from pixiu_cli.conversation.views import ask_kept_line
from pixiu_cli.home.document_file import load_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.repl.loop import run_command
from pixiu_cli.repl.state import ReplState
from pixiu_cli.repl.turn import show_asked
from tests.helpers import FIXTURE, NOW, clean_env

QUESTION = "茅台最近怎么样？"
CUT = "这是一段会被掐断的回复内容"


class Recording(SilentSink):
    """A sink that keeps what the reply streamed, as a terminal would show it."""

    def __init__(self):
        self.shown = ""

    def text(self, delta: str) -> None:
        self.shown += delta


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def workspace(home, chat_model, **settings_changes) -> App:
    """The product's app (app.App) over home/pixiu.db holding small_portfolio.json, on the
    in-process model and a clock pinned at NOW."""
    with mock.patch.dict(os.environ, clean_env(home), clear=True):
        settings = replace(load_settings(), **settings_changes)
    db = open_database(settings.db_path)
    domain = InvestorStore(db)
    domain.replace_all(load_document(FIXTURE, NOW))
    clock = lambda: NOW  # noqa: E731
    agent = build_agent(
        db,
        chat_model,
        limits=configured(settings).limits,
        guardrails=configured(settings).guardrails,
        temperature=None,
        clock=clock,
        domain=domain,
    )
    return App(settings=settings, store=agent.store, agent=agent, builder=agent.builder, clock=clock)


@pytest.fixture
def app(home, model):
    opened = workspace(home, model)
    yield opened
    opened.close()


def asked(app, text=QUESTION, conversation_id=None, sink=None, **request):
    seat = nullcontext((app, conversation_id))
    reply = nullcontext(sink or SilentSink())
    return ask(AskRequest(text, **request), seat, reply, home=app.settings.home, now=NOW)


def unsent(app) -> list:
    folder = app.settings.home / "unsent"
    return sorted(folder.glob("*.txt")) if folder.exists() else []


def repl_state(app) -> tuple[ReplState, io.StringIO]:
    out = io.StringIO()
    renderer = Renderer(file=out, stderr=out, rich_output=False)
    renderer.console.width = 10_000
    return ReplState(app=app, renderer=renderer), out


# -- ask ----------------------------------------------------------------------------------------


def test_a_question_is_answered_streamed_stored_and_leaves_nothing_in_unsent(app, model):
    model.enqueue("茅台这周收在 1,650 元附近。")
    sink = Recording()
    result = asked(app, sink=sink)
    assert result.complete and result.turn.reply == "茅台这周收在 1,650 元附近。"
    assert sink.shown == result.turn.reply  # streamed as it arrived
    (turn,) = app.store.turns(result.conversation_id)
    assert (turn.seq, turn.status, turn.user_text, turn.reply_text) == (1, "complete", QUESTION, result.turn.reply)
    assert unsent(app) == []  # kept while the turn ran, removed once it was stored
    assert len(model.requests) == 1


def test_a_second_question_continues_the_conversation_it_is_given(app, model):
    model.enqueue("一。", "二。")
    first = asked(app, "第一问")
    second = asked(app, "第二问", conversation_id=first.conversation_id)
    assert second.conversation_id == first.conversation_id and second.turn.seq == 2
    sent = [m["content"] for m in model.requests[-1].json["messages"] if m["role"] == "assistant"]
    assert "一。" in sent  # the first turn is in the second's history


def test_a_stream_cut_off_midway_keeps_the_partial_reply_marks_the_turn_and_keeps_the_question(app, model):
    model.enqueue(ScriptedReply(text=CUT, chunk_chars=2, fault=Fault("drop_stream", after_chunks=3)))
    sink = Recording()
    result = asked(app, sink=sink)
    # three chunks: the role, then "这是" and "一段" (two characters each); then the socket closed
    assert result.turn.status == "error" and result.turn.reply == "这是一段" and sink.shown == "这是一段"
    assert result.turn.error  # the line for the user
    (turn,) = app.store.turns(result.conversation_id)
    assert (turn.status, turn.user_text, turn.reply_text) == ("error", QUESTION, "这是一段")  # question not lost
    assert unsent(app) == []  # it is in the database, with what arrived


def test_a_locked_database_keeps_the_question_in_unsent_and_the_line_says_where(app, model):
    conversation_id = app.store.create_conversation().id
    app.store.db.execute("PRAGMA busy_timeout = 100")  # the product waits 15 s; the cause is the same
    holder = sqlite3.connect(app.settings.db_path)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        result = asked(app, conversation_id=conversation_id)
        state, out = repl_state(app)
        state.conversation_id = conversation_id
        show_asked(state, result)
    finally:
        holder.rollback()
        holder.close()
    assert result.turn is None and result.conversation_id == conversation_id and model.requests == []
    (kept,) = unsent(app)
    assert result.kept == kept and kept.read_text(encoding="utf-8") == QUESTION
    line = error_line(result.unstored)
    assert line.startswith("数据库正被另一个 pixiu 进程占用")
    # `pixiu ask`'s one line, and the REPL's two: the cause, then where the question is
    assert ask_kept_line(line, kept) == f"{line.rstrip('。')}。你的问题已保存在 {kept}（pixiu ask - < 该文件 可重发）"
    assert "数据库正被另一个 pixiu 进程占用" in out.getvalue() and f"你的问题已保存在 {kept}" in out.getvalue()
    assert state.conversation_id == conversation_id and app.store.turns(conversation_id) == []


def test_a_question_nowhere_can_keep_goes_back_to_the_prompt(app, model, monkeypatch):
    from pixiu_cli.conversation import ask as use_case

    def full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(use_case, "keep", full)
    app.store.db.execute("PRAGMA busy_timeout = 100")
    holder = sqlite3.connect(app.settings.db_path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = asked(app)
        state, out = repl_state(app)
        show_asked(state, result)
    finally:
        holder.rollback()
        holder.close()
    assert result.unstored is not None and result.kept is None
    assert state.retype == QUESTION and "已放回输入框" in out.getvalue()  # the REPL puts it back
    with pytest.raises(OSError):
        asked(app, must_keep=True)  # `pixiu ask` has no prompt: a full disk stops it at once


def test_ctrl_c_outside_the_stream_closes_the_turn_as_interrupted(app, model, monkeypatch):
    def interrupted(*_, **__):
        raise KeyboardInterrupt

    conversation_id = app.store.create_conversation().id
    monkeypatch.setattr(app.agent.builder, "build_messages", interrupted)  # while assembling context
    result = asked(app, conversation_id=conversation_id)
    assert result.interrupted and result.turn is None and model.requests == []
    (turn,) = app.store.turns(conversation_id)
    assert (turn.status, turn.error, turn.user_text) == ("interrupted", INTERRUPTED, QUESTION)
    assert unsent(app) == []  # the question is the stored turn's


def test_an_error_that_is_not_about_storing_removes_the_kept_question_and_is_raised(app, monkeypatch):
    def broken(*_, **__):
        raise ValueError("a bug")

    monkeypatch.setattr(app.agent.builder, "build_messages", broken)
    with pytest.raises(ValueError):
        asked(app)
    assert unsent(app) == []


# -- retry ------------------------------------------------------------------------------------


def test_retry_asks_a_cut_off_turn_again_and_the_partial_leaves_the_history(app, model):
    model.enqueue(ScriptedReply(text=CUT, chunk_chars=2, fault=Fault("drop_stream", after_chunks=3)))
    first = asked(app)
    model.enqueue("完整的回答。")
    announced = []

    @contextmanager
    def reply(turn):
        announced.append((turn.seq, turn.user_text))
        yield SilentSink()

    done = retry(RetryRequest(first.conversation_id), app, reply, home=app.settings.home, now=NOW)
    assert done.refused is None and announced == [(1, QUESTION)]
    assert done.asked.complete and done.asked.turn.seq == 2 and done.asked.turn.reply == "完整的回答。"
    old, new = app.store.turns(first.conversation_id)
    assert old.reply_text == "这是一段" and old.error.endswith(RETRIED_LABEL.format(seq=2))  # kept, labelled
    assert (new.user_text, new.status) == (QUESTION, "complete")
    sent = model.requests[-1].json["messages"]
    assert not any("这是一段" in str(m.get("content")) for m in sent if m["role"] == "assistant")
    assert unsent(app) == []


def test_retry_refuses_a_complete_turn_and_a_conversation_without_turns(app, model):
    def reply(turn):
        return nullcontext(SilentSink())

    options = {"home": app.settings.home, "now": NOW}
    assert retry(RetryRequest(None), app, reply, **options).refused == "no_turn"
    model.enqueue("好的。")
    first = asked(app)
    done = retry(RetryRequest(first.conversation_id), app, reply, **options)
    assert (done.refused, done.retried.seq, done.asked) == ("complete", 1, None)
    assert len(app.store.turns(first.conversation_id)) == 1 and len(model.requests) == 1  # nothing asked


# -- brief ------------------------------------------------------------------------------------


@pytest.fixture
def paid(home, model):
    """The app as online with a priced model (deepseek-flash: 2 CNY per million input tokens
    missed, 8 per million output) and [brief] confirm_above = 0: every brief is asked for."""
    opened = workspace(home, model, provider="deepseek", model="deepseek-flash", brief_confirm_above=0.0)
    yield opened
    opened.close()


def reports(app) -> list:
    return app.store.db.execute(
        "select origin, conversation_id, turn_seq from reports where origin = 'brief'"
    ).fetchall()


def briefed(app, confirm, request=None):
    shown = []

    @contextmanager
    def reply(plan):
        shown.append(plan.lines[0])
        yield SilentSink()

    return brief(request or BriefRequest(), app, confirm, reply, app.clock), shown


def test_a_declined_brief_sends_nothing_and_writes_nothing(paid, model):
    asked_about = []
    done, shown = briefed(paid, lambda estimate: asked_about.append(estimate) or False)
    (estimate,) = asked_about
    assert done.declined and done.outcome is None and shown == []
    # no cache hit assumed: prompt × 2 + 1,200 × 8, per million
    assert estimate.output_tokens == 1200 and estimate.currency == "CNY"
    assert estimate.cost == pytest.approx((estimate.prompt_tokens * 2.0 + 1200 * 8.0) / 1e6)
    assert model.requests == [] and reports(paid) == []
    assert paid.store.list_conversations(10, None) == []  # not even a conversation


def test_an_accepted_brief_is_written_and_its_conclusion_stored(paid, model):
    model.enqueue("组合小幅上涨。\n\n结论：继续持有，注意止损纪律。")
    done, shown = briefed(paid, lambda estimate: True)
    assert not done.declined and done.written and shown == ["【事实（pixiu 本地计算，不是模型生成）】"]
    assert done.outcome.conclusion == "继续持有，注意止损纪律。" and len(model.requests) == 1
    turn = done.outcome.turn
    assert reports(paid) == [("brief", turn.conversation_id, 1)]
    assert done.deliveries == []  # not asked to push


def test_an_offline_brief_is_not_estimated_and_never_asks(app, model):
    model.enqueue("简报。\n\n结论：持有。")
    done, _ = briefed(app, lambda estimate: pytest.fail("asked to confirm an unpaid brief"))
    assert done.estimate is None and done.written


def test_a_brief_asked_to_push_without_channels_stops_before_the_model(paid, model):
    from pixiu_cli.kernel.errors import RequestError

    with pytest.raises(RequestError):
        briefed(paid, lambda estimate: True, BriefRequest(push=True))
    assert model.requests == [] and reports(paid) == []


def test_the_repl_brief_shows_the_cost_line_the_cli_shows_even_with_yes(paid, model):
    state, out = repl_state(paid)
    run_command(state, "/brief")
    refused = out.getvalue()
    assert "确认后输入 /brief --yes" in refused and model.requests == []
    model.enqueue("简报。\n\n结论：持有。")
    run_command(state, "/brief --yes")
    accepted = out.getvalue()[len(refused) :]
    (line,) = [x for x in accepted.splitlines() if "预计约" in x]
    assert line.startswith("注意：简报将调用 deepseek · deepseek-flash") and "CNY" in line  # `pixiu brief`'s warning
    assert "confirm_above = 0" in line and "结论已保存为报告" in accepted
    assert state.conversation_id == reports(paid)[0][1]
    after = accepted.split("结论已保存为报告")[1]
    assert "输入 " in after and "tokens · 缓存命中" in after  # the turn's status line


def test_the_cost_line_is_the_view_both_surfaces_use(paid, model):
    done, _ = briefed(paid, lambda estimate: False)
    line = cost_line(done.estimate, "deepseek", "deepseek-flash", 0.0)
    assert line.startswith(f"简报将调用 deepseek · deepseek-flash：预计约 {done.estimate.prompt_tokens:,} 输入 tokens")
