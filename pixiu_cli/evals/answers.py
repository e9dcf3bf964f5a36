"""Answer cases: a data set, a question and checks. The case format shares the context
evals' `dataset`, `dataset_patch` and `now` fields; `checks` name what the reply must do,
and their expected values are computed from the data set (evals/answer_grading.py), never
written into the case.

Ground truth from a case's data set, and deterministic grades of a reply against it.

Every expected value is computed here from the imported rows (which holding has the highest
Sharpe, what 002415's max drawdown is, whether a profile is stale at the case's `now`), so a
case file states only what to ask and what kind of answer is right.

Running answer cases through the real agent loop, with and without parts of the context.

Each case × ablation gets a throw-away SQLite file with the case's data set imported, the
case's frozen `now` as the clock, and one turn of `Agent.run_turn` against the target model.
The reply and the tools it called are graded against the data set (evals/answer_grading.py).

The consent eval: does a trade the model states get recorded only when the user's words of
the turn report their own fill? Each case of `data/consent/` is a message and the
`record_decision` call an eager model would make for it; the call runs through the real tool
(`services/model_tools.py`) on a copy of one account, and the case passes when the trade was
recorded exactly when it should be ("record") and otherwise left unrecorded ("propose": a
proposal, or refused). The held-out set was written apart from the project by someone who never
read the parser's word lists; it is measured, never tuned on.

`pixiu eval --live` and `pixiu eval --history`: choose the target model (the configured one,
or the offline reading model without a key), show the expected cost and ask before spending
money, run, store the results, and render the ablation table."""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pixiu_cli.account.explain import wait_for_explanations
from pixiu_cli.app import build_agent, chat_client, clock_of, configured
from pixiu_cli.conversation.agent.guardrails import Guardrails
from pixiu_cli.conversation.agent.tools import ToolArgumentError, ToolContext
from pixiu_cli.conversation.context.builder import ABLATE_ALL, SYMBOL_CONTEXT
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.llm.types import Usage
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from pixiu_cli.conversation.views_tools import show_eval_runs, show_live_report
from pixiu_cli.evals.cases import EvalError, apply_patch, case_dataset, case_files
from pixiu_cli.evals.contexts import CaseResult, EvalReport
from pixiu_cli.evals.store import EvalResultRow, EvalRunStore
from pixiu_cli.home.document_file import DatasetError, parse_document
from pixiu_cli.home.handle import Home
from pixiu_cli.home.model import DomainData, Profile
from pixiu_cli.kernel.clock import iso
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.kernel.settings import Settings
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.kernel.vocabulary import side_name
from pixiu_cli.market.handle import Market
from pixiu_cli.market.names.table import securities_for_document
from pixiu_cli.memory.handle import Memory

ANSWERS_FOLDER = "answers"
_REQUIRED = ("id", "category", "now", "dataset", "message", "checks")
_OPTIONAL = ("description", "dataset_patch")

# check name → (required fields, optional fields)
CHECK_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "best_holding": (("metric", "order"), ()),
    "metric_value": (("symbol", "metric"), ()),
    "holding_figure": (("symbol", "field"), ()),
    "quotes_note": (("phrase",), ()),
    "quotes_report": (("phrase",), ()),
    "latest_decision": ((), ("symbol",)),
    "alert_stock": ((), ()),
    "stale_profile": (("symbol",), ()),
    "calls_tool": (("tool",), ()),
    "no_tool": (("tool",), ()),
    "no_invented_symbol": ((), ()),
}
METRICS = ("sharpe", "annual_return", "max_drawdown", "win_rate")


@dataclass(frozen=True)
class Check:
    name: str
    args: dict = field(default_factory=dict)

    def describe(self) -> str:
        extra = "，".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.name}（{extra}）" if extra else self.name


@dataclass(frozen=True)
class AnswerCase:
    id: str
    category: str
    now: datetime
    message: str
    document: dict
    data: DomainData
    checks: tuple[Check, ...]
    description: str = ""


def default_answers_dir() -> Path:
    return data_dir() / "evals" / ANSWERS_FOLDER


def load_answer_cases(paths: Sequence[Path] | None = None) -> list[AnswerCase]:
    cases: list[AnswerCase] = []
    seen: set[str] = set()
    for path in case_files(list(paths) if paths else [default_answers_dir()]):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EvalError(f"{path.name}：不是有效的 UTF-8 JSON（{type(exc).__name__}）") from None
        for index, item in enumerate(raw if isinstance(raw, list) else [raw]):
            case = parse_answer_case(item, path, index)
            if case.id in seen:
                raise EvalError(f"{path.name}（用例 {case.id}）：id 重复")
            seen.add(case.id)
            cases.append(case)
    if not cases:
        raise EvalError("没有找到回答评测用例")
    return cases


def _check(raw: Any, fail) -> Check:
    if not isinstance(raw, dict) or not isinstance(raw.get("check"), str):
        raise fail("checks 的每一项应为带 check 字段的对象")
    name = raw["check"]
    if name not in CHECK_FIELDS:
        raise fail(f"未知的检查 {name}（可用：{', '.join(CHECK_FIELDS)}）")
    required, optional = CHECK_FIELDS[name]
    args = {k: v for k, v in raw.items() if k != "check"}
    missing = [k for k in required if k not in args]
    unknown = sorted(set(args) - set(required) - set(optional))
    if missing or unknown:
        raise fail(f"检查 {name}：缺少 {', '.join(missing) or '—'}，未知 {', '.join(unknown) or '—'}")
    if not all(isinstance(v, str) and v for v in args.values()):
        raise fail(f"检查 {name}：参数应为非空字符串")
    if "metric" in args and args["metric"] not in METRICS:
        raise fail(f"检查 {name}：metric 应为 {' / '.join(METRICS)} 之一")
    if args.get("order", "max") not in ("max", "min") or args.get("field", "shares") not in ("shares", "cost"):
        raise fail(f"检查 {name}：order 应为 max/min，field 应为 shares/cost")
    return Check(name, args)


def parse_answer_case(raw: Any, source: Path, index: int) -> AnswerCase:
    where = f"{source.name}（用例 {raw.get('id') if isinstance(raw, dict) else index + 1}）"

    def fail(problem: str) -> EvalError:
        return EvalError(f"{where}：{problem}")

    if not isinstance(raw, dict):
        raise fail("应为 JSON 对象")
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL))
    missing = [k for k in _REQUIRED if k not in raw]
    if unknown or missing:
        raise fail(f"未知字段 {', '.join(unknown) or '—'}；缺少字段 {', '.join(missing) or '—'}")
    for key in ("id", "category", "message"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"{key} 应为非空字符串")
    try:
        now = datetime.fromisoformat(raw["now"])
    except (TypeError, ValueError):
        now = None
    if now is None or now.utcoffset() is None:
        raise fail("now 应为带时区的 ISO 8601 时间")
    _, document = case_dataset(raw["dataset"], source, fail)
    document = apply_patch(document, raw.get("dataset_patch"), fail)
    try:
        data = parse_document(document, now)
    except DatasetError as exc:
        raise fail(f"数据集无效：{exc}") from None
    if not isinstance(raw["checks"], list) or not raw["checks"]:
        raise fail("checks 应为非空数组")
    checks = tuple(_check(c, fail) for c in raw["checks"])
    return AnswerCase(
        raw["id"], raw["category"], now, raw["message"], document, data, checks, raw.get("description", "")
    )


# A profile older than this at the case's `now` is stale (the context engine's default limit).
PROFILE_FRESH_DAYS = 90
STALE_WORDS = ("过期", "陈旧", "过时", "不是最新", "较旧", "已久")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_CODE = re.compile(r"(?<![0-9])([0-9]{6})(?![0-9])")


@dataclass(frozen=True)
class Grade:
    check: str
    passed: bool
    detail: str  # what was expected and what was found, one line


@dataclass(frozen=True)
class Reply:
    text: str
    tools: tuple[str, ...]  # names of the tools the model called in the turn


def _latest_profiles(data: DomainData) -> dict[str, Profile]:
    latest: dict[str, Profile] = {}
    for p in data.profiles:
        if p.symbol not in latest or p.as_of > latest[p.symbol].as_of:
            latest[p.symbol] = p
    return latest


def names_of(data: DomainData, symbol: str) -> tuple[str, ...]:
    for h in data.holdings:
        if h.symbol == symbol:
            return (symbol, h.name, *h.short_names)
    return (symbol,)


def _mentions(text: str, data: DomainData, symbol: str) -> bool:
    return any(n and n in text for n in names_of(data, symbol))


def _numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(text.replace(",", ""))]


def _quotes_value(text: str, value: float, metric: str) -> bool:
    """The reply states `value` as shown to an investor: 0.79 for a Sharpe ratio; -46.8% or
    46.8% (or -0.468) for a fraction."""
    numbers = _numbers(text)
    if metric == "sharpe":
        return any(abs(n - value) <= 0.011 for n in numbers)
    percent = value * 100
    return any(abs(abs(n) - abs(percent)) <= 0.051 or abs(abs(n) - abs(value)) <= 0.00051 for n in numbers)


def _best(data: DomainData, metric: str, order: str) -> tuple[str, float] | None:
    held = {h.symbol for h in data.holdings}
    scored = [
        (getattr(p, metric), s)
        for s, p in _latest_profiles(data).items()
        if s in held and getattr(p, metric) is not None
    ]
    if not scored:
        return None
    # "highest max drawdown" reads as the deepest one: the most negative fraction.
    pick_max = (order == "max") != (metric == "max_drawdown")
    value, symbol = max(scored) if pick_max else min(scored)
    return symbol, value


def _is_stale(profile: Profile, now: datetime) -> bool:
    as_of = datetime.fromisoformat(profile.as_of)
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=now.tzinfo)
    return (now - as_of).days > PROFILE_FRESH_DAYS


# Each grader: (case, the check's args, reply) → (passed, detail). A case whose data set
# cannot answer its own check fails with a detail that says the case is wrong.
_Verdict = tuple[bool, str]


def _best_holding(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    data = case.data
    best = _best(data, a["metric"], a["order"])
    if best is None:
        return False, "数据集中没有可比较的持仓画像（用例有误）"
    return _mentions(reply.text, data, best[0]), f"应点名 {'/'.join(names_of(data, best[0]))}（{best[1]}）"


def _metric_value(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    profile = _latest_profiles(case.data).get(a["symbol"])
    value = getattr(profile, a["metric"]) if profile else None
    if value is None:
        return False, "数据集中没有该画像数值（用例有误）"
    return _quotes_value(reply.text, value, a["metric"]), f"应给出 {a['metric']} = {value}"


def _holding_figure(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    holding = next((h for h in case.data.holdings if h.symbol == a["symbol"]), None)
    if holding is None:
        return False, "数据集中没有该持仓（用例有误）"
    value = getattr(holding, a["field"])
    return any(abs(n - value) <= 0.006 for n in _numbers(reply.text)), f"应给出 {a['field']} = {value}"


def _quotes(pool: list[str], a: dict, reply: Reply) -> _Verdict:
    if not any(a["phrase"] in t for t in pool):
        return False, "短语不在数据集中（用例有误）"
    return a["phrase"] in reply.text, f"应引用「{a['phrase']}」"


def _quotes_note(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return _quotes([n.text for n in case.data.notes], a, reply)


def _quotes_report(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return _quotes([r.conclusion for r in case.data.reports], a, reply)


def _latest_decision(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    decisions = [d for d in case.data.decisions if a.get("symbol") in (None, d.symbol)]
    if not decisions:
        return False, "数据集中没有相关决策（用例有误）"
    latest = max(decisions, key=lambda d: d.decided_at)
    side = side_name(latest.side)
    ok = side in reply.text and any(abs(n - latest.price) <= 0.006 for n in _numbers(reply.text))
    return ok, f"应提到 {side} @ {latest.price}"


def _alert_stock(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    recent = max(case.data.alerts, key=lambda x: x.triggered_at, default=None)
    if recent is None or not recent.symbol:
        return False, "数据集中没有带代码的预警（用例有误）"
    return _mentions(reply.text, case.data, recent.symbol), f"应提到 {recent.symbol}"


def _stale_profile(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    profile = _latest_profiles(case.data).get(a["symbol"])
    if profile is None:
        return False, "数据集中没有该画像（用例有误）"
    stale = _is_stale(profile, case.now)
    said = any(w in reply.text for w in STALE_WORDS)
    return said == stale, f"画像{'已' if stale else '未'}过期，回复{'说了' if said else '没说'}过期"


def _calls_tool(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return a["tool"] in reply.tools, f"应调用 {a['tool']}，实际 {list(reply.tools) or '无'}"


def _no_tool(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return a["tool"] not in reply.tools, f"不应调用 {a['tool']}，实际 {list(reply.tools) or '无'}"


def _no_invented_symbol(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    data = case.data
    known = (
        {h.symbol for h in data.holdings}
        | {p.symbol for p in data.profiles}
        | {n.symbol for n in data.news if n.symbol}
        | {s.symbol for s in data.signals}
        | {d.symbol for d in data.decisions}
        | {x.symbol for x in data.alerts if x.symbol}
        | {s for r in data.reports for s in r.symbols}
        | {n.symbol for n in data.notes if n.symbol}
    )
    invented = sorted(set(_CODE.findall(reply.text)) - known)
    return not invented, f"回复中不在数据集里的代码：{invented or '无'}"


_GRADERS = {
    "best_holding": _best_holding,
    "metric_value": _metric_value,
    "holding_figure": _holding_figure,
    "quotes_note": _quotes_note,
    "quotes_report": _quotes_report,
    "latest_decision": _latest_decision,
    "alert_stock": _alert_stock,
    "stale_profile": _stale_profile,
    "calls_tool": _calls_tool,
    "no_tool": _no_tool,
    "no_invented_symbol": _no_invented_symbol,
}


def grade_check(case: AnswerCase, check: Check, reply: Reply) -> Grade:
    grader = _GRADERS.get(check.name, _no_invented_symbol)
    passed, detail = grader(case, check.args, reply)
    return Grade(check.describe(), passed, detail)


def grade(case: AnswerCase, reply: Reply) -> list[Grade]:
    return [grade_check(case, check, reply) for check in case.checks]


FULL = "none"  # the ablation name of the unablated run
ABLATIONS = (
    "portfolio_profiles",
    SYMBOL_CONTEXT,
    "notes",
    "decisions",
    "alerts",
    "reports",
    "holdings",
    "persona",
    ABLATE_ALL,
)
# Output is unknown before the model answers: an estimate per call for the cost preview.
EXPECTED_OUTPUT_TOKENS = 400
EXPECTED_CALLS_PER_CASE = 1.5


@dataclass(frozen=True)
class CaseOutcome:
    case_id: str
    category: str
    ablation: str
    passed: bool
    grades: list[Grade]
    reply: str
    tools: tuple[str, ...]
    usage: Usage
    error: str | None = None


@dataclass
class LiveReport:
    ablations: list[str]
    outcomes: list[CaseOutcome] = field(default_factory=list)

    def _of(self, ablation: str) -> list[CaseOutcome]:
        return [o for o in self.outcomes if o.ablation == ablation]

    def pass_rate(self, ablation: str = FULL) -> float:
        rows = self._of(ablation)
        return sum(o.passed for o in rows) / len(rows) if rows else 0.0

    def categories(self, ablation: str = FULL) -> dict[str, float]:
        table: dict[str, list[int]] = {}
        for o in self._of(ablation):
            row = table.setdefault(o.category, [0, 0])
            row[0] += o.passed
            row[1] += 1
        return {k: v[0] / v[1] for k, v in sorted(table.items())}

    def tokens(self) -> tuple[int, int]:
        prompt = sum(o.usage.prompt_tokens or 0 for o in self.outcomes)
        return prompt, sum(o.usage.completion_tokens or 0 for o in self.outcomes)

    def summary(self) -> dict:
        cases = len(self._of(FULL))
        return {
            "cases": cases,
            "pass_rate": self.pass_rate(),
            "ablations": {a: self.pass_rate(a) for a in self.ablations if a != FULL},
            "categories": self.categories(),
            "categories_by_ablation": {a: self.categories(a) for a in self.ablations if a != FULL},
        }


def ablation_set(name: str) -> frozenset[str]:
    return frozenset() if name == FULL else frozenset({name})


def _tools_called(agent, turn_id: int) -> tuple[str, ...]:
    names: list[str] = []
    for call in agent.store.calls_for_turn(turn_id):
        for part in json.loads(call.tool_calls_json or "[]"):
            names.append(str((part.get("function") or {}).get("name", "")))
    return tuple(names)


def _open_case(case: AnswerCase, client, ablation: str, workdir: Path, guardrails: Guardrails, temperature):
    safe = re.sub(r"[^0-9A-Za-z_.-]", "_", f"{case.id}-{ablation}")[:100]
    db = open_database(workdir / f"{safe}.db")
    market = Market(db)
    domain = market.investor
    domain.replace_all(case.data)
    # as `pixiu import` does: every stock the data set mentions has a name the questions can use
    market.securities.upsert(securities_for_document(case.data), keep_names=True)
    agent = build_agent(
        db,
        client,
        limits=MemoryLimits(),
        guardrails=guardrails,
        temperature=temperature,
        clock=lambda: case.now,
        domain=domain,
        ablate=ablation_set(ablation),
    )
    return db, agent


def run_case(
    case: AnswerCase, client, ablation: str, workdir: Path, *, guardrails: Guardrails, temperature: float | None = None
) -> CaseOutcome:
    db, agent = _open_case(case, client, ablation, workdir, guardrails, temperature)
    try:
        conversation = agent.store.create_conversation(title=f"eval {case.id}", model=client.model)
        result = agent.run_turn(conversation.id, case.message)
        reply = Reply(result.reply or "", _tools_called(agent, result.turn_id))
        grades = grade(case, reply)
        passed = result.status == "complete" and all(g.passed for g in grades)
        return CaseOutcome(
            case.id, case.category, ablation, passed, grades, reply.text, reply.tools, result.usage, result.error
        )
    finally:
        wait_for_explanations()  # the case's database is deleted with the run's folder
        db.close()


def estimate_prompt_tokens(cases: Sequence[AnswerCase], client, ablations: Sequence[str]) -> int:
    """The tokens the first call of every case × ablation would send, assembled without a model."""
    total = 0
    with tempfile.TemporaryDirectory(prefix="pixiu-eval-live-") as tmp:
        for case in cases:
            for ablation in ablations:
                db, agent = _open_case(case, client, ablation, Path(tmp), Guardrails(), None)
                try:
                    body, _ = agent.preview(None, case.message)
                    total += count_tokens(json.dumps(body["messages"], ensure_ascii=False))
                    total += count_tokens(json.dumps(body.get("tools") or [], ensure_ascii=False))
                finally:
                    db.close()
    return int(total * EXPECTED_CALLS_PER_CASE)


def run_live(
    cases: Sequence[AnswerCase],
    client,
    ablations: Sequence[str],
    *,
    guardrails: Guardrails,
    temperature: float | None = None,
    progress: Callable[[CaseOutcome], None] | None = None,
) -> LiveReport:
    report = LiveReport(ablations=[FULL, *[a for a in ablations if a != FULL]])
    with tempfile.TemporaryDirectory(prefix="pixiu-eval-live-") as tmp:
        for ablation in report.ablations:
            for case in cases:
                outcome = run_case(case, client, ablation, Path(tmp), guardrails=guardrails, temperature=temperature)
                report.outcomes.append(outcome)
                if progress:
                    progress(outcome)
    return report


# A Tuesday mid-morning: every case's 今天 is a trading day.
NOW = "2026-11-24T10:15:00+08:00"
# The account every case starts from: each stock of the set held (so a reported sale is one
# the ledger can make), stated the week before.
HELD = (
    ("600519", "贵州茅台", ["茅台"], 1000, 1600.0),
    ("000858", "五粮液", [], 2000, 140.0),
    ("300750", "宁德时代", ["宁王"], 2000, 220.0),
    ("601318", "中国平安", ["平安"], 5000, 48.0),
    ("600036", "招商银行", ["招行"], 5000, 35.0),
    ("002594", "比亚迪", ["迪王"], 2000, 260.0),
    ("000333", "美的集团", ["美的"], 2000, 70.0),
    ("601012", "隆基绿能", ["隆基"], 10000, 20.0),
    ("688981", "中芯国际", ["中芯"], 2000, 95.0),
    ("002415", "海康威视", ["海康"], 5000, 31.0),
)


def consent_sets() -> dict[str, tuple[list[dict], tuple]]:
    """split name → (its cases, the account they start from), from data/consent/*.json: a
    list of cases (the account HELD), or {"account": [[symbol, name, short names, shares,
    cost], …], "cases": […]}."""
    sets = {}
    for path in sorted((data_dir() / "consent").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            sets[path.stem] = (data, HELD)
        else:
            sets[path.stem] = (data["cases"], tuple(tuple(row) for row in data["account"]))
    return sets


def _account_document(path: Path, held: tuple) -> None:
    holdings = [
        {"symbol": s, "name": n, "short_names": list(short), "shares": q, "cost": c, "role": "core",
         "updated_at": "2026-11-17T15:00:00+08:00"}
        for s, n, short, q, c in held
    ]  # fmt: skip
    path.write_text(json.dumps({"holdings": holdings}, ensure_ascii=False), encoding="utf-8")


@contextmanager
def _template(held: tuple) -> Iterator[Path]:
    """A database holding the account, built once through the import use case."""
    from pixiu_cli.account.handle import Account
    from pixiu_cli.home.documents import BackupPlace, import_document

    with tempfile.TemporaryDirectory(prefix="pixiu-consent-") as folder:
        base = Path(folder)
        _account_document(base / "account.json", held)
        db = open_database(base / "template.db")
        try:
            place = BackupPlace(base / "backups", "pixiu")
            home, account = Home(db), Account(db)
            import_document(
                home, account, base / "account.json", datetime.fromisoformat(NOW), replace=False, place=place
            )
        finally:
            db.close()
        yield base


def _recorded(base: Path, index: int, case: dict) -> bool:
    """The call made on a copy of the account: whether it recorded a trade."""
    from pixiu_cli.conversation.model_tools import model_tools

    path = base / f"case{index}.db"
    shutil.copyfile(base / "template.db", path)
    db = open_database(path)
    try:
        now = datetime.fromisoformat(NOW)
        ctx = ToolContext(Memory(db), lambda: now).for_turn(case["message"])
        before = len(ctx.account.store.fills())
        try:
            model_tools().get("record_decision").handler(ctx, dict(case["call"], reason="用户说的"))
        except ToolArgumentError:  # refused as the loop would refuse it: nothing recorded
            pass
        return len(ctx.account.store.fills()) > before
    finally:
        db.close()
        path.unlink(missing_ok=True)


def run_consent(cases: list[dict], held: tuple = HELD) -> EvalReport:
    results = []
    with _template(held) as base:
        for index, case in enumerate(cases):
            recorded = _recorded(base, index, case)
            passed = recorded == (case["expected"] == "record")
            said = "记录了" if recorded else "没有记录"
            failures = [] if passed else [f"{said}：{case['message']} → {json.dumps(case['call'], ensure_ascii=False)}"]
            results.append(CaseResult(case["id"], case["family"], passed, failures))
    return EvalReport(results)


def run_consent_sets() -> dict[str, EvalReport]:
    return {split: run_consent(cases, held) for split, (cases, held) in consent_sets().items()}


class LiveEvalError(UserError):
    """One line for the user."""


@dataclass(frozen=True)
class LiveOptions:
    cases: list[Path] | None
    ablate: list[str]
    yes: bool
    as_json: bool


def parse_ablations(values: list[str]) -> list[str]:
    names: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if name not in ABLATIONS:
                raise LiveEvalError(f"未知的消融项 {name!r}（可用：{', '.join(ABLATIONS)}）")
            names.append(name)
    return list(dict.fromkeys(names))


def _client(settings: Settings):
    """The model to evaluate, and the offline server behind it when there is no key."""
    if settings.offline:
        from pixiu_cli.conversation.offline import grounded
        from pixiu_cli.conversation.offline.server import OfflineServer

        server = OfflineServer(cache_profile=settings.offline_cache_profile, responder=grounded.respond).start()
        client = chat_client(
            settings,
            base_url=server.base_url,
            api_key="pixiu-offline",
            model="pixiu-offline-reader",
            provider="offline",
        )
        return client, server
    return chat_client(settings), None


def _cost_line(settings: Settings, prompt_tokens: int, output_tokens: int) -> str:
    prices = configured(settings).prices
    rates = prices.rates_for(settings.model) or prices.rates_for("deepseek-flash")
    cost = (prompt_tokens * rates.miss + output_tokens * rates.output) / 1e6
    return (
        f"预计约 {prompt_tokens:,} 输入 tokens、{output_tokens:,} 输出 tokens，"
        f"最多约 {cost:.2f} {prices.currency}（按未命中缓存计；{prices.source}）"
    )


def run_command(settings: Settings, options: LiveOptions, renderer) -> LiveReport:
    cases = load_answer_cases(options.cases)
    ablations = [FULL, *parse_ablations(options.ablate)]
    client, server = _client(settings)
    try:
        if settings.offline:
            renderer.warn(
                "离线：未设置 API key，回答来自本地离线评测模型（只会照读请求里的资料），不是真实模型；"
                "结果只说明上下文里有没有所需资料。"
            )
        else:
            runs = len(cases) * len(ablations)
            prompt = estimate_prompt_tokens(cases, client, ablations)
            output = int(runs * EXPECTED_CALLS_PER_CASE * EXPECTED_OUTPUT_TOKENS)
            renderer.line(
                f"将调用 {settings.provider} · {settings.model}：{len(cases)} 个用例 × {len(ablations)} 组，"
                f"{_cost_line(settings, prompt, output)}"
            )
            if not options.yes:
                if not sys.stdin.isatty():
                    raise LiveEvalError("这会调用付费模型：确认后加 --yes 再运行")
                if not renderer.confirm("继续吗？"):
                    raise LiveEvalError("已取消，没有调用模型")
        started = iso(clock_of(settings)())
        report = run_live(
            cases,
            client,
            ablations,
            guardrails=configured(settings).guardrails,
            temperature=settings.temperature,
            progress=None
            if options.as_json
            else lambda o: renderer.dim(f"{'✓' if o.passed else '✗'} {o.case_id} [{o.ablation}]"),
        )
        _save(settings, report, started, client, len(cases))
        return report
    finally:
        if server is not None:
            server.stop()


def _save(settings: Settings, report: LiveReport, started: str, client, cases: int) -> None:
    db = open_database(settings.db_path)
    try:
        rows = [
            EvalResultRow(
                o.ablation,
                o.case_id,
                o.category,
                o.passed,
                o.reply,
                list(o.tools),
                [{"check": g.check, "passed": g.passed, "detail": g.detail} for g in o.grades],
                o.error,
                o.usage.prompt_tokens,
                o.usage.completion_tokens,
                o.usage.cache_hit_tokens,
                o.usage.cache_miss_tokens,
            )
            for o in report.outcomes
        ]
        EvalRunStore(db).save(
            started_at=started,
            finished_at=iso(clock_of(settings)()),
            provider=client.provider,
            model=client.model,
            offline=settings.offline,
            cases=cases,
            ablations=report.ablations,
            summary=report.summary(),
            results=rows,
        )
    finally:
        db.close()


def render_report(report: LiveReport, renderer, *, offline: bool, as_json: bool) -> None:
    summary = {**report.summary(), "offline": offline}
    if as_json:
        prompt, completion = report.tokens()
        renderer.json({**summary, "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})
        return

    show_live_report(renderer, report, offline=offline, full=FULL)


def render_history(settings: Settings, renderer, *, as_json: bool) -> None:
    db = open_database(settings.db_path)
    try:
        runs = EvalRunStore(db).runs()
    finally:
        db.close()
    if as_json:
        renderer.json(
            [
                {
                    "id": r.id,
                    "started_at": r.started_at,
                    "provider": r.provider,
                    "model": r.model,
                    "offline": r.offline,
                    "cases": r.cases,
                    **r.summary,
                }
                for r in runs
            ]
        )
        return

    show_eval_runs(renderer, runs)
