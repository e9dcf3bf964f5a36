"""Backtest profiles (回测画像): each strategy over the three years ending on the last completed
bar, the best chosen on the first two thirds and reported on the last third too, and a
core/satellite role from a stated heuristic."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from pixiu_cli.kernel.clock import iso
from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import INITIAL_CASH, Frame, build_frame, run, three_year_start
from pixiu_cli.market.analytics.metrics import Metrics, measure, part
from pixiu_cli.market.analytics.model import BacktestRow, ComputedProfile
from pixiu_cli.market.analytics.strategies import STRATEGIES
from pixiu_cli.market.calendar import last_complete_session
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.securities import shipped_security_list

ENGINE_VERSION = "pixiu-bt-1"
MIN_BARS = 120
WARMUP_YEARS = 1  # fewer completed bars than this: no profile
CORE_MAX_DRAWDOWN = -0.25
CORE_MIN_SHARPE = 0.8


@dataclass(frozen=True)
class StrategyRun:
    strategy: str
    label: str
    full: Metrics
    in_sample: Metrics
    out_sample: Metrics


def load_frame(market: MarketData, symbol: str, now: datetime, since: str | None = None) -> Frame | None:
    """Completed bars from `since` (default: WARMUP_YEARS + 3 years before the last one)."""
    newest = market.store.last_date(symbol)
    if newest is None:
        return None
    last = min(date.fromisoformat(newest), last_complete_session(now))
    since = since or (last - timedelta(days=round(365.25 * (3 + WARMUP_YEARS)))).isoformat()
    raw = market.store.bars(symbol, since, last.isoformat())
    if not len(raw):
        return None
    return build_frame(raw, market.store.actions(symbol), list_date=list_date(market, symbol))


def list_date(market: MarketData, symbol: str) -> str | None:
    """From the security master, else the shipped security list."""
    security = market.master.get(symbol)
    if security and security.list_date:
        return security.list_date

    listed = shipped_security_list().get(symbol)
    return listed.list_date if listed else None


def caveats(market: MarketData, symbol: str, window_start: str, as_of: str) -> list[str]:
    """What the profile's figures do not account for, in its window."""
    out = []
    listed = list_date(market, symbol)
    if listed and window_start <= listed <= as_of:
        out.append(f"窗口含上市日 {listed}：上市首日没有前收盘、当日不成交，回测从次日开盘起")
    missing = market.missing_actions(symbol, window_start, as_of)  # only its years' seasons asked about
    if missing:
        out.append(f"疑似缺少除权记录（{len(missing)} 处）：{'、'.join(g.date for g in missing)} 的低开可能是除息")
    return out


def run_strategies(frame: Frame, costs: CostModel) -> list[StrategyRun]:
    """Signals see the whole history (warm-up included); trades happen only in the window.
    The first two thirds and the last third are parts of the same run."""
    start = three_year_start(frame.dates)
    window = frame.window(start)
    split = len(window) * 2 // 3
    runs = []
    for name, (label, strategy) in STRATEGIES.items():
        result = run(window, strategy(frame)[start:], costs)
        first, first_cash = part(result, window.dates, 0, split)
        last, last_cash = part(result, window.dates, split)
        runs.append(
            StrategyRun(
                name,
                label,
                measure(result, INITIAL_CASH),
                measure(first, first_cash or INITIAL_CASH),
                measure(last, last_cash),
            )
        )
    return runs


def choose(runs: list[StrategyRun]) -> StrategyRun:
    """Best Sharpe on the first two thirds only, so the last third is an honest check."""
    return max(runs, key=lambda r: (r.in_sample.sharpe if r.in_sample.sharpe is not None else -9, -len(r.strategy)))


def role_of(metrics: Metrics) -> tuple[str, str]:
    sharpe = metrics.sharpe or 0.0
    if metrics.max_drawdown >= CORE_MAX_DRAWDOWN and sharpe >= CORE_MIN_SHARPE:
        return (
            "core",
            f"启发式：回撤 {metrics.max_drawdown:.1%} 浅于 {CORE_MAX_DRAWDOWN:.0%} 且夏普 {sharpe:.2f} ≥ {CORE_MIN_SHARPE}",
        )
    return "satellite", (
        f"启发式：回撤 {metrics.max_drawdown:.1%}、夏普 {sharpe:.2f}，"
        f"未同时满足回撤浅于 {CORE_MAX_DRAWDOWN:.0%} 且夏普 ≥ {CORE_MIN_SHARPE}"
    )


@dataclass(frozen=True)
class _Provenance:
    """What every stored row and the profile of one symbol share: the window, the engine
    run's inputs and when it ran."""

    symbol: str
    window_start: str
    as_of: str
    costs: CostModel
    source: str | None  # as the series store has it; stored as "unknown" when missing
    stamp: str


def profile_symbol(
    market: MarketData, symbol: str, now: datetime, costs: CostModel, frame: Frame | None = None
) -> tuple[list[BacktestRow], ComputedProfile] | None:
    """`frame`: load_frame(market, symbol, now), when the caller has it already."""
    frame = frame if frame is not None else load_frame(market, symbol, now)
    if frame is None or len(frame) < MIN_BARS:
        return None
    runs = run_strategies(frame, costs)
    best = choose(runs)
    hold = next(r for r in runs if r.strategy == "buy_and_hold")
    start = three_year_start(frame.dates)
    origin = _Provenance(symbol, frame.dates[start], frame.dates[-1], costs, market.store.source(symbol), iso(now))
    rows = [_backtest_row(r, hold, r is best, origin) for r in runs]
    notes = caveats(market, symbol, origin.window_start, origin.as_of)
    return rows, _computed_profile(best, rows[runs.index(best)].excess_return, origin, notes)


def _backtest_row(r: StrategyRun, hold: StrategyRun, selected: bool, origin: _Provenance) -> BacktestRow:
    return BacktestRow(
        origin.symbol,
        r.strategy,
        r.label,
        origin.window_start,
        origin.as_of,
        r.full.annual_return,
        r.full.max_drawdown,
        r.full.sharpe,
        r.full.win_rate,
        r.full.trades,
        r.full.exposure,
        r.full.annual_return - hold.full.annual_return,
        r.in_sample.sharpe,
        r.out_sample.annual_return,
        r.out_sample.sharpe,
        selected,
        origin.as_of,
        ENGINE_VERSION,
        origin.costs.describe(),
        origin.source or "unknown",
        origin.stamp,
    )


def _conclusion(best: StrategyRun, excess: float, source: str | None, reason: str, notes: list[str]) -> str:
    few = "，样本不足" if best.full.few_trades else ""
    out_sharpe = "—" if best.out_sample.sharpe is None else f"{best.out_sample.sharpe:.2f}"
    return (
        f"本地回测 {ENGINE_VERSION}（数据 {source}）：样本内最优 {best.label}；"
        f"样本外（后 1/3）年化 {best.out_sample.annual_return:.1%}、夏普 {out_sharpe}；"
        f"交易 {best.full.trades} 次{few}；超额（对买入持有）{excess:+.1%}；{reason}"
        + "".join(f"；{note}" for note in notes)
    )


def _computed_profile(best: StrategyRun, excess: float, origin: _Provenance, notes: list[str] = ()) -> ComputedProfile:
    role, reason = role_of(best.full)
    return ComputedProfile(
        origin.symbol,
        best.label,
        f"{origin.window_start} 至 {origin.as_of}",
        best.full.annual_return,
        best.full.max_drawdown,
        best.full.win_rate,
        best.full.sharpe,
        role,
        _conclusion(best, excess, origin.source, reason, list(notes)),
        origin.as_of,
        ENGINE_VERSION,
        origin.costs.describe(),
        origin.source or "unknown",
        best.full.trades,
        best.full.exposure,
        excess,
        best.out_sample.annual_return,
        best.out_sample.sharpe,
    )
