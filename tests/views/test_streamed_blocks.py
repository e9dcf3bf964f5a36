"""A streamed reply prints each finished Markdown block once, above one live view that holds
only the open block: what it leaves is what one render of the whole answer prints, and the
work done (live views started, redraws, blocks parsed) follows the blocks, not the deltas."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pyte
import pytest
from rich.console import Console
from rich.live import Live

import pixiu_cli.kernel.render as render
from pixiu_cli.kernel.render import Renderer

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


def test_each_finished_block_is_rendered_once_and_no_delta_is_rendered(monkeypatch):
    finished, parsed, prints = [], [], []
    real_commit, real_view, real_print = render.ReplyStream._commit, render.markdown_view, Console.print

    def commit(stream, renderables, chars):
        finished.append(stream._tail.after.strip())
        real_commit(stream, renderables, chars)

    monkeypatch.setattr(Live, "start", lambda self, *a, **k: pytest.fail("no live view"))
    monkeypatch.setattr(render.ReplyStream, "_commit", commit)
    monkeypatch.setattr(render, "markdown_view", lambda text: (parsed.append(text), real_view(text))[1])
    monkeypatch.setattr(Console, "print", lambda self, *a, **k: (prints.append(a), real_print(self, *a, **k)))
    output = streamed(monkeypatch, PROSE, 6, interactive=True)
    assert finished == PROSE.split("\n\n")[:-1]
    # one-line paragraphs, with or without **strong** runs, are drawn without parsing
    assert parsed == []
    # rich prints finished blocks only; the open block is its raw text, written once
    # (and again after a print, from the start of the open block)
    assert sum(len(a) for a in prints) == len(PROSE.split("\n\n")) and len(prints) <= len(finished) + 1
    assert len(output) < 2 * len(PROSE) + len(at_once(PROSE, interactive=True))
    streamed(monkeypatch, MIXED, 6, interactive=True)
    assert "## 茅台的看法" in finished and parsed


def test_finished_blocks_are_printed_at_most_a_few_times_a_second(monkeypatch):
    prints = []
    real_print = Console.print
    monkeypatch.setattr(Console, "print", lambda self, *a, **k: (prints.append(1), real_print(self, *a, **k)))
    streamed(monkeypatch, PROSE, 1, interactive=True)
    seconds = len(PROSE) * 0.05
    assert len(prints) <= seconds / render.REDRAW_SECONDS + 1
    prints.clear()
    streamed(monkeypatch, PROSE, len(PROSE), interactive=True)  # all at once: printed once
    assert len(prints) == 1


@pytest.mark.parametrize("interactive", [False, True], ids=["recorded", "terminal"])
def test_an_interrupted_stream_leaves_what_it_had_received(monkeypatch, interactive):
    clock = Clock()
    monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))
    cut = PROSE.index(SENTENCES[3], 400) + 10  # mid-paragraph, after finished blocks
    shown = renderer(interactive=interactive)
    with pytest.raises(KeyboardInterrupt), shown.reply() as stream:
        for i in range(0, cut, 6):
            stream.text(PROSE[i : min(i + 6, cut)])
            clock.now += 0.05
        raise KeyboardInterrupt
    if interactive:  # the open block's raw text replaced by its finished form
        assert screen(shown.out.getvalue()) == screen(at_once(PROSE[:cut], interactive=True))
    else:
        assert recorded(shown) == at_once(PROSE[:cut])


def scrolled(output: str, rows: int) -> list[str]:
    """Every line a terminal `rows` high showed, those scrolled off the top included."""
    lines = pyte.HistoryScreen(90, rows, history=10_000)
    pyte.Stream(lines).feed(output.replace("\n", "\r\n"))
    shown = ["".join(line[x].data for x in range(90)).rstrip() for line in lines.history.top]
    shown += [line.rstrip() for line in lines.display]
    while shown and not shown[-1]:
        shown.pop()
    return shown


LONG = "".join(SENTENCES) * 6  # one paragraph of 24 sentences: 12 rows at 90 columns


@pytest.mark.parametrize("rows", [12, 40])
@pytest.mark.parametrize(
    "text", [PROSE, "x" + PROSE, MIXED, "前言。\n\n" + LONG + "\n\n后记。\n"], ids=["prose", "odd", "mixed", "tall"]
)
def test_erased_rows_leave_no_trace_on_a_small_terminal(monkeypatch, text, rows):
    """The raw text of the open block is erased row by row, wide characters included (one
    that would straddle the right edge starts the next row), with the screen scrolling under
    it; a block taller than the screen is drawn by rich's live view until it is finished."""
    for size in (1, 6, 37):
        shown = renderer(interactive=True)
        shown.console.height = rows
        clock = Clock()
        monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))
        with shown.reply() as stream:
            for i in range(0, len(text), size):
                stream.text(text[i : i + size])
                clock.now += 0.05
        lines = scrolled(shown.out.getvalue(), rows)
        assert lines == scrolled(at_once(text, interactive=True), rows)


def test_the_open_block_shows_strong_runs_in_bold_without_their_marks():
    shown = renderer(interactive=True)
    lines = pyte.Screen(90, 10)
    feed = pyte.Stream(lines)
    with shown.reply() as stream:
        for char in "按照**核心仓**的规则，a*b*c，1 * 2":
            stream.text(char)
        feed.feed(shown.out.getvalue())
        assert lines.display[0].rstrip() == "按照核心仓的规则，a*b*c，1 * 2"
        assert [lines.buffer[0][x].bold for x in (0, 4, 10)] == [False, True, False]
        stream.text("\n\n第二段")
    assert screen(shown.out.getvalue())[:3] == ["按照核心仓的规则，abc，1 * 2", "", "第二段"]


def test_reasoning_goes_above_the_answer_and_the_open_block_comes_back_below_it(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))
    shown = renderer(interactive=True)
    with shown.reply() as stream:
        stream.reasoning("先看估值。")
        stream.text("第一段说完了。\n\n第二段")
        stream.reasoning("再想想。")
        stream.text("写完了。\n")
    lines = [line for line in screen(shown.out.getvalue()) if line]
    assert lines == ["思考中…", "先看估值。", "第一段说完了。", "思考中…", "再想想。", "第二段写完了。"]


def test_a_console_that_is_no_terminal_gets_no_raw_text_and_no_cursor_movement(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))
    shown = renderer(interactive=False)
    with shown.reply() as stream:
        for i in range(0, len(MIXED), 6):
            stream.text(MIXED[i : i + 6])
            clock.now += 0.05
            assert "**" not in shown.out.getvalue()  # only finished, rendered blocks
    assert "\x1b[J" not in shown.out.getvalue() and "\x1b[" + "2A" not in shown.out.getvalue()
    assert recorded(shown) == at_once(MIXED)


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
