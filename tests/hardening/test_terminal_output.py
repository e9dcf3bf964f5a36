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

from pixiu_cli.render import SCREEN_CHARS, Renderer, terminal_json, visible

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
            stream.text(text[i:i + size])
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
        assert [line for line in screen_of(stream_reply(MARKDOWN, size=size)) if line] == \
            [line for line in at_once if line]


def test_long_reply_is_linear_and_stays_fully_stored():
    """160k characters took 63 s through the old live view (every delta re-rendered the
    whole reply); here the whole reply must take a few seconds."""
    paragraph = "茅台的估值与现金流分析，" * 20 + "\n\n"
    text = (paragraph * (160_000 // len(paragraph) + 1))[:160_000]
    started = time.perf_counter()
    out = stream_reply(text, size=20)
    elapsed = time.perf_counter() - started
    assert elapsed < 20, elapsed
    assert "完整回复已保存" not in out  # under the screen cap: all of it drawn


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
    assert shown.count("甲") <= SCREEN_CHARS
    assert f"回复共 {2_000_000:,} 字，屏幕上只显示了前 {SCREEN_CHARS:,} 字；完整回复已保存" in shown


def test_piped_reply_is_verbatim_and_uncapped():
    out = io.StringIO()
    renderer = Renderer(file=out, rich_output=False)
    text = "x\u202ey" + "甲" * (SCREEN_CHARS + 10)
    with renderer.reply() as stream:
        stream.text(text)
    assert out.getvalue() == text + "\n"


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
    escaped = terminal_json(text)
    assert json.loads(escaped) == value
    assert not set(BIDI + C1 + "\x7f\x1b") & set(escaped) and "中文" in escaped


def test_visible_keeps_text_and_line_structure():
    assert visible("茅台\n\t1500 元") == "茅台\n\t1500 元"
    assert re.fullmatch("a\ufffd+b", visible(f"a{BIDI}b"))
