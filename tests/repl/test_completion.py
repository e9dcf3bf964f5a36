"""Completion beyond command names, on the REPL's real state (a real SQLite file): flags,
memory ids, conversation ids, stock codes and names, kinds and models."""

from __future__ import annotations

from datetime import datetime

import pytest
from prompt_toolkit.document import Document

from pixiu_cli.app import App
from pixiu_cli.home.document_file import SHANGHAI
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.market.service import watch
from pixiu_cli.memory import notes
from pixiu_cli.repl import loop  # noqa: F401  (registers every command)
from pixiu_cli.repl.prompt import PixiuCompleter, sources_for
from pixiu_cli.repl.state import ReplState
from tests.helpers import build_app

NOW = datetime(2026, 12, 1, 10, 15, tzinfo=SHANGHAI)


@pytest.fixture
def completer(tmp_path, model):
    wired = build_app(model, tmp_path / "p.db")
    app = App(settings=None, store=wired.store, agent=wired.agent, builder=wired.builder)
    state = ReplState(app=app, renderer=Renderer())
    return state, PixiuCompleter(sources_for(state))


def complete(completer, text: str) -> list[str]:
    return [c.text for c in completer.get_completions(Document(text), None)]


def test_command_names_and_each_commands_flags(completer):
    _, c = completer
    assert "/remember" in complete(c, "/rem") and "/resume" in complete(c, "/re")
    assert complete(c, "/remember 回踩加仓 --") == ["--kind", "--symbol"]
    assert complete(c, "/context --r") == ["--raw"]
    assert complete(c, "/remember 回踩加仓 --kind p") == ["plan"]


def test_memory_ids_for_forget_and_memory_subcommands(completer):
    state, c = completer
    added = notes.add_note(state.app.memory, notes.NewNote("rule", "永远不融资", None, "user"), NOW.isoformat())
    ref = f"n{added.event.id}"
    assert complete(c, "/forget ") == [ref] and complete(c, "/forget n") == [ref]
    assert complete(c, "/memory pin ") == [ref] and complete(c, "/memory edit n") == [ref]
    assert complete(c, "/memory p") == ["pin"]
    assert complete(c, "/memory r") == ["replace"] and complete(c, "/memory replace ") == [ref]


def test_conversation_ids_for_resume(completer):
    state, c = completer
    first = state.app.store.create_conversation("茅台怎么样").id
    second = state.app.store.create_conversation("宁德能买吗").id
    assert set(complete(c, "/resume ")) == {str(first), str(second)}


def test_stock_codes_and_names_for_chart_alert_and_symbol(completer):
    state, c = completer
    watch(state.app.market, "603883", NOW)
    assert complete(c, "/chart 6038")[0] == "603883"  # the watched stock first
    assert "300750" in complete(c, "/chart 宁德")  # by name: the code is inserted
    assert "600519" in complete(c, "/alert add 贵州")
    assert "000333" in complete(c, "/remember 回踩加仓 --symbol 美的")


def test_models_for_model(completer):
    _, c = completer
    assert "deepseek-v4-pro" in complete(c, "/model deepseek-v4")
    assert complete(c, "/model ") and "pixiu-offline" not in complete(c, "/model ")
