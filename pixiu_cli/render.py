"""The only module that prints. Rich for the terminal; plain text when output is piped."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

# Terminal-safe text. Stored text (notes, news, titles, replies) and echoed input reach the
# terminal, so control characters must not act on it: ESC sequences could clear the
# screen, set the title or write the clipboard, a carriage return could overwrite a line.
# C0 controls other than newline and tab become their visible Control Pictures (␛, ␇ …),
# carriage returns are dropped, DEL and C1 controls and lone surrogates (which would also
# fail to encode) become U+FFFD. Piped output (`raw`, plain replies) stays verbatim.
_VISIBLE = {c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\n\t\r"}
_VISIBLE.update({ord("\r"): None, 0x7F: "\ufffd"})
_VISIBLE.update({c: "\ufffd" for c in (*range(0x80, 0xA0), *range(0xD800, 0xE000))})


def visible(text: str) -> str:
    """`text` with every control character made inert (see above); newlines and tabs kept."""
    return text.translate(_VISIBLE)


def one_line(text: str) -> str:
    """`visible`, on one line: line breaks become ' ↵ ', tabs spaces."""
    return " ↵ ".join(visible(text).replace("\t", " ").splitlines())


# rich.markdown (markdown-it, pygments) and rich.table are imported where they are used:
# together ~50 ms that the REPL need not pay before its prompt shows.


@dataclass(frozen=True)
class StatusFigures:
    prompt_tokens: int | None
    cache_hit_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    calls: int = 1


def status_text(f: StatusFigures) -> str:
    def num(v):
        return "未知" if v is None else f"{v:,}"

    if f.cache_hit_tokens is None or not f.prompt_tokens:
        hit = "缓存命中 未知"
    else:
        hit = f"缓存命中 {f.cache_hit_tokens / f.prompt_tokens:.0%}"
    latency = "—" if f.latency_ms is None else f"{f.latency_ms / 1000:.1f} s"
    calls = f" · {f.calls} 次调用" if f.calls > 1 else ""
    return f"输入 {num(f.prompt_tokens)} tokens · {hit} · 输出 {num(f.completion_tokens)} tokens · {latency}{calls}"


class ReplyStream:
    """Streams one reply: reasoning dimmed, the answer as live-updating Markdown."""

    def __init__(self, renderer: "Renderer"):
        self.r = renderer
        self.answer = ""
        self._live = None
        self._in_reasoning = False

    def reasoning(self, delta: str) -> None:
        if not self._in_reasoning:
            self._in_reasoning = True
            self.r.console.print(Text("思考中…", style="dim italic"))
        self.r.console.print(Text(visible(delta), style="dim"), end="")

    def text(self, delta: str) -> None:
        if self._in_reasoning:
            self._in_reasoning = False
            self.r.console.print()
        if not self.r.rich_output:
            self.answer += delta
            self.r.out.write(delta)
            self.r.out.flush()
            return
        self.answer += visible(delta)
        from rich.markdown import Markdown

        if self._live is None:
            from rich.live import Live

            self._live = Live(console=self.r.console, refresh_per_second=10, vertical_overflow="visible")
            self._live.start()
        self._live.update(Markdown(self.answer))

    def notice(self, line: str) -> None:
        self._stop_live()
        self.r.info(line)

    def _stop_live(self) -> None:
        if self._live is not None:
            from rich.markdown import Markdown

            self._live.update(Markdown(self.answer))
            self._live.stop()
            self._live = None
            # text after a notice starts a fresh block
            self.answer = ""

    def close(self) -> None:
        if self._live is not None:
            from rich.markdown import Markdown

            self._live.update(Markdown(self.answer))
            self._live.stop()
            self._live = None
        elif not self.r.rich_output and self.answer and not self.answer.endswith("\n"):
            self.r.out.write("\n")
            self.r.out.flush()


class Renderer:
    def __init__(self, *, file=None, rich_output: bool | None = None, stderr=None):
        self.out = file or sys.stdout
        self.rich_output = self.out.isatty() if rich_output is None else rich_output
        self.console = Console(file=self.out, highlight=False, soft_wrap=not self.rich_output,
                               force_terminal=self.rich_output if rich_output is not None else None)
        self.err_console = Console(file=stderr or sys.stderr, highlight=False, soft_wrap=True)

    # plain lines ---------------------------------------------------------------
    def line(self, text: str = "") -> None:
        self.console.print(Text(visible(text)))

    def info(self, text: str) -> None:
        self.console.print(Text(visible(text), style="cyan"))

    def dim(self, text: str) -> None:
        self.console.print(Text(visible(text), style="dim"))

    def warn(self, text: str) -> None:
        self.err_console.print(Text(f"注意：{one_line(text)}", style="yellow"))

    def error(self, text: str) -> None:
        """One line, to stderr when piped so scripts can still read stdout."""
        target = self.console if self.rich_output else self.err_console
        target.print(Text(f"错误：{one_line(text)}", style="bold red"))

    def raw(self, text: str) -> None:
        self.out.write(text)
        if not text.endswith("\n"):
            self.out.write("\n")
        self.out.flush()

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question on the terminal; anything but y/yes/是 is a no."""
        answer = self.console.input(f"{visible(question)} [y/N] ")
        return answer.strip().lower() in ("y", "yes", "是")

    def markdown(self, text: str) -> None:
        if self.rich_output:
            from rich.markdown import Markdown

            self.console.print(Markdown(visible(text)))
        else:
            self.raw(text)

    # composed output -----------------------------------------------------------
    def banner(self, *, mode_line: str, conversation_line: str) -> None:
        self.console.print(Text("貔貅 pixiu · A 股投资助理", style="bold"))
        self.console.print(Text(mode_line, style="yellow" if "离线" in mode_line else "green"))
        self.dim(conversation_line)
        self.dim("输入 /help 查看命令；Enter 发送，Alt-Enter 或 Ctrl-J 换行；Ctrl-C 中断回复，Ctrl-D 退出。")

    def status(self, figures: StatusFigures) -> None:
        self.dim(status_text(figures))

    def table(self, title: str | None, columns: list[str], rows: list[list[str]]) -> None:
        if not self.rich_output:
            if title:
                self.raw(title)
            self.raw("\t".join(columns))
            for row in rows:
                self.raw("\t".join(one_line(cell) for cell in row))
            return
        from rich.table import Table

        # Cells hold stored text (titles, notes, previews): plain Text, never Rich markup,
        # so "[/bold]" or "[red]" in a note is shown as written instead of raising or vanishing.
        table = Table(title=Text(title) if title else None, show_lines=False, header_style="bold")
        for column in columns:
            table.add_column(Text(column), overflow="fold")
        for row in rows:
            table.add_row(*(Text(visible(cell)) for cell in row))
        self.console.print(table)

    def bar(self, label: str, filled: int, empty: int, caption: str) -> None:
        text = Text(f"{label} ")
        text.append("█" * filled, style="green")
        text.append("░" * empty, style="red")
        text.append(f" {caption}", style="dim")
        self.console.print(text)

    @contextmanager
    def reply(self):
        stream = ReplyStream(self)
        try:
            yield stream
        finally:
            stream.close()
