"""The only module that prints. Rich for the terminal; plain text when output is piped."""

from __future__ import annotations

import json
import os
import re
import sys
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, cached_property

from pixiu_cli.kernel.safe_text import UNSAFE, inert_json, scrub, visible

# Colour is the one escape a printer itself writes (a chart's lines); every other sequence in
# text bound for a terminal came from data and is made visible.
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def terminal_text(text: str) -> str:
    """`visible`, keeping colour (SGR) sequences: for output composed with its own colours."""
    if not UNSAFE.search(text):
        return text
    pieces, last = [], 0
    for m in _SGR.finditer(text):
        pieces += [visible(text[last : m.start()]), m.group()]
        last = m.end()
    return "".join(pieces) + visible(text[last:])


def one_line(text: str) -> str:
    """`visible`, on one line: line breaks become ' ↵ ', tabs spaces."""
    return " ↵ ".join(visible(text).replace("\t", " ").splitlines())


# rich.markdown (markdown-it, pygments) and rich.table are imported where they are used:
# an import time the REPL need not pay before its prompt shows. rich itself (its console
# and text) is imported on first use too: `pixiu ask` with its output piped
# (a script, `--json`) writes plain text and never needs it.


# What makes rich treat a pipe as a terminal (see rich.console.Console.is_terminal).
_COLOUR_FORCED = frozenset({"FORCE_COLOR", "TTY_COMPATIBLE"})


def _text(*args, **kwargs):
    from rich.text import Text

    return Text(*args, **kwargs)


@dataclass(frozen=True)
class StatusFigures:
    prompt_tokens: int | None
    cache_hit_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    calls: int = 1
    cost: str | None = None  # the turn's cost as shown (¥0.0031), for a priced model


def status_text(f: StatusFigures) -> str:
    def num(v):
        return "未知" if v is None else f"{v:,}"

    if f.cache_hit_tokens is None or not f.prompt_tokens:
        hit = "缓存命中 未知"
    else:
        hit = f"缓存命中 {f.cache_hit_tokens / f.prompt_tokens:.0%}"
    latency = "—" if f.latency_ms is None else f"{f.latency_ms / 1000:.1f} s"
    calls = f" · {f.calls} 次调用" if f.calls > 1 else ""
    cost = f" · 费用 {f.cost}" if f.cost else ""
    return (
        f"输入 {num(f.prompt_tokens)} tokens · {hit} · 输出 {num(f.completion_tokens)} tokens{cost} · {latency}{calls}"
    )


# Streaming cost must stay linear in the reply: re-rendering the whole reply as Markdown on
# every delta made a 160k-character reply take a minute and a 20M one 4.5 GB. Finished
# Markdown blocks (up to a blank line outside a code fence) are rendered and printed once;
# the open block at the end is shown as raw text (rich's live view only for one taller than
# the screen), and one longer than LIVE_TAIL_CHARS continues as plain text. Redrawing the
# open block with rich a few times a second cost four renders of the whole reply at reading
# pace. Nothing beyond SCREEN_CHARS is drawn at all; the whole reply is still stored.
LIVE_TAIL_CHARS = 4_000
REDRAW_SECONDS = 0.25  # finished blocks are printed at most four times a second
SCREEN_CHARS = 200_000
# A table is one block however long: redrawing it whole made a 50 kB table streamed at
# reading pace cost 8.6 renders of itself. Once it has TABLE_CHUNK_ROWS finished rows, its
# columns are fixed from those rows and every later row is printed once, as it finishes.
TABLE_CHUNK_ROWS = 16
TABLE_MAX_COLUMN = 40
# One pass over the open block: code fences toggle, a blank line followed by unindented
# text ends a block (when outside a fence), unless that text is a list item, or may still
# become one: a list goes on across blank lines (and is then drawn loose), so it stays one block.
_BLOCK_MARKS = re.compile(
    r"(?P<fence>^ {0,3}(?:```|~~~))|(?P<end>\n[ \t]*\n+(?=\S)(?!(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)|(?:[-*+]|[0-9]{1,9}[.)]?)\Z))",
    re.MULTILINE,
)


def _last_block_end(text: str) -> int:
    """Where the last finished block of `text` ends (0 if none), in one pass."""
    end, in_fence = 0, False
    for match in _BLOCK_MARKS.finditer(text):
        if match.group("fence"):
            in_fence = not in_fence
        elif not in_fence:
            end = match.end()
    return end


_TABLE_HEAD = re.compile(r" {0,3}\|[^\n]*\n {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\n")


def _table_chunk(text: str) -> tuple[int, int]:
    """(end of the header, end of its first TABLE_CHUNK_ROWS rows) when `text`, an open
    block, is a table with that many finished rows; else (0, 0)."""
    head = _TABLE_HEAD.match(text)
    if not head:
        return 0, 0
    end = head.end()
    for _ in range(TABLE_CHUNK_ROWS):
        newline = text.find("\n", end)
        if newline < 0 or not _is_row(text[end:newline]):
            return 0, 0
        end = newline + 1
    return head.end(), end


def _is_row(line: str) -> bool:
    return line.lstrip(" ").startswith("|")


def _cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip().replace("**", "").replace("`", "") for cell in inner.split("|")]


def _justify(mark: str) -> str:
    if len(mark) > 1 and mark.startswith(":") and mark.endswith(":"):
        return "center"
    return "right" if mark.endswith(":") else "left"


class _TableRows:
    """A long table printed row by row in columns fixed by its header and first rows."""

    def __init__(self, head: str, rows: list[str]):
        from rich.cells import cell_len

        header, align = head.rstrip("\n").split("\n")
        self.header = _cells(header)
        marks = _cells(align) + [""] * len(self.header)
        self.justify = [_justify(mark) for mark in marks]
        table = [self.header] + [_cells(r) for r in rows]
        self.widths = [  # with room for later, longer cells (longer still: folded)
            min(TABLE_MAX_COLUMN, 2 + max(cell_len(r[i]) if i < len(r) else 0 for r in table))
            for i in range(len(self.header))
        ]

    def render(self, rows: list[str], *, header: bool):
        from rich import box
        from rich.table import Table

        table = Table(box=box.SIMPLE_HEAVY if header else None, show_header=header, show_edge=False, pad_edge=False)
        for i, title in enumerate(self.header):
            table.add_column(title, width=self.widths[i], justify=self.justify[i], overflow="fold")
        for row in rows:
            cells = _cells(row)
            table.add_row(*(cells + [""] * len(self.header))[: len(self.header)])
        return table


# A line Markdown shows as one paragraph of text, with at most **strong** runs: no other
# inline mark, entity or escape, and no start of a heading, quote, list, rule, fence, HTML
# block or indented code.
_SIMPLE_LINE = re.compile(r"(?! {4}| {0,3}(?:[#>=+\-<]|\*(?!\*)|[0-9]{1,9}[.)]|```|~~~))[^\n\t`_\[\]<>&~\\|]*")
_RULE = re.compile(r" {0,3}([-*_])([ \t]*\1){2,}[ \t]*")


class _OpenBlock:
    """The open block: rendered once, when it is finished (or the reply ends), never per delta."""

    def __init__(self):
        self.text = ""
        self.after = ""  # the blocks printed just before it, if any
        self.hidden = False  # a long table's rows are printed as they finish, the open one raw

    @property
    def gap(self) -> bool:
        """Whether Markdown printed in one piece would put a blank line here: after any block
        but a rule (unless what follows draws its own, see `_spaced`)."""
        if not self.after:
            return False
        last_block = re.split(r"\n[ \t]*\n", self.after.strip("\n"))[-1]
        return not _RULE.fullmatch(last_block)

    def __rich_console__(self, console, options):
        if self.hidden or not self.text.strip():
            return
        yield from _spaced(block_view(self.text), self.gap)


# Rich starts these with a blank line of its own: the paragraphs (cells) inside them end
# with one, and rich puts it before the next element drawn at the top level.
_OWN_GAP_TOKENS = frozenset({"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"})


def _spaced(markdown, gap: bool) -> list:
    """`markdown` after a blank line when `gap` and it does not draw one itself."""
    if isinstance(markdown, _SimpleParagraph):
        markdown.gap = gap  # drawn by the paragraph: one renderable less for rich to print
        return [markdown]
    own = bool(markdown.parsed) and markdown.parsed[0].type in _OWN_GAP_TOKENS
    return [_text(""), markdown] if gap and not own else [markdown]


class _SimpleParagraph:
    """A one-line paragraph drawn exactly as rich's Markdown draws it, without parsing it: a
    streamed reply prints its blocks one by one, and parsing and walking the tokens cost
    more than drawing the text. `pieces` alternate plain and strong text; `gap` puts the
    blank line Markdown would put before it."""

    parsed = ()  # no tokens: a paragraph draws no blank line of its own
    gap = False

    def __init__(self, pieces: list[str]):
        self.pieces = pieces

    def __rich_console__(self, console, options):
        from rich.segment import Segment
        from rich.text import Text

        if self.gap:
            yield Segment.line()

        plain = console.get_style("none") + console.get_style("markdown.paragraph", default="none")
        strong = plain + console.get_style("markdown.strong", default="none")
        text = Text(justify="left")
        for i, piece in enumerate(self.pieces):
            text.append(piece, strong if i % 2 else plain)
        yield text


def _simple_paragraph(text: str) -> _SimpleParagraph | None:
    """`text` as a _SimpleParagraph when Markdown makes one line of text of it, with at most
    **strong** runs whose inner ends are letters (so CommonMark's flanking rules hold)."""
    lead = text.lstrip("\n").rstrip(" \n")  # leading spaces may make indented code
    line = lead.lstrip(" ")
    if not line or line != line.strip() or not _SIMPLE_LINE.fullmatch(lead):
        return None
    # a last lone star (half of a run still arriving) closes nothing: shown as it is
    last = "*" if line.endswith("*") and not line.endswith("**") else ""
    pieces = line.removesuffix(last).split("**")
    if any("*" in piece for piece in pieces):  # a run of one or three stars
        return None
    if len(pieces) % 2 == 0:  # an opening run not closed (yet): shown as it is
        if last:  # it would take the lone star
            return None
        pieces[-2:] = [pieces[-2] + "**" + pieces[-1]]
    pieces[-1] += last
    for strong in pieces[1::2]:
        if not strong or _not_a_letter(strong[0]) or _not_a_letter(strong[-1]):
            return None
    return _SimpleParagraph(pieces)


def _not_a_letter(char: str) -> bool:

    return char.isspace() or unicodedata.category(char)[0] in "PS"


def block_view(text: str):
    """A block of Markdown for the terminal: a simple paragraph without parsing it."""
    return _simple_paragraph(text) or markdown_view(text)


def markdown_view(text: str):
    """Markdown for the terminal. Links show their target: an OSC 8 hyperlink would hide
    where a click goes behind innocent-looking text."""
    return _markdown_class()(text)


@cache
def _markdown_class():
    """rich's Markdown with one markdown-it parser for every render: building a parser (its
    rule chains) cost more than parsing a streamed block with it."""
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown

    parser = MarkdownIt().enable("strikethrough").enable("table")  # as Markdown.__init__ builds it

    class SharedParserMarkdown(Markdown):
        def __init__(self, markup: str):
            self.markup = markup
            self.parsed = parser.parse(markup)
            self.code_theme = self.inline_code_theme = "monokai"
            self.justify, self.style, self.hyperlinks, self.inline_code_lexer = None, "none", False, None

    return SharedParserMarkdown


def warm() -> None:
    """Import and set up rich's Markdown (markdown-it) before the first reply, so the first
    reply does not wait for it."""
    markdown_view("**warm**")


# Bold on and off: a `**` run in the raw text is shown as rich will draw it, not as marks.
_BOLD, _NOT_BOLD = "\x1b[1m", "\x1b[22m"


class _RawArea:
    """The rows a streamed reply's raw text occupies below what was printed for good: the
    text as received (`**` runs in bold), written straight to the terminal, O(delta) per
    delta, then erased and replaced by rich's rendering when its blocks finish. Counts the
    rows the terminal gives the text (wide characters take two cells)."""

    def __init__(self, file, width: int, height: int):
        from rich.cells import cell_len, get_character_cell_size

        self.file, self.width, self.max_rows = file, max(width, 1), max(height - 2, 0)
        self.cell_len, self.char_cells = cell_len, get_character_cell_size
        self.rows = self.col = 0
        self.used = self.bold = self.star = False  # star: a last "*" held back, maybe half of "**"

    def write(self, text: str) -> bool:
        """Write `text` (already `visible`) unless the area would outgrow the screen: erasing
        can only move the cursor up to the screen's first row."""
        if "\t" in text:
            text = text.replace("\t", "    ")  # where a tab stop falls is the terminal's business
        if "*" in text or self.star:
            return self._write_marked(text)
        rows, col, text = self._wrapped(text)
        if rows > self.max_rows:
            return False
        self.rows, self.col = rows, col
        self._emit(text)
        return True

    def _write_marked(self, text: str) -> bool:
        saved = self.rows, self.col, self.bold, self.star
        text = "*" + text if self.star else text
        self.star = text.endswith("*") and not text.endswith("**")
        out = []
        for i, piece in enumerate((text[:-1] if self.star else text).split("**")):
            if i:
                self.bold = not self.bold
                out.append(_BOLD if self.bold else _NOT_BOLD)
            self.rows, self.col, shown = self._wrapped(piece)
            out.append(shown)
        if self.rows > self.max_rows:
            self.rows, self.col, self.bold, self.star = saved
            return False
        self._emit("".join(out))
        return True

    def _emit(self, text: str) -> None:
        self.used = self.used or bool(text)
        self.file.write(text)
        self.file.flush()

    def _wrapped(self, text: str) -> tuple[int, int, str]:
        """Where `text` leaves the cursor, and the text to write: a wide character that does not
        fit at the end of a row is put after spaces to the end of it, so every terminal (some
        wrap it early, some draw half of it) puts it at the start of the next row."""
        if "\n" not in text and (col := self.col + self.cell_len(text)) <= self.width:
            return self.rows, col, text  # within the row: most deltas
        rows, col, pieces = self.rows, self.col, []
        for char in text:
            if char == "\n":
                rows, col = rows + 1, 0
            elif col + (cells := self.char_cells(char)) > self.width:
                if col < self.width:
                    pieces.append(" " * (self.width - col))
                rows, col = rows + 1, cells
            else:
                col += cells
            pieces.append(char)
        return rows, col, "".join(pieces)

    def erase(self) -> None:
        """Move to the area's first row and clear to the end of the screen, not bold."""
        if self.used:
            move = f"\x1b[{self.rows}A" if self.rows else ""
            self.file.write((_NOT_BOLD if self.bold else "") + "\r" + move + "\x1b[J")
        self.rows = self.col = 0
        self.used = self.bold = self.star = False


class ReplyStream:
    """Streams one reply: reasoning dimmed, the answer as Markdown, block by block. On a
    terminal the open block is its raw text as it arrives; each block is rendered once, when
    it finishes, in place of its raw text. Elsewhere only finished blocks are printed."""

    def __init__(self, renderer: Renderer):
        self.r = renderer
        self._last = ""  # the answer's last character so far: whether it ended a line
        self._area: _RawArea | None = None  # on a terminal only: see _RawArea
        self._live = None  # rich's live view, only for an open block taller than the screen
        self._stale = False  # the area does not show the open block (yet)
        self._tail = _OpenBlock()
        self._plain = False  # the open block outgrew the screen: the rest is plain text
        self._rows: _TableRows | None = None  # a long table being printed row by row
        self._done: list = []  # finished output not yet printed: printed with the next redraw
        self._done_chars = 0
        self._shown = 0
        self._received = 0
        self._drawn_at: float | None = None
        self._thought = self._thought_shown = 0
        self._in_reasoning = False

    def reasoning(self, delta: str) -> None:
        """Dimmed above the answer on a terminal. With stdout piped the answer is all that goes
        there: the reasoning goes to stderr when that is a terminal, else only to the record."""
        shown = self.r.thinking_console
        self._flush()  # what the answer finished so far goes first; its open block comes back after
        if not self._in_reasoning:
            self._in_reasoning = True
            if shown is not None:
                shown.print(_text("思考中…", style="dim italic"))
        self._thought += len(delta)
        room = SCREEN_CHARS - self._thought_shown
        if room > 0 and shown is not None:
            self._thought_shown += min(room, len(delta))
            shown.print(_text(visible(delta[:room]), style="dim"), end="")

    def text(self, delta: str) -> None:
        if self._in_reasoning:
            self._in_reasoning = False
            if (shown := self.r.thinking_console) is not None:
                shown.print()
        if not self.r.rich_output:
            delta = visible(delta)  # a pipe shows it to a terminal too, or to a file one will
            self._last = delta[-1:] or self._last
            self.r.out.write(delta)
            self.r.out.flush()
            return
        self._received += len(delta)
        room = SCREEN_CHARS - self._shown
        if room <= 0:
            return
        chunk = delta[:room]
        self._shown += len(chunk)
        delta = visible(chunk)
        self._last = delta[-1:] or self._last
        if self._plain:
            self.r.console.print(_text(delta), end="")
            return
        # A block can only end, or a table row finish, where a line does: with no line break
        # in the delta or just before it, the open block is not searched again.
        broken = "\n" in delta or self._tail.text.rstrip(" \t").endswith("\n")
        self._tail.text += delta
        if broken:
            self._finish_blocks()
        if self._rows is None and len(self._tail.text) > LIVE_TAIL_CHARS:
            self._go_plain()
            return
        now = time.monotonic()
        if self._drawn_at is None:
            self._drawn_at = now  # a reply that arrives at once is printed once
        elif (self._done or self._live) and (
            now - self._drawn_at >= REDRAW_SECONDS or self._done_chars > LIVE_TAIL_CHARS
        ):
            self._redraw()
            self._drawn_at = now
        if self._live is None:
            self._draw(delta)

    def _redraw(self) -> None:
        """Print what finished; a live view (for a block taller than the screen) is redrawn,
        or closed once its block is printed: the next open block is raw text again."""
        if self._live is None:
            self._flush()
        elif not self._done:
            self._live.refresh()
        else:
            self._tail.text, open_text = "", self._tail.text
            self._flush()  # above the live view, which is left empty and closed
            self._live.stop()
            self._live, self._tail.text, self._stale = None, open_text, True

    def _draw(self, delta: str) -> None:
        """Show the delta raw on a terminal, or the whole open block after a print."""
        area = self._terminal_area()
        if area is None:
            return
        if area.write(self._open_raw() if self._stale else delta):
            self._stale = False
            return
        if self._done:  # printing the finished blocks leaves room for the open one
            self._flush()
            if area.write(self._open_raw()):
                self._stale = False
                return
        self._start_live()

    def _start_live(self) -> None:
        """A block taller than the screen cannot be erased: it is drawn by rich's live view
        (what fits of it, redrawn a few times a second) until it is finished."""
        from rich.live import Live

        self._flush()
        self._live = Live(self._tail, console=self.r.console, auto_refresh=False, vertical_overflow="ellipsis")
        self._live.start(refresh=True)

    def _terminal_area(self) -> _RawArea | None:
        if self._area is None and self.r.console.is_interactive:
            console = self.r.console
            self._area = _RawArea(console.file, console.width, console.height)
        return self._area

    def _open_raw(self) -> str:
        """The open block as raw text, after the blank line Markdown would put before it."""
        text = self._tail.text
        return "\n" + text if text.strip() and self._tail.gap else text

    def _go_plain(self) -> None:
        """The open block is too long to redraw: drawn as it is so far, the rest as plain text."""
        self._stop()
        self._plain = True

    def _finish_blocks(self) -> None:
        """Move what the open block finished (blocks, a long table's rows) to the output."""
        if self._rows is not None:
            self._print_table_rows()
            if self._rows is not None:
                return
        end = _last_block_end(self._tail.text)
        if end:
            done = _spaced(block_view(self._tail.text[:end]), self._tail.gap)
            self._tail.text, self._tail.after = self._tail.text[end:], self._tail.text[:end]
            self._commit(done, end)
        self._print_table_rows()

    def _print_table_rows(self) -> None:
        """A table that reached TABLE_CHUNK_ROWS rows: its header and those rows printed for
        good, and from then on each row as it finishes; nothing of it is redrawn."""
        if self._rows is None:
            head, end = _table_chunk(self._tail.text)
            if not end:
                return
            rows = self._tail.text[head:end].splitlines()
            self._rows = _TableRows(self._tail.text[:head], rows)
            printed = [_text("")] * self._tail.gap + [self._rows.render(rows, header=True)]
            self._tail.text, self._tail.after, self._tail.hidden = self._tail.text[end:], "", True
            self._commit(printed, end)
        finished, ended = [], False
        while "\n" in self._tail.text and not ended:
            line, rest = self._tail.text.split("\n", 1)
            ended = not _is_row(line)
            if not ended:
                finished.append(line)
                self._tail.text = rest
        if finished:
            self._commit([self._rows.render(finished, header=False)], sum(map(len, finished)))
        if ended:  # the next block is set apart from the table
            self._rows, self._tail.after, self._tail.hidden = None, "|", False

    def _commit(self, renderables: list, chars: int) -> None:
        """Finished output, drawn once for good with the next redraw: one print a redraw, not
        one a block, and until then the screen shows its raw text."""
        self._done += renderables
        self._done_chars += chars

    def _flush(self) -> bool:
        """Print the finished output in place of the raw text on screen (which is then no
        longer showing the open block: it is written again with the next delta)."""
        if self._area is not None and self._area.used:
            self._area.erase()
            self._stale = True
        if not self._done:
            return False
        self.r.console.print(*self._done)
        self._done, self._done_chars = [], 0
        return True

    def notice(self, line: str) -> None:
        self._end_blocks()
        if not self.r.rich_output and self._last not in ("", "\n"):
            self.r.out.write("\n")  # piped: the notice is a line of its own, not the answer's tail
        self._last = ""
        self.r.info(line)

    def retrying(self, line: str) -> None:
        """Only on a terminal: a script reading stdout gets the answer and nothing else. The
        answer starts again below the line: what was shown of the cut-off one stays as it is."""
        if self.r.rich_output:
            self._end_blocks()
            self.r.dim(line)

    def _end_blocks(self) -> None:
        """Draw what is open for good; text after this starts a fresh block."""
        self._stop()
        self._end_plain()
        self._tail, self._plain, self._rows, self._stale = _OpenBlock(), False, None, False

    def _stop(self) -> None:
        """Everything received drawn in its finished form (at the end, or on Ctrl-C)."""
        if self._rows is not None:  # a long table was the last thing: its unfinished last row
            if self._tail.text.strip():
                self._commit([self._rows.render([self._tail.text], header=False)], len(self._tail.text))
            self._rows, self._tail.text, self._tail.hidden = None, "", False
        if self._live is not None:
            self._flush()
            self._live.stop()  # its last refresh draws the open block in full
            self._live = None
        elif self._tail.text.strip() and not self._plain:
            self._done.append(self._tail)
        self._flush()
        self._stale = False

    def _end_plain(self) -> None:
        if self._plain and self._last != "\n":
            self.r.console.print()

    def close(self) -> None:
        if self.r.rich_output:
            self._stop()
            self._end_plain()
            if self._thought > self._thought_shown:
                self.r.dim(
                    f"（思考过程共 {self._thought:,} 字，屏幕上只显示了前 {self._thought_shown:,} 字；已完整保存。）"
                )
            if self._received > self._shown:
                self.r.dim(f"（回复共 {self._received:,} 字，屏幕上只显示了前 {self._shown:,} 字；完整回复已保存。）")
        elif self._last not in ("", "\n"):
            self.r.out.write("\n")
            self.r.out.flush()


class Renderer:
    def __init__(self, *, file=None, rich_output: bool | None = None, stderr=None):
        self.out = file or sys.stdout
        self.rich_output = self.out.isatty() if rich_output is None else rich_output
        self._force_terminal = self.rich_output if rich_output is not None else None
        self._err = stderr or sys.stderr

    @cached_property
    def console(self):
        from rich.console import Console

        return Console(
            file=self.out, highlight=False, soft_wrap=not self.rich_output, force_terminal=self._force_terminal
        )

    @cached_property
    def thinking_console(self):
        """Where a reply's reasoning is shown: with the answer on a terminal; on stderr when
        only that is a terminal (`pixiu ask … | less`); nowhere when neither is."""
        if self.rich_output:
            return self.console
        isatty = getattr(self._err, "isatty", None)
        return self.err_console if isatty is not None and isatty() else None

    @cached_property
    def err_console(self):
        from rich.console import Console

        return Console(file=self._err, highlight=False, soft_wrap=True)

    # plain lines ---------------------------------------------------------------
    def line(self, text: str = "") -> None:
        self._print(visible(text))

    def info(self, text: str) -> None:
        self._print(visible(text), style="cyan")

    def dim(self, text: str) -> None:
        self._print(visible(text), style="dim")

    def _print(self, text: str, style: str | None = None) -> None:
        if self._plain(text):
            self.out.write(text + "\n")
            self.out.flush()
        else:
            self.console.print(_text(text, style=style))

    def _plain(self, text: str) -> bool:
        """True where rich would write `text` (already `visible`) as it is, plus a line break:
        output that is no terminal to rich drops styles and, soft-wrapped, never wraps; so a
        piped command's lines need not import rich. Not for a tab (rich expands it to the
        next multiple of 8 cells) or where the environment may make rich colour a pipe."""
        if self.rich_output or "\t" in text:
            return False
        return self._force_terminal is False or not _COLOUR_FORCED.intersection(os.environ)

    def warn(self, text: str) -> None:
        self._print_err(f"注意：{one_line(scrub(text))}", "yellow")

    def error(self, text: str) -> None:
        """One line, to stderr when piped so scripts can still read stdout. Error lines are
        often built from exception messages: known secrets are scrubbed from them."""
        line = f"错误：{one_line(scrub(text))}"
        if self.rich_output:
            self.console.print(_text(line, style="bold red"))
        else:
            self._print_err(line, "bold red")

    def _print_err(self, line: str, style: str) -> None:
        """A line on stderr; written as it is when rich would write it so (stderr no terminal,
        nothing to strip or expand in it): a failing command run from a script need not
        import rich to say why."""
        if line.isprintable() and not self._err_terminal() and not _COLOUR_FORCED.intersection(os.environ):
            self._err.write(line + "\n")
            self._err.flush()
        else:
            self.err_console.print(_text(line, style=style))

    def _err_terminal(self) -> bool:
        isatty = getattr(self._err, "isatty", None)
        return isatty is None or isatty()

    def raw(self, text: str) -> None:
        """Text as given when piped (made inert by its caller where it is not pixiu's own);
        on a terminal, escapes other than colour made inert."""
        self.out.write(terminal_text(text) if self.rich_output else text)
        if not text.endswith("\n"):
            self.out.write("\n")
        self.out.flush()

    def chart(self, text: str) -> None:
        """A chart drawn as text: on a terminal its colours kept, anything else that would act
        on the terminal made visible; piped, no escape sequence at all (colours included)."""
        self.raw(terminal_text(text) if self.rich_output else visible(_SGR.sub("", text)))

    def json(self, value, *, indent: int | None = 2) -> None:
        """A value as a JSON document, non-ASCII kept as written (`--json` output); on a
        terminal, invisible or reordering characters as \\u escapes (the same value)."""
        self.json_text(json.dumps(value, ensure_ascii=False, indent=indent), exact_when_piped=True)

    def json_text(self, text: str, *, exact_when_piped: bool = False) -> None:
        """A JSON document. On a terminal its invisible or reordering characters are escaped;
        with `exact_when_piped` the bytes stay exactly as given when output is not a terminal."""
        self.raw(text if exact_when_piped and not self.rich_output else inert_json(text))

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question on the terminal; anything but y/yes/是 is a no."""
        answer = self.console.input(f"{visible(question)} [y/N] ", markup=False)  # [y/N] is not a style
        return answer.strip().lower() in ("y", "yes", "是")

    def markdown(self, text: str) -> None:
        if self.rich_output:
            self.console.print(markdown_view(visible(text)))
        else:
            self.raw(visible(text))

    # composed output -----------------------------------------------------------
    def banner(self, *, mode_line: str, conversation_line: str) -> None:
        self.console.print(_text("貔貅 pixiu · A 股投资助理", style="bold"))
        self.console.print(_text(visible(mode_line), style="yellow" if "离线" in mode_line else "green"))
        self.dim(conversation_line)
        self.dim("输入 /help 查看命令；Enter 发送，Alt-Enter 或 Ctrl-J 换行；Ctrl-C 中断回复，Ctrl-D 退出。")

    def status(self, figures: StatusFigures) -> None:
        self.dim(status_text(figures))

    def table(self, title: str | None, columns: list[str], rows: list[list[str]]) -> None:
        if not self.rich_output:
            if title:
                self.raw(one_line(title))
            self.raw("\t".join(one_line(c) for c in columns))
            for row in rows:
                self.raw("\t".join(one_line(cell) for cell in row))
            return
        from rich.table import Table

        # Cells hold stored text (titles, notes, previews): plain Text, never Rich markup,
        # so "[/bold]" or "[red]" in a note is shown as written instead of raising or vanishing.
        table = Table(title=_text(visible(title)) if title else None, show_lines=False, header_style="bold")
        for column in columns:
            table.add_column(_text(visible(column)), overflow="fold")
        for row in rows:
            table.add_row(*(_text(visible(cell)) for cell in row))
        self.console.print(table)

    def bar(self, label: str, filled: int, empty: int, caption: str) -> None:
        text = _text(f"{label} ")
        text.append("█" * filled, style="green")
        text.append("░" * empty, style="red")
        text.append(f" {caption}", style="dim")
        self.console.print(text)

    def chart_size(self) -> dict[str, int]:
        """Width and height for a terminal chart: the terminal's, within sensible bounds."""
        width, height = self.console.size
        return {"width": max(60, min(width, 160)), "height": max(15, min(height - 4, 30))}

    @contextmanager
    def progress(self, total: int, label: str, *, show: bool = True):
        """Yields advance(): a rich progress bar on a terminal when `show`, else nothing."""
        if not (show and self.rich_output):
            yield lambda: None
            return
        from rich.progress import Progress

        with Progress(console=self.console, transient=True) as bar:
            task = bar.add_task(label, total=total)
            yield lambda: bar.advance(task)

    @contextmanager
    def reply(self):
        stream = ReplyStream(self)
        try:
            with self._no_echo():
                yield stream
        finally:
            stream.close()

    @contextmanager
    def _no_echo(self):
        """While a reply is drawn, keys typed are not echoed: the terminal's echo of ^C (or of
        type-ahead) moves the cursor under the raw text of the open block, whose erasing
        then misses a row. Type-ahead stays queued for the next prompt."""
        restore = _echo_off() if self.rich_output else None
        try:
            yield
        finally:
            if restore is not None:
                restore()


def _echo_off():
    """Turn off the echo of the terminal on stdin; returns how to turn it back on, or None
    when stdin is not a terminal (or there are no termios)."""
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except Exception:  # no termios (Windows), no fileno, not a tty
        return None
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    try:
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except termios.error:
        return None
    return lambda: termios.tcsetattr(fd, termios.TCSANOW, saved)
