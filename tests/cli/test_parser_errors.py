"""What the command-line parser refuses is one Chinese line naming the flag or argument, exit
status 2: an unknown option (a negative number read as one), a value out of its range or of
the wrong type, a missing argument, an unknown command, extra words. The commands of the fast
path (ask, chat, cache, context) leave such lines to the same parser and say the same."""

from __future__ import annotations

import re

import pytest

from tests.helpers import clean_env, pixiu_in_process

CASES = [
    (("cash", "set", "-5"), "-5 不是选项"),
    (("trade", "buy", "600519", "-100", "10"), "-100 不是选项"),
    (("news", "list", "--limit", "0"), "--limit 应为 1 到 1000 之间的整数，而不是 0"),
    (("news", "list", "--limit", "x"), "--limit 应为 1 到 1000 之间的整数，而不是 x"),
    (("news", "sync", "--timeout", "0"), "--timeout 应为不小于 1 的数字，而不是 0"),
    (("chart", "600519", "--days", "1"), "--days 应为 5 到 5000 之间的整数，而不是 1"),
    (("chart",), "缺少参数 CODE：股票代码"),
    (("holdings", "extra"), "多余的参数：extra"),
    (("memoir",), "没有 memoir 这个命令，是否想用 memory"),
    (("xyzzy",), "没有 xyzzy 这个命令"),
    (("holdings", "--jsn"), "没有 --jsn 这个选项，是否想用 --json"),
    (("data", "sync", "--since"), "--since 后面需要一个值"),
    # the fast path's commands
    (("ask", "--bogus", "你好"), "没有 --bogus 这个选项"),
    (("context", "--turn", "0"), "--turn 应为不小于 1 的整数，而不是 0"),
    (("cache", "--bogus"), "没有 --bogus 这个选项"),
    (("chat", "--bogus"), "没有 --bogus 这个选项"),
]


ARGUMENTS = {"CODE", "PRICE", "code", "price"}  # arguments are named as `--help` names them


COMMANDS = ("memory",)  # a command pixiu suggests for a mistyped one


def _english_words(line: str, argv: tuple[str, ...]) -> list[str]:
    """Latin words left once the flags, the words typed and the command's name are taken out."""
    rest = re.sub(r"--?[A-Za-z][\w-]*", " ", line)
    typed = {"pixiu", *ARGUMENTS, *argv, *COMMANDS}
    return [word for word in re.findall(r"[A-Za-z]{2,}", rest) if word not in typed]


@pytest.mark.parametrize(("argv", "said"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_refused_command_line_is_one_chinese_line_naming_the_flag(tmp_path, argv, said):
    done = pixiu_in_process(clean_env(tmp_path), *argv, text=True)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("错误："), done.stderr
    assert said in lines[0], lines[0]
    command = "pixiu --help" if argv[0] in ("memoir", "xyzzy") else f"pixiu {argv[0]}"  # where its usage is
    assert lines[0].endswith("--help 查看用法）") and f"（{command}" in lines[0], lines[0]
    assert _english_words(lines[0], argv) == [], lines[0]
