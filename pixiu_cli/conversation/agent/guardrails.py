"""Explicit, configurable guardrails for the tool loop, and the one place a tool runs."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from pixiu_cli.conversation.agent.tools import (
    ToolArgumentError,
    ToolContext,
    ToolRegistry,
    encode_result,
    validate_arguments,
)
from pixiu_cli.conversation.llm.types import ToolCall
from pixiu_cli.kernel.store.database import CommitRefused, commit_gate
from pixiu_cli.kernel.vocabulary import Guardrails


@dataclass(frozen=True)
class ToolRun:
    content: str  # the tool message the model sees
    ok: bool
    notice: str | None = None
    guardrail: str | None = None  # which guardrail fired, if any


# A turn no user spoke (the daily brief) changes nothing: not the account, the memory or the alerts.
READ_ONLY = "本轮不是用户的消息（每日简报），不能调用 {name}：简报不修改账户、记忆或预警，请只根据事实写简报。"


def _error(message: str, guardrail: str | None = None) -> ToolRun:
    return ToolRun(json.dumps({"ok": False, "error": message}, ensure_ascii=False), False, guardrail=guardrail)


def run_tool(
    registry: ToolRegistry,
    ctx: ToolContext,
    call: ToolCall,
    seen: dict[tuple[str, str], int],
    step: int,
    guardrails: Guardrails,
) -> ToolRun:
    tool = registry.get(call.name)
    if tool is None:
        names = "、".join(t.name for t in registry.tools)
        return _error(f"未知工具 {call.name!r}；可用工具：{names}", "unknown_tool")
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError as exc:
        return _error(f"参数不是有效的 JSON（{exc.msg}，第 {exc.pos} 个字符），请修正后重试", "bad_json")
    except (RecursionError, ValueError):  # absurdly nested or otherwise unreadable
        return _error("参数无法解析（嵌套过深或格式异常），请修正后重试", "bad_json")
    key = (call.name, json.dumps(args, sort_keys=True, ensure_ascii=False))
    if guardrails.block_repeats and key in seen:
        return _error(
            f"重复调用：第 {seen[key] + 1} 步已用相同参数调用过 {call.name}，结果见上文；请直接使用该结果", "repeat"
        )
    seen[key] = step
    if tool.writes and ctx.said is None:
        return _error(READ_ONLY.format(name=call.name), "read_only")
    result = _run_in_thread(tool, ctx, args, guardrails.tool_timeout)
    timeout = f"工具 {call.name} 执行超时（{guardrails.tool_timeout:g} 秒）"
    if "abandoned" in result:
        # Nothing was committed and nothing will be: say so, so the model does not claim it.
        return _error(f"{timeout}，已取消，没有保存任何内容", "timeout")
    if "late" in result:
        return _error(f"{timeout}；其更改已保存，但结果未返回", "timeout")
    if "argument_error" in result:
        return _error(f"参数有误：{result['argument_error']}", "bad_arguments")
    if "crash" in result:
        return _error(f"工具 {call.name} 执行出错：{result['crash'][:200]}", "tool_error")
    outcome = result["outcome"]
    return ToolRun(encode_result(outcome.content), True, outcome.notice)


def _run_in_thread(tool, ctx: ToolContext, args: dict, timeout: float) -> dict:
    """Run the handler on its own thread and its own connection, waiting `timeout` seconds.
    Returns one of: outcome, argument_error, crash, abandoned (gave up on it before it
    committed anything: it never will), late (it committed but has not returned)."""
    result: dict = {}
    gate = CommitGate()

    def work() -> None:

        own = None
        try:
            own = ctx.isolated()
            with commit_gate(gate):
                result["outcome"] = tool.handler(own, validate_arguments(tool.parameters, args))
        except ToolArgumentError as exc:
            result["argument_error"] = str(exc)
        except CommitRefused:
            result["abandoned"] = True
        except Exception as exc:  # a broken tool is reported to the model, not raised
            result["crash"] = f"{type(exc).__name__}: {exc}"
        finally:
            if own is not None and own is not ctx:
                own.close()

    worker = threading.Thread(target=work, name=f"tool-{tool.name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        if gate.abandon() and worker.is_alive():
            return {"abandoned": True}
        worker.join(COMMITTED_GRACE_SECONDS)  # it committed (or just finished): its result follows at once
        if worker.is_alive():
            return {"late": True}
    return dict(result)


COMMITTED_GRACE_SECONDS = 5.0


class CommitGate:
    """Decides, once, between a tool thread's commit and the loop giving up on it. The loop
    abandons a late tool only if it has not committed: a commit already under way is
    waited for, and then the tool's real result is reported."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._abandoned = False
        self._committing = False
        self._commits = 0

    def may_begin(self) -> bool:
        with self._cond:
            return not self._abandoned

    def may_commit(self) -> bool:
        with self._cond:
            if self._abandoned:
                return False
            self._committing = True
            return True

    def committed(self, ok: bool) -> None:
        with self._cond:
            self._committing = False
            self._commits += 1 if ok else 0
            self._cond.notify_all()

    def abandon(self) -> bool:
        """True when the tool is now abandoned with nothing committed (it never will)."""
        with self._cond:
            self._cond.wait_for(lambda: not self._committing, timeout=COMMITTED_GRACE_SECONDS)
            if self._commits or self._committing:
                return False
            self._abandoned = True
            return True
