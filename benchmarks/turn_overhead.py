"""Per-turn overhead of pixiu over a bare SDK call, measured in one process.

The app is composed as `pixiu chat --demo` composes it (`open_app`, offline mode: the
offline server runs in this process, the demo portfolio is loaded), in a fresh
PIXIU_HOME. Each turn then runs twice, back to back, against that same server:

    pixiu  `Agent.run_turn(conversation, question)`: the user's message saved, the context
           assembled, the call recorded, the request streamed through pixiu's ChatClient
           (the openai SDK over real HTTP), the reply and the turn saved.
    raw    the openai SDK alone (`OpenAI(...).chat.completions.create(**body)`, default
           HTTP client), streaming the exact body pixiu sent (`server.requests[-1].json`)
           and reading every chunk.

Both get the same scripted reply, so the server does the same work for both. The
overhead of a turn is pixiu's time minus the raw time of that same turn; the figure is
the median over the turns, after warm-up turns that are not counted. A new conversation
starts every --per-conversation turns, so the history stays that of an ordinary
conversation. The questions cycle through single-stock, portfolio and general ones.

A second, separate pass wraps pixiu's steps in timers and prints the median of each (the
breakdown); the main figures come from the unwrapped pass. The goal (overhead ≤ 15 ms)
is printed, never asserted; the script exits 0.

Run:  python benchmarks/turn_overhead.py [--turns 50] [--warmup 5] [--per-conversation 10] [--quick]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python benchmarks/turn_overhead.py` from a checkout
    sys.path.insert(0, str(ROOT))

from pixiu_cli.account.explain import wait_for_explanations  # noqa: E402
from pixiu_cli.app import OFFLINE_PLACEHOLDER_KEY, open_app  # noqa: E402
from pixiu_cli.conversation.agent import loop as agent_loop  # noqa: E402
from pixiu_cli.conversation.agent.loop import SilentSink  # noqa: E402
from pixiu_cli.conversation.offline.script import ScriptedReply  # noqa: E402
from pixiu_cli.kernel.settings import load_settings  # noqa: E402

GOAL_MS = 15.0
QUESTIONS = (
    "茅台最近怎么看？估值贵不贵？",
    "我的持仓里哪几只适合做核心仓？",
    "招行的分红和股价走势怎么样？",
    "宁德时代涨了这么多，要不要先止盈一部分？",
    "今天大盘怎么样，有什么需要注意的？",
    "海康威视跌到 30 元附近了，按计划该加仓吗？",
    "帮我看看整体仓位和回撤风险。",
)
REPLY = (
    "先说结论：维持现有仓位，不追高也不急着卖。\n\n"
    "1. 估值：当前处于近五年中位数附近，安全边际一般，继续持有的理由主要是现金流和分红的稳定性。\n"
    "2. 计划：按你之前定下的纪律，单只仓位不超过总资产的 25%，目前没有触发减仓条件。\n"
    "3. 风险：关注下周的股东大会和行业政策，如果跌破年线，再按计划分批处理。\n\n"
    "以上只是根据你记录的数据整理的参考，不构成投资建议。"
)


def open_demo_app(home: Path):
    settings = load_settings(home=home, force_offline=True)
    app = open_app(settings, demo=True)
    return app, app._offline_server.server  # the in-process offline server, started here rather than by a turn


def run(app, server, raw, turns: int, warmup: int, per_conversation: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"pixiu": [], "raw": [], "overhead": []}
    conversation = None
    for i in range(warmup + turns):
        if i % per_conversation == 0:
            conversation = app.store.create_conversation(model=app.settings.model).id
        question = QUESTIONS[i % len(QUESTIONS)]

        server.enqueue(ScriptedReply(text=REPLY))
        started = time.perf_counter()
        result = app.agent.run_turn(conversation, question, SilentSink())
        pixiu = time.perf_counter() - started
        wait_for_explanations()  # the cache explanation is worked out off the turn's path: not in either figure
        if result.status != "complete" or result.calls != 1:
            raise SystemExit(f"turn {i} did not complete in one call: {result.status} {result.error}")
        body = server.requests[-1].json

        server.enqueue(ScriptedReply(text=REPLY))
        started = time.perf_counter()
        stream = raw.chat.completions.create(**body)
        text = "".join(choice.delta.content or "" for chunk in stream for choice in chunk.choices if choice.delta)
        bare = time.perf_counter() - started
        if text != result.reply:
            raise SystemExit(f"turn {i}: the raw call got a different reply")
        if i >= warmup:
            times["pixiu"].append(pixiu * 1000)
            times["raw"].append(bare * 1000)
            times["overhead"].append((pixiu - bare) * 1000)
    return times


class Timers:
    """Wraps callables so each call's duration is recorded under a name."""

    def __init__(self):
        self.samples: dict[str, list[float]] = {}

    def wrap(self, owner, name: str, label: str | None = None) -> None:
        original = getattr(owner, name)
        bucket = self.samples.setdefault(label or name, [])

        @functools.wraps(original)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                bucket.append((time.perf_counter() - started) * 1000)

        setattr(owner, name, timed)

    def medians(self, turns: int) -> dict[str, float]:
        """Median time per turn of each step (steps called more than once a turn are summed
        over the turn first: they are called the same number of times every turn)."""
        out = {}
        for label, values in self.samples.items():
            per_turn = max(1, len(values) // turns) if values else 1
            sums = [sum(values[i : i + per_turn]) for i in range(0, len(values) - per_turn + 1, per_turn)]
            out[label] = statistics.median(sums) if sums else 0.0
        return out


def breakdown(app, server, raw, turns: int, per_conversation: int) -> dict[str, float]:
    timers = Timers()
    store, builder = app.store, app.builder
    for name in ("start_turn", "start_call", "finish_call", "finish_turn"):
        timers.wrap(store, name, f"store.{name}")
    timers.wrap(app.agent.compactor, "maybe_compact", "compactor.maybe_compact")
    timers.wrap(builder, "build_messages", "builder.build_messages")
    timers.wrap(builder.domain, "count_injection", "domain.count_injection")
    timers.wrap(agent_loop, "context_summary_json")
    timers.wrap(agent_loop, "turn_history_tokens")
    timers.wrap(app.agent.client, "stream", "client.stream (generator creation)")
    run(app, server, raw, turns, 0, per_conversation)
    result = timers.medians(turns)
    result.pop("client.stream (generator creation)", None)  # the call itself is lazy: not a cost
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--turns", type=int, default=50, help="timed turns (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed turns first (default 5)")
    parser.add_argument("--per-conversation", type=int, default=10, help="turns per conversation (default 10)")
    parser.add_argument("--quick", action="store_true", help="5 turns, 2 warm-up, no breakdown (a smoke test)")
    args = parser.parse_args(argv)
    turns, warmup = (5, 2) if args.quick else (max(1, args.turns), max(0, args.warmup))

    import openai

    with tempfile.TemporaryDirectory(prefix="pixiu-turn-") as tmp:
        app, server = open_demo_app(Path(tmp) / "home")
        try:
            raw = openai.OpenAI(base_url=server.base_url, api_key=OFFLINE_PLACEHOLDER_KEY, max_retries=0)
            times = run(app, server, raw, turns, warmup, args.per_conversation)
            steps = None if args.quick else breakdown(app, server, raw, min(turns, 30), args.per_conversation)
        finally:
            app.close()

    med = {k: statistics.median(v) for k, v in times.items()}
    n = len(times["overhead"])
    print(f"pixiu    Agent.run_turn, offline server, SDK over HTTP   median {med['pixiu']:7.2f} ms  (n={n})")
    print(f"raw      openai SDK streaming call, same body        median {med['raw']:7.2f} ms  (n={n})")
    verdict = "OK" if med["overhead"] <= GOAL_MS else "MISSED"
    lo, hi = (
        statistics.quantiles(times["overhead"], n=4)[::2]
        if n >= 4
        else (min(times["overhead"]), max(times["overhead"]))
    )
    print(
        f"overhead pixiu - raw, paired per turn                 median {med['overhead']:7.2f} ms  "
        f"(quartiles {lo:.2f} .. {hi:.2f})  goal <= {GOAL_MS:g} ms  {verdict}"
    )
    if steps:
        listed = ", ".join(f"{name} {ms:.2f}" for name, ms in sorted(steps.items(), key=lambda kv: -kv[1]))
        print(f"breakdown median ms per turn: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
