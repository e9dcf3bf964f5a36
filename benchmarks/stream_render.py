"""Rendering a streamed Markdown answer: CPU of the stream against one render of the whole.

A ~2 kB Markdown answer (headings, paragraphs, lists, a table, a code fence, Chinese text)
is fed to `Renderer.reply()` in 4-character deltas, on a terminal-like console (rich
output, 110 columns) writing to memory, and the process CPU time is measured
(`time.process_time`). The baseline from the same run is `Renderer.markdown()` of the whole
answer once. Each figure is the median of --runs. Goal: the stream ≤ 0.1 s of CPU.
Printed, never asserted. The delays between deltas are not simulated (the redraw is
throttled by wall time, so a stream that arrives at once is the cheapest case for
redraws and the dearest for per-delta work); --delay adds a sleep per delta.

Run:  python benchmarks/stream_render.py [--runs 5] [--delta 4] [--delay 0]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pixiu_cli.views.render import Renderer  # noqa: E402

GOAL_SECONDS = 0.1

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delta", type=int, default=4, help="characters per delta (default 4)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between deltas (default 0)")
    args = parser.parse_args(argv)
    console_renderer().markdown("# warm-up\n\nrich's Markdown machinery is imported here, not timed")
    streams = [stream_cpu(ANSWER, args.delta, args.delay)[0] for _ in range(args.runs)]
    onces = [once_cpu(ANSWER) for _ in range(args.runs)]
    stream, once = statistics.median(streams) * 1000, statistics.median(onces) * 1000
    deltas = -(-len(ANSWER) // args.delta)
    print(f"answer {len(ANSWER.encode())} bytes, {deltas} deltas of {args.delta} characters")
    print(f"baseline  one render of the whole answer   median {once:7.1f} ms CPU")
    print(
        f"stream    streamed render                  median {stream:7.1f} ms CPU  ratio {stream / once:.2f}  "
        f"goal <= {GOAL_SECONDS * 1000:.0f} ms  {'OK' if stream <= GOAL_SECONDS * 1000 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
