"""The tool-loop rig shared by the agent tests: the fixture portfolio, a pinned clock, the
product's tools plus two misbehaving ones."""

from __future__ import annotations

import time

import pytest

from pixiu_cli.conversation.agent.guardrails import Guardrails
from pixiu_cli.conversation.agent.tools import Tool, ToolOutcome
from pixiu_cli.conversation.model_tools import TOOLS
from tests.helpers import FIXTURE, NOW, build_app


def _boom(ctx, args):
    raise RuntimeError("数据源不可用")


def _slow(ctx, args):
    time.sleep(2)
    return ToolOutcome({"ok": True})


EXTRA = (
    Tool("explode", "总是出错", {"type": "object", "properties": {}, "required": []}, _boom),
    Tool("sleepy", "很慢", {"type": "object", "properties": {}, "required": []}, _slow),
)


@pytest.fixture
def rig(model, tmp_path):
    app = build_app(model, tmp_path / "p.db", portfolio=FIXTURE, now=NOW, tools=TOOLS + EXTRA)

    def make(guardrails=None, tools=TOOLS + EXTRA):
        return app.agent_with(tools=tools, guardrails=guardrails or Guardrails()), app.new_conversation()

    return make, app.store, app.domain, app.tool_context
