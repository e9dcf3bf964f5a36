"""The offline server: an OpenAI-compatible HTTP server on loopback that imitates
DeepSeek (prompt serialisation, token counts, prefix cache, usage), answers from a
scripted queue or a deterministic offline responder, and injects faults on request.

Nothing here imports ``openai``; clients talk to it over real HTTP."""

import importlib

# Names are loaded on first use (PEP 562): importing the package for one name must not
# pay for the server, its cache and the responder.
_WHERE = {
    "PrefixCache": "cache",
    "respond": "responder",
    "Fault": "script",
    "ScriptedReply": "script",
    "ToolCallSpec": "script",
    "OfflineServer": "server",
    "RecordedRequest": "server",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["Fault", "OfflineServer", "PrefixCache", "RecordedRequest", "ScriptedReply", "ToolCallSpec", "respond"]
