"""What reaches the terminal: a long reply costs linear time and bounded memory (only what
fits is drawn; everything is stored), streamed Markdown looks like the same Markdown printed
at once, and stored text cannot reorder or hide what is shown (bidi overrides, C1 controls,
OSC 8 hyperlinks)."""

from __future__ import annotations

import io
import json
import re
import time
import tracemalloc

import pyte
import pytest

from pixiu_cli.kernel.render import SCREEN_CHARS, Renderer, visible
from pixiu_cli.kernel.safe_text import inert_json

OSC8 = "\x1b]8;"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
C1 = "".join(chr(c) for c in range(0x80, 0xA0))


def screen_of(output: str, width: int = 100, height: int = 400) -> list[str]:
    screen = pyte.Screen(width, height)
    stream = pyte.Stream(screen)
    stream.feed(output.replace("\n", "\r\n"))
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def rich_renderer(width: int = 100) -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    renderer = Renderer(file=out, rich_output=True)
    renderer.console.width = width
    renderer.console.height = 40
    return renderer, out


def stream_reply(text: str, size: int = 37, width: int = 100) -> str:
    renderer, out = rich_renderer(width)
    with renderer.reply() as stream:
        for i in range(0, len(text), size):
            stream.text(text[i : i + size])
    return out.getvalue()


def printed_at_once(text: str, width: int = 100) -> str:
    renderer, out = rich_renderer(width)
    renderer.markdown(text)
    return out.getvalue()


MARKDOWN = """## 茅台的看法

第一段：白酒龙头，**估值**偏高。

- 要点一
- 要点二，带 `代码`

```python
x = 1

y = 2
```

| 代码 | 名称 |
| --- | --- |
| 600519 | 贵州茅台 |

最后一段：仓位控制在三成以内。
"""


def test_streamed_markdown_looks_like_markdown_printed_at_once():
    at_once = screen_of(printed_at_once(MARKDOWN))
    assert screen_of(stream_reply(MARKDOWN, size=len(MARKDOWN))) == at_once
    for size in (1, 37):  # redrawn while streaming: the same lines, in order, no repeats (spacing may differ)
        assert [line for line in screen_of(stream_reply(MARKDOWN, size=size)) if line] == [
            line for line in at_once if line
        ]


def test_long_reply_is_linear_and_stays_fully_stored():
    """The old live view re-rendered the whole reply on every delta, quadratic in its
    length (figures in benchmarks/README.md); streaming must stay linear."""
    paragraph = "茅台的估值与现金流分析，" * 20 + "\n\n"
    text = (paragraph * (160_000 // len(paragraph) + 1))[:160_000]
    started = time.perf_counter()
    out = stream_reply(text, size=20)
    elapsed = time.perf_counter() - started
    assert elapsed < 20, elapsed
    assert "完整回复已保存" not in out  # under the screen cap: all of it drawn


@pytest.mark.slow
def test_huge_reply_draws_at_most_the_screen_cap_with_a_note():
    renderer, out = rich_renderer()
    tracemalloc.start()
    started = time.perf_counter()
    with renderer.reply() as stream:
        chunk = "甲" * 999 + "\n"
        for _ in range(2_000):  # 2M characters, no paragraph breaks
            stream.text(chunk)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 30 and peak < 200 * 2**20, (elapsed, peak)
    shown = out.getvalue()
    # what is drawn once, plus a few throttled redraws of the open block (at most a screenful each)
    assert SCREEN_CHARS - 1000 <= shown.count("甲") <= SCREEN_CHARS + 50_000
    assert f"回复共 {2_000_000:,} 字，屏幕上只显示了前 {SCREEN_CHARS:,} 字；完整回复已保存" in shown


def test_piped_reply_is_uncapped_and_inert():
    out = io.StringIO()
    renderer = Renderer(file=out, rich_output=False)
    text = "x\u202ey" + "甲" * (SCREEN_CHARS + 10)
    with renderer.reply() as stream:
        stream.text(text)
    assert out.getvalue() == "x\ufffdy" + "甲" * (SCREEN_CHARS + 10) + "\n"


@pytest.mark.parametrize("show", ["line", "info", "dim", "table", "markdown", "stream", "banner"])
def test_bidi_overrides_and_c1_controls_never_reach_the_terminal(show):
    hostile = f"买入{BIDI}卖出{C1}\x1b]0;title\x07结束"
    renderer, out = rich_renderer()
    if show == "table":
        renderer.table("标题" + hostile, ["列"], [[hostile]])
    elif show == "stream":
        with renderer.reply() as stream:
            stream.text(hostile)
    elif show == "banner":
        renderer.banner(mode_line=hostile, conversation_line=hostile)
    else:
        getattr(renderer, show)(hostile)
    shown = out.getvalue()
    assert not set(BIDI + C1) & set(shown), show
    assert "\x1b]0;" not in shown and "结束" in shown


def test_markdown_link_shows_its_target_and_is_no_hyperlink():
    text = "详情见[公告原文](https://evil.example/phish)。"
    for shown in (printed_at_once(text), stream_reply(text)):
        assert OSC8 not in shown
        assert "https://evil.example/phish" in "".join(screen_of(shown))


def test_terminal_json_keeps_the_value_and_escapes_what_acts_on_a_terminal():
    value = {"note": f"a{BIDI}{C1}\x7f\x1b中文", BIDI: [C1]}
    text = json.dumps(value, ensure_ascii=False)
    escaped = inert_json(text)
    assert json.loads(escaped) == value
    assert not set(BIDI + C1 + "\x7f\x1b") & set(escaped) and "中文" in escaped


def test_visible_keeps_text_and_line_structure():
    assert visible("茅台\n\t1500 元") == "茅台\n\t1500 元"
    assert re.fullmatch("a\ufffd+b", visible(f"a{BIDI}b"))


# end to end --------------------------------------------------------------------------------

import subprocess  # noqa: E402

import pexpect  # noqa: E402

from pixiu_cli.conversation.offline.script import ScriptedReply  # noqa: E402
from tests.helpers import PIXIU_BIN, PROMPT, say, spawn  # noqa: E402

HOSTILE_TITLE = f"茅台{BIDI}公告{C1}\x7f结束"


def _run(env, *args, **kw):
    return subprocess.run([PIXIU_BIN, *args], env=env, capture_output=True, timeout=60, **kw)


def _hostile_document(tmp_path):
    doc = {
        "holdings": [{"symbol": "600519", "name": "贵州茅台", "shares": 100, "cost": 1650.5, "role": "core"}],
        "news": [{"symbol": "600519", "title": HOSTILE_TITLE, "source": "公告", "days_ago": 1}],
    }
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.slow
def test_export_escapes_bidi_and_c1_and_reimports_exactly(offline_env, tmp_path):
    assert _run(offline_env, "import", str(_hostile_document(tmp_path))).returncode == 0
    stdout = _run(offline_env, "export").stdout.decode("utf-8")
    assert _run(offline_env, "export", "-o", str(tmp_path / "out.json")).returncode == 0
    written = (tmp_path / "out.json").read_text(encoding="utf-8")
    for text in (stdout, written):
        assert not set(BIDI + C1 + "\x7f") & set(text)
        assert "\\u202e" in text
        assert json.loads(text)["news"][0]["title"] == HOSTILE_TITLE
    assert _run(offline_env, "import", str(tmp_path / "out.json")).returncode == 0
    assert json.loads(_run(offline_env, "export").stdout)["news"][0]["title"] == HOSTILE_TITLE


@pytest.mark.pty
@pytest.mark.slow
def test_context_raw_is_exact_when_piped_and_escaped_on_a_terminal(server, online_env):
    question = f"看看{BIDI}这个{C1}问题"
    server.enqueue(ScriptedReply(text="好"))
    assert _run(online_env, "ask", question).returncode == 0
    piped = _run(online_env, "context", "--raw").stdout.decode("utf-8")
    assert question in piped  # the bytes as stored and sent
    child = spawn(online_env, "context", "--raw")
    child.expect(pexpect.EOF)
    shown = child.before
    assert not set(BIDI + C1) & set(shown) and "\\u202e" in shown


@pytest.mark.pty
@pytest.mark.slow
def test_repl_shows_link_targets_and_no_bidi_from_a_reply(server, online_env):
    reply = f"详情见[公告原文](https://evil.example/phish)。\n\n标题{BIDI}反转{C1}结束"
    child = spawn(online_env)
    log = io.StringIO()
    child.logfile_read = log
    try:
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text=reply))
        say(child, "链接")
        child.expect("结束")
        child.expect(PROMPT)
        shown = log.getvalue()
        say(child, "/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert OSC8 not in shown and "https://evil.example/phish" in shown
    assert not set(BIDI + C1) & set(shown)


@pytest.mark.pty
@pytest.mark.slow
def test_ctrl_c_mid_stream_leaves_each_line_once(server, online_env):
    """The terminal echoed ^C under the live view, which then redrew one line too low and
    left the first wrapped line of the reply on screen twice."""
    width = 60
    reply = "".join(f"第{i:03d}句，" for i in range(120))  # every screen line different
    env = dict(online_env, COLUMNS=str(width))
    child = pexpect.spawn(
        PIXIU_BIN,
        [],
        env=dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", LINES="40"),
        encoding="utf-8",
        timeout=40,
        dimensions=(40, width),
    )
    log = io.StringIO()
    child.logfile_read = log
    try:
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text=reply, chunk_chars=3, chunk_delay=0.05))
        say(child, "讲个长的")
        child.expect("第030句")
        child.sendintr()
        child.expect("已中断")
        child.expect(PROMPT)
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    screen = pyte.Screen(width, 40)
    pyte.Stream(screen).feed(log.getvalue())
    lines = [line.rstrip() for line in screen.display if "句" in line]
    assert len(lines) >= 3, screen.display
    assert len(lines) == len(set(lines)), lines
    assert not any("^C" in line for line in screen.display)


def test_huge_reasoning_is_capped_on_screen_too():
    renderer, out = rich_renderer()
    with renderer.reply() as stream:
        for _ in range(300):
            stream.reasoning("想" * 1000)
        stream.text("结论。")
    shown = out.getvalue()
    assert shown.count("想") == SCREEN_CHARS and "结论" in shown
    assert f"思考过程共 {300_000:,} 字，屏幕上只显示了前 {SCREEN_CHARS:,} 字" in shown
