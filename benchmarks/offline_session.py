"""A long offline `pixiu ask --continue` session, one process per turn, and how much of the
ideal prompt-cache hit it gets.

Each turn runs the real console script (`pixiu ask --demo --json [--continue] QUESTION`) in
a fresh process with no API key, in a temporary PIXIU_HOME, so every turn starts its own
in-process offline server. The questions rotate through portfolio and single-stock
questions, reported trades and plans (which make the offline responder call
`record_decision` and `remember`, so holdings and notes change during the session).

Ideal. For every call, the tokens its request shares with the previous call's request plus
reply, floored to DeepSeek's 64-token unit: exactly what `/cache` predicts (the break
explanation's `predicted_hit`). Compaction rewrites the history, so those calls' ideal is
small too: the ratio measures the cache, not the layout.

Modes:
  offline        pixiu's own offline mode (no key): one server per process.
  shared-server  one OfflineServer kept alive in this process for the whole session, pixiu
                 pointed at it with a key via PIXIU_BASE_URL (the "keep one server alive"
                 alternative; the reference a persistent cache must match).

    .venv/bin/python benchmarks/offline_session.py                 # 200 turns, offline mode
    .venv/bin/python benchmarks/offline_session.py --turns 30 --mode shared-server
    .venv/bin/python benchmarks/offline_session.py --turns 30 --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PIXIU_BIN = str(Path(sys.executable).with_name("pixiu"))

QUESTIONS = (
    "我的持仓整体怎么样？",
    "海康威视现在的位置适合加仓吗？",
    "今天以 31 元买入海康威视 100 股",
    "茅台最近的回测画像说明了什么？",
    "我的持仓哪只适合核心仓？",
    "宁德估值偏高，浮盈到 60% 就分批止盈",
    "卫星仓超过35%了怎么调？",
    "600036 的股息率还有吸引力吗？",
    "今天以 120 元卖出五粮液 100 股",
    "帮我回顾一下今天说过的计划",
    "中芯国际跌破 95 元该怎么办？",
    "平安适合做核心仓吗？",
)


@dataclass
class TurnResult:
    turn: int
    question: str
    ok: bool
    seconds: float
    error: str | None = None


@dataclass
class SessionReport:
    mode: str
    turns: int
    failed: list[TurnResult] = field(default_factory=list)
    calls: int = 0
    prompt: int = 0
    hit: int = 0
    ideal: int = 0
    flagged: int = 0
    cost: float = 0.0
    cost_at_ideal: float = 0.0
    seconds_per_turn: float = 0.0

    @property
    def of_ideal(self) -> float:
        return self.hit / self.ideal if self.ideal else 1.0

    @property
    def cost_ratio(self) -> float:
        return self.cost / self.cost_at_ideal if self.cost_at_ideal else 1.0

    def as_json(self) -> dict:
        return {**asdict(self), "hit_of_ideal": round(self.of_ideal, 4), "cost_ratio": round(self.cost_ratio, 4)}


def _env(home: Path, server_url: str | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PIXIU_") and k not in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")
    }
    env.update({"PIXIU_HOME": str(home), "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"})
    if server_url:
        env.update(
            {
                "PIXIU_API_KEY": "sk-offline-session-benchmark",
                "PIXIU_BASE_URL": server_url,
                "PIXIU_MODEL": "deepseek-flash",
                "PIXIU_MAX_RETRIES": "0",
            }
        )
    return env


def run_turn(env: dict[str, str], turn: int, question: str) -> TurnResult:
    args = [PIXIU_BIN, "ask", "--demo", "--json", *(["--continue"] if turn > 1 else []), question]
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, timeout=300)
    seconds = time.perf_counter() - started
    error = None
    try:
        out = json.loads(done.stdout)
        if out.get("status") != "complete":
            error = out.get("error") or out.get("status")
    except ValueError:
        error = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return TurnResult(turn, question, error is None and done.returncode == 0, seconds, error)


def measure(home: Path, report: SessionReport) -> None:
    """Reported vs predicted (ideal) hits of every call of the session, as /cache sees them."""
    from pixiu_cli.account.report import PriceTable, build_report, call_cost
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.kernel.store.database import open_database

    db = open_database(home / "demo.db")
    try:
        store = ConversationStore(db)
        conversation = store.latest_conversation()
        prices = PriceTable()
        cache = build_report(store, conversation.id if conversation else None, prices, explain_last=10**9)
        for line in cache.calls:
            if line.cache_hit_tokens is None:
                continue
            report.calls += 1
            report.prompt += line.prompt_tokens or 0
            report.hit += line.cache_hit_tokens
            report.ideal += line.explanation.predicted_hit
            report.flagged += line.explanation.flagged
            ideal_hit = min(line.explanation.predicted_hit, line.prompt_tokens or 0)
            # Both at the peak rate (at=None), so the ratio does not depend on the hour it ran.
            at_ideal, actual = (
                call_cost(
                    prices,
                    model="deepseek-flash",
                    hit=hit,
                    miss=(line.prompt_tokens or 0) - hit,
                    prompt=line.prompt_tokens,
                    completion=line.completion_tokens,
                    at=None,
                )
                for hit in (ideal_hit, line.cache_hit_tokens)
            )
            report.cost += actual.actual if actual else 0.0
            report.cost_at_ideal += at_ideal.actual if at_ideal else 0.0
    finally:
        db.close()


def run_session(turns: int, mode: str, home: Path, progress=None, context_budget: int | None = None) -> SessionReport:
    if context_budget is not None:
        (home / "config.toml").write_text(f"[context]\nbudget_tokens = {context_budget}\n", encoding="utf-8")
    server = None
    if mode == "shared-server":
        from pixiu_cli.conversation.offline.server import OfflineServer

        server = OfflineServer(cache_profile="deepseek").start()
    try:
        env = _env(home, server.base_url if server else None)
        report = SessionReport(mode=mode, turns=turns)
        total = 0.0
        for turn in range(1, turns + 1):
            result = run_turn(env, turn, QUESTIONS[(turn - 1) % len(QUESTIONS)])
            total += result.seconds
            if not result.ok:
                report.failed.append(result)
            if progress:
                progress(result)
        report.seconds_per_turn = total / max(turns, 1)
    finally:
        if server is not None:
            server.stop()
    measure(home, report)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--mode", choices=("offline", "shared-server"), default="offline")
    parser.add_argument("--home", type=Path, help="PIXIU_HOME to use (default: a fresh temp dir)")
    parser.add_argument("--context-budget", type=int, help="[context] budget_tokens for the session (default: pixiu's)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no per-turn progress")
    args = parser.parse_args(argv)

    def progress(result: TurnResult) -> None:
        if not args.quiet and not args.json:
            mark = "ok " if result.ok else "ERR"
            print(f"turn {result.turn:4d} {mark} {result.seconds:5.2f}s {result.error or ''}", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="pixiu-offline-session-") as tmp:
        home = args.home or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        report = run_session(args.turns, args.mode, home, progress, args.context_budget)
    if args.json:
        print(json.dumps(report.as_json(), ensure_ascii=False, indent=2))
    else:
        budget = f" · context budget {args.context_budget}" if args.context_budget else ""
        print(f"mode {report.mode} · turns {report.turns}{budget} · failed {len(report.failed)} · calls {report.calls}")
        for failure in report.failed:
            print(f"  turn {failure.turn} failed: {failure.error}")
        print(f"prompt {report.prompt:,} · hit {report.hit:,} · ideal {report.ideal:,}")
        print(
            f"hit/ideal {report.of_ideal:.3f} · flagged calls {report.flagged} · "
            f"cost ¥{report.cost:.4f} vs ¥{report.cost_at_ideal:.4f} at ideal ({report.cost_ratio:.2f}×)"
        )
        print(f"seconds per turn {report.seconds_per_turn:.2f}")
    return 0 if not report.failed else 1


if __name__ == "__main__":
    sys.exit(main())
