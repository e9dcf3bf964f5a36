"""A long Markdown table streamed at a reading pace is printed as rows, in chunks drawn once,
at most a few prints a second: the stream renders about the table's own length, not the open
block again and again."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pyte

import pixiu_cli.kernel.render as render
from pixiu_cli.kernel.render import Renderer

HEADER = "| 代码 | 名称 | 收盘 | 涨跌幅 |\n|:---|:---|---:|---:|\n"
ROWS = [f"| {600000 + i:06d} | 样本股{i} | {10 + i * 0.37:.2f} | {(i % 17 - 8) * 0.41:+.2f}% |\n" for i in range(120)]
TABLE = HEADER + "".join(ROWS) + "\n以上为示例数据。\n"


class Clock:
    """time.monotonic for the renderer: the stream's deltas arrive 50 ms apart."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _stream(monkeypatch, text: str) -> tuple[str, int, int]:
    clock = Clock()
    monkeypatch.setattr(render, "time", SimpleNamespace(monotonic=clock))  # render's clock only
    rendered = {"chars": 0, "redraws": 0}
    real_view = render.markdown_view

    def counting_view(text: str):
        rendered["chars"] += len(text)
        return real_view(text)

    monkeypatch.setattr(render, "markdown_view", counting_view)
    out = io.StringIO()
    renderer = Renderer(file=out, rich_output=True)
    renderer.console.width = 100
    real_print = renderer.console.print

    def counting_print(*args, **kwargs):
        rendered["redraws"] += 1
        real_print(*args, **kwargs)

    renderer.console.print = counting_print
    with renderer.reply() as stream:
        for i in range(0, len(text), 6):
            stream.text(text[i : i + 6])
            clock.now += 0.05
    return out.getvalue(), rendered["chars"], rendered["redraws"]


def test_a_long_table_streams_as_rows_not_repeated_renders(monkeypatch):
    output, chars, redraws = _stream(monkeypatch, TABLE)
    screen = pyte.Screen(100, 400)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))
    plain = "\n".join(line.rstrip() for line in screen.display)
    for i in (0, 37, 119):  # every row, whole, on one line, once
        assert len(re.findall(rf"^ *{600000 + i} +样本股{i} +[0-9.]+ +[-+][0-9.]+% *$", plain, re.MULTILINE)) == 1
    assert "以上为示例数据" in plain
    seconds = len(TABLE) / 6 * 0.05
    assert redraws <= seconds * 4 + len(ROWS) / render.TABLE_CHUNK_ROWS + 2, (redraws, seconds)
    # every print renders the header and at most one chunk of rows
    assert chars <= 3 * len(TABLE), (chars, len(TABLE))


def test_short_tables_and_text_are_untouched_by_the_chunking():
    assert render._table_chunk(HEADER + "".join(ROWS[:5])) == (0, 0)
    assert render._table_chunk("普通段落\n" * 40) == (0, 0)
    head, end = render._table_chunk(HEADER + "".join(ROWS[:40]))
    assert head == len(HEADER) and end == len(HEADER) + sum(map(len, ROWS[: render.TABLE_CHUNK_ROWS]))
