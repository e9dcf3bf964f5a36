"""Rendering a streamed Markdown answer: CPU of the stream against one render of the whole.

Two cases, each fed to `Renderer.reply()` on a terminal-like console (rich output, 110
columns) writing to memory, with the process CPU time measured (`time.process_time`)
against `Renderer.markdown()` of the whole text once, interleaved run by run (baseline,
stream, baseline, ...), medians of --runs. Printed, never asserted.

- **answer**: a ~2.4 kB Markdown answer (headings, paragraphs, lists, a table, a code
  fence, Chinese text) in 4-character deltas arriving at once (the redraw is throttled
  by the clock, so this is the cheapest case for redraws and the dearest for per-delta
  work). Goal: ≤ 0.1 s of CPU. --delay adds a real sleep per delta.
- **prose**: 2k and 50k characters of Chinese paragraphs (as `user_paths.py` sizes its
  table, in characters: 6 and 150 kB of UTF-8) streamed at a reading pace, 6 characters
  per 50 ms on the renderer's clock (replaced, so no time passes): the redraws of the open
  block are as many as a real reply's. Goal: ≤ 2× one render of the whole. Also printed:
  how many times the live view was redrawn (`Live.refresh`) and started, how many console
  prints there were (each refresh is one, and a print above the live view redraws it too)
  and how many texts were parsed as Markdown (`markdown_view`), counted in one extra
  untimed run.

Run:  python benchmarks/stream_render.py [--runs 7] [--delta 4] [--delay 0] [--only answer|prose]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pixiu_cli.kernel.render as render  # noqa: E402
from pixiu_cli.kernel.render import Renderer  # noqa: E402

GOAL_SECONDS = 0.1
PROSE_GOAL = 2.0
PACE_CHARS, PACE_SECONDS = 6, 0.05  # reading pace: 120 characters a second

ANSWER = """## 贵州茅台（600519）近况

茅台最近三个月**走势偏弱**，成交量温和，估值回到近五年的中位附近。以下几点供参考：

1. 基本面：高端白酒需求仍稳，但批价有所回落；
2. 估值：市盈率约 *24 倍*，低于过去五年均值；
3. 资金：北向资金近一月小幅净流出。

| 指标 | 数值 | 近五年分位 |
|:---|---:|---:|
| 市盈率 | 24.1 | 38% |
| 市净率 | 7.9 | 30% |
| 股息率 | 2.6% | 71% |

### 你的持仓

你目前持有 100 股，成本 1,620 元，占组合约 18%。按照你之前说的**核心仓不超过 25%**，
还有一些余地，但不建议一次加满。

- 如果回踩到 1,450 元附近，可以分两次加仓；
- 如果跌破 1,380 元，先按你设定的止损处理；
- 其余时间以观察为主。

```text
加仓计划：1,450 元 × 50 股；1,400 元 × 50 股
止损：1,380 元
```

> 以上内容只是根据历史数据和你的记录整理的参考，不构成投资建议。

### 小结

总的来说，茅台处在**估值合理、趋势偏弱**的阶段。适合耐心分批，而不是追涨。
你可以用 `/remember` 记下这次的计划，下次我会提醒你对照执行。
"""
ANSWER += "\n" + ANSWER.replace("贵州茅台（600519）", "五粮液（000858）").replace(
    "茅台", "五粮液"
)  # ~2 kB, two of each block


SENTENCES = [
    "茅台最近三个月走势偏弱，成交量温和，估值回到近五年的中位附近。",
    "高端白酒的需求仍然稳定，但批价有所回落，渠道库存需要时间消化。",
    "按照你之前定下的**核心仓不超过两成半**的规则，现在还有一些余地。",
    "如果回踩到前期平台附近，可以分两次加仓，而不是一次加满。",
    "北向资金近一个月小幅净流出，短期情绪偏谨慎，但并不构成趋势反转。",
    "股息率在历史上处于偏高的位置，对长期持有者来说有一定的安全垫。",
    "需要留意的是，下一季度的财报可能会反映出提价放缓的影响。",
    "以上只是根据历史数据和你的记录整理的参考，不构成投资建议。",
]


def prose_text(size: int) -> str:
    """Paragraphs of Chinese prose (one to four sentences each) up to `size` characters."""
    paragraphs, i = [], 0
    while sum(len(p) + 2 for p in paragraphs) < size:
        count = 1 + i % 4
        paragraphs.append("".join(SENTENCES[(i + k) % len(SENTENCES)] for k in range(count)))
        i += 1
    return "\n\n".join(paragraphs) + "\n"


def console_renderer() -> Renderer:
    renderer = Renderer(file=io.StringIO(), rich_output=True)
    renderer.console.width = 110
    return renderer


def stream_cpu(text: str, size: int, delay: float) -> tuple[float, str]:
    renderer = console_renderer()
    started = time.process_time()
    with renderer.reply() as stream:
        for i in range(0, len(text), size):
            stream.text(text[i : i + size])
            if delay:
                time.sleep(delay)
    return time.process_time() - started, renderer.out.getvalue()


def once_cpu(text: str) -> float:
    renderer = console_renderer()
    started = time.process_time()
    renderer.markdown(text)
    return time.process_time() - started


@contextmanager
def renderer_clock():
    """The renderer's clock, advanced by hand: a paced stream costs no waiting."""
    clock = SimpleNamespace(now=1000.0)
    saved, render.time = render.time, SimpleNamespace(monotonic=lambda: clock.now)
    try:
        yield clock
    finally:
        render.time = saved


def paced_cpu(text: str) -> float:
    renderer = console_renderer()
    with renderer_clock() as clock:
        started = time.process_time()
        with renderer.reply() as stream:
            for i in range(0, len(text), PACE_CHARS):
                stream.text(text[i : i + PACE_CHARS])
                clock.now += PACE_SECONDS
        return time.process_time() - started


def counted(text: str) -> dict[str, int]:
    """Live redraws and starts and Markdown texts parsed while `text` streams at pace."""
    from rich.console import Console
    from rich.live import Live

    counts = dict.fromkeys(("refresh", "start", "markdown", "print"), 0)
    saved = Live.refresh, Live.start, render.markdown_view, Console.print

    def wrap(name, original):
        def counting(*args, **kwargs):
            counts[name] += 1
            return original(*args, **kwargs)

        return counting

    Live.refresh, Live.start, render.markdown_view, Console.print = (
        wrap("refresh", saved[0]),
        wrap("start", saved[1]),
        wrap("markdown", saved[2]),
        wrap("print", saved[3]),
    )
    try:
        paced_cpu(text)
    finally:
        Live.refresh, Live.start, render.markdown_view, Console.print = saved
    return counts


def interleaved(runs: int, baseline, subject) -> tuple[float, float]:
    """Medians (ms) of baseline and subject, run alternately so the machine's load falls on both."""
    onces, streams = [], []
    for _ in range(runs):
        onces.append(baseline())
        streams.append(subject())
    return statistics.median(onces) * 1000, statistics.median(streams) * 1000


def bench_answer(args) -> None:
    once, stream = interleaved(
        args.runs, lambda: once_cpu(ANSWER), lambda: stream_cpu(ANSWER, args.delta, args.delay)[0]
    )
    deltas = -(-len(ANSWER) // args.delta)
    print(f"answer {len(ANSWER.encode())} bytes, {deltas} deltas of {args.delta} characters")
    print(f"baseline  one render of the whole answer   median {once:7.1f} ms CPU")
    print(
        f"stream    streamed render                  median {stream:7.1f} ms CPU  ratio {stream / once:.2f}  "
        f"goal <= {GOAL_SECONDS * 1000:.0f} ms  {'OK' if stream <= GOAL_SECONDS * 1000 else 'MISSED'}"
    )


def bench_prose(args, size: int) -> None:
    text = prose_text(size)
    once, stream = interleaved(args.runs, lambda: once_cpu(text), lambda: paced_cpu(text))
    counts = counted(text)
    ratio = stream / once
    print(
        f"prose {len(text) / 1000:4.1f}k characters ({len(text.encode()) / 1000:.0f} kB UTF-8, "
        f"{text.count(chr(10) * 2) + 1} paragraphs) at "
        f"{PACE_CHARS} chars / {PACE_SECONDS * 1000:.0f} ms: stream {stream:7.1f} ms CPU, one render "
        f"{once:6.1f} ms, ratio {ratio:.2f}  goal <= {PROSE_GOAL:.0f}  {'OK' if ratio <= PROSE_GOAL else 'MISSED'}"
    )
    print(
        f"          Live.refresh {counts['refresh']:,}, Live.start {counts['start']:,}, "
        f"Console.print {counts['print']:,} (a refresh is one), Markdown texts parsed {counts['markdown']:,}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--delta", type=int, default=4, help="characters per delta (default 4)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between deltas (default 0)")
    parser.add_argument("--only", choices=("answer", "prose"))
    args = parser.parse_args(argv)
    console_renderer().markdown("# warm-up\n\nrich's Markdown machinery is imported here, not timed")
    if args.only != "prose":
        bench_answer(args)
    if args.only != "answer":
        for size in (2_000, 50_000):
            bench_prose(args, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
