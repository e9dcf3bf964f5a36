"""The offline server: an OpenAI-compatible HTTP server on loopback that imitates
DeepSeek (prompt serialisation, token counts, prefix cache, usage), answers from a
scripted queue or a deterministic offline responder, and injects faults on request.

Nothing here imports ``openai``; clients talk to it over real HTTP."""

from .cache import PrefixCache
from .responder import respond
from .script import Fault, ScriptedReply, ToolCallSpec
from .server import OfflineServer, RecordedRequest
from .template import render_completion, render_prompt

__all__ = [
    "Fault",
    "OfflineServer",
    "PrefixCache",
    "RecordedRequest",
    "ScriptedReply",
    "ToolCallSpec",
    "render_completion",
    "render_prompt",
    "respond",
]
