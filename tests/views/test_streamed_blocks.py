"""A streamed reply prints each finished Markdown block once, above one live view that holds
only the open block: what it leaves is what one render of the whole answer prints, and the
work done (live views started, redraws, blocks parsed) follows the blocks, not the deltas."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pyte
import pytest
from rich.live import Live

import pixiu_cli.views.render as render
from pixiu_cli.views.render import Renderer

SENTENCES = [
    "茅台最近三个月走势偏弱，成交量温和，估值回到近五年的中位附近。",
    "按照你之前定下的**核心仓不超过两成半**的规则，现在还有一些余地。",
    "如果回踩到 1,450 元附近，可以分两次加仓，而不是一次加满。",
    "以上只是根据历史数据和你的记录整理的参考，不构成投资建议。",
]
PROSE = "\n\n".join("".join(SENTENCES[(i + k) % 4] for k in range(1 + i % 3)) for i in range(12)) + "\n"
MIXED = """## 茅台的看法

第一段：白酒龙头，**估值**偏高。

- 要点一
- 要点二，带 `代码`

1. 先看估值
2. 再看资金

```python
x = 1

y = 2
```

> 以上内容只是参考。

- 松散的列表

- 跨过空行

10. 编号也一样

11. 第二项

> 引用之后

| 代码 | 名称 |
| --- | --- |
| 600519 | 贵州茅台 |

---

最后一段：仓位控制在三成以内。
"""


class Clock:
    """time.monotonic for the renderer: deltas arrive 50 ms apart without waiting."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def renderer(*, interactive: bool) -> Renderer:
    shown = Renderer(file=io.StringIO(), rich_output=True)
    shown.console.width, shown.console.height = 90, 40
    # Not interactive, rich's live view draws only its last frame: the output is then
    # exactly what stays on the screen, comparable character by character.
    shown.console.is_interactive = interactive
    shown.console.record = True  # its text and styles, without cursor movements
    return shown


def recorded(shown: Renderer) -> str:
    """What the console printed, text and styles; the live view also hides the cursor while
    it is open, which leaves nothing on the screen."""
    return shown.console.export_text(styles=True).replace("\x1b[?25l", "").replace("\x1b[?25h", "")


def streamed(monkeypatch, text: str, size: int, *, interactive: bool = False) -> str:
    clock = Clock()
    monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))
    shown = renderer(interactive=interactive)
    with shown.reply() as stream:
        for i in range(0, len(text), size):
            stream.text(text[i : i + size])
            clock.now += 0.05
    return shown.out.getvalue() if interactive else recorded(shown)


def at_once(text: str, *, interactive: bool = False) -> str:
    shown = renderer(interactive=interactive)
    shown.markdown(text)
    return shown.out.getvalue() if interactive else recorded(shown)


def screen(output: str) -> list[str]:
    lines = pyte.Screen(90, 400)
    pyte.Stream(lines).feed(output.replace("\n", "\r\n"))
    return [line.rstrip() for line in lines.display]


@pytest.mark.parametrize("text", [PROSE, MIXED], ids=["prose", "mixed"])
@pytest.mark.parametrize("size", [1, 6, 37, 10_000])
def test_a_streamed_reply_prints_what_one_render_prints(monkeypatch, text, size):
    assert streamed(monkeypatch, text, size) == at_once(text)


@pytest.mark.parametrize("size", [1, 6, 37])
def test_the_terminal_is_left_showing_one_render_of_the_whole(monkeypatch, size):
    for text in (PROSE, MIXED):
        assert screen(streamed(monkeypatch, text, size, interactive=True)) == screen(at_once(text, interactive=True))


def test_one_live_view_per_reply_and_each_finished_block_drawn_once(monkeypatch):
    starts, finished, parsed = [], [], []
    real_start, real_commit, real_view = Live.start, render.ReplyStream._commit, render.markdown_view

    def commit(stream, renderables, chars):
        finished.append(stream._tail.after.strip())
        real_commit(stream, renderables, chars)

    monkeypatch.setattr(Live, "start", lambda self, *a, **k: (starts.append(self), real_start(self, *a, **k)))
    monkeypatch.setattr(render.ReplyStream, "_commit", commit)
    monkeypatch.setattr(render, "markdown_view", lambda text: (parsed.append(text), real_view(text))[1])
    streamed(monkeypatch, PROSE, 6, interactive=True)
    assert len(starts) == 1
    assert finished == PROSE.split("\n\n")[:-1]
    # one-line paragraphs, with or without **strong** runs, are drawn without parsing
    assert parsed == []
    streamed(monkeypatch, MIXED, 6, interactive=True)
    assert len(starts) == 2 and "## 茅台的看法" in finished and parsed


def test_redraws_are_throttled_and_none_is_spent_on_finished_blocks(monkeypatch):
    refreshes = []
    real_refresh = Live.refresh
    monkeypatch.setattr(Live, "refresh", lambda self: (refreshes.append(1), real_refresh(self)))
    streamed(monkeypatch, PROSE, 6, interactive=True)
    seconds = len(PROSE) / 6 * 0.05
    assert len(refreshes) <= seconds / render.REDRAW_SECONDS + 1


def test_an_interrupted_stream_leaves_what_it_had_received(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))
    cut = PROSE.index(SENTENCES[3], 400) + 10  # mid-paragraph, after finished blocks
    shown = renderer(interactive=False)
    with pytest.raises(KeyboardInterrupt), shown.reply() as stream:
        for i in range(0, cut, 6):
            stream.text(PROSE[i : min(i + 6, cut)])
            clock.now += 0.05
        raise KeyboardInterrupt
    assert recorded(shown) == at_once(PROSE[:cut])


SIMPLE = [
    SENTENCES[0] * 3,
    SENTENCES[1],
    "  two  spaces kept inside  ",
    "**开头加粗**，a**b**c**d**e，末尾**加粗**",
    "按照你之前定下的**核心仓",  # an opening run not closed yet
    "价格 1,450 元**",
    "   三个空格仍是段落",
    "按照你之前定下的*",
    "a**b**c*",
]
NOT_SIMPLE = [
    "# 标题",
    "*",
    "1. 列表",
    "- 列表",
    "* 列表",
    "> 引用",
    "    代码",
    "***",
    "a `b`",
    "[a](b)",
    "&amp;",
    "x\ny",
    "a*b*c",
    "***粗斜***",
    "**“引号”**后",  # a closing run after punctuation may not close: left to markdown-it
    "** 空格**",
    "a\u3000",
    "**a*",
]


@pytest.mark.parametrize("text", SIMPLE + NOT_SIMPLE)
def test_a_block_drawn_without_parsing_looks_as_markdown_draws_it(text):
    console = renderer(interactive=False).console
    view = render.block_view(text)
    assert isinstance(view, render._SimpleParagraph) == (text in SIMPLE)
    for width in (90, 17):
        options = console.options.update_width(width)
        assert console.render_lines(view, options) == console.render_lines(render.markdown_view(text), options)


def test_the_shared_parser_markdown_is_rich_markdown_with_links_shown():
    from rich.markdown import Markdown

    ours, rich_own = render.markdown_view("**a** [b](c)"), Markdown("**a** [b](c)", hyperlinks=False)
    assert vars(ours).keys() == vars(rich_own).keys()
    assert {k: v for k, v in vars(ours).items() if k != "parsed"} == {
        k: v for k, v in vars(rich_own).items() if k != "parsed"
    }
    assert [t.type for t in ours.parsed] == [t.type for t in rich_own.parsed]
    assert render._markdown_class() is render._markdown_class()


def test_a_retried_answer_starts_below_what_was_shown_of_the_cut_off_one():
    shown = renderer(interactive=True)
    with shown.reply() as stream:
        stream.text("第一段说完了。\n\n第二段写到一半")
        stream.retrying("（连接中断，正在重试）")
        stream.text("重新回答的第一段。")
    lines = [line for line in screen(shown.out.getvalue()) if line]
    assert lines == ["第一段说完了。", "第二段写到一半", "（连接中断，正在重试）", "重新回答的第一段。"]
