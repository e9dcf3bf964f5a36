"""DeepSeek's model names and thinking-mode options, as its API pages gave them on 2026-12-01.

`deepseek-flash` (DeepSeek-V4.1-Flash) is the name DeepSeek asks callers to use;
`deepseek-v4-flash` is still accepted and served by it. `deepseek-chat` and
`deepseek-reasoner` were retired on 2026-07-24: requests naming them fail."""

from __future__ import annotations

DEFAULT_DEEPSEEK_MODEL = "deepseek-flash"
CURRENT_DEEPSEEK_MODELS = ("deepseek-flash", "deepseek-v4-flash", "deepseek-v4-pro")
RETIRED_MODELS = {"deepseek-chat": DEFAULT_DEEPSEEK_MODEL, "deepseek-reasoner": DEFAULT_DEEPSEEK_MODEL}

# `{"thinking": {"type": ...}}` in the request body; DeepSeek's default is enabled.
THINKING_MODES = ("enabled", "disabled")
# `reasoning_effort`: DeepSeek maps minimal/low → low, medium/high/xhigh → high, max/ultra → max.
REASONING_EFFORTS = ("low", "high", "max")
# The providers that understand those two fields; any other server is sent neither.
THINKING_PROVIDERS = ("deepseek", "offline")


def retired_model_line(model: str) -> str | None:
    """The one line for a retired model name, or None when the name is not retired."""
    replacement = RETIRED_MODELS.get(model)
    if replacement is None:
        return None
    return f"模型 {model} 已停用，请改用 {replacement}（pixiu config set model {replacement}）"
