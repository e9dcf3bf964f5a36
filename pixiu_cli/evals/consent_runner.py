"""The consent eval: does a trade the model states get recorded only when the user's words of
the turn report their own fill? Each case of `data/consent/` is a message and the
`record_decision` call an eager model would make for it; the call runs through the real tool
(`services/model_tools.py`) on a copy of one account, and the case passes when the trade was
recorded exactly when it should be ("record") and otherwise left unrecorded ("propose": a
proposal, or refused). The held-out set was written apart from the project by someone who never
read the parser's word lists; it is measured, never tuned on."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pixiu_cli.evals.contexts import CaseResult, EvalReport
from pixiu_cli.kernel.db.database import open_database
from pixiu_cli.kernel.db.shared_stores import stores_of
from pixiu_cli.kernel.resources import data_dir

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
    from pixiu_cli.home.documents import BackupPlace, import_document

    with tempfile.TemporaryDirectory(prefix="pixiu-consent-") as folder:
        base = Path(folder)
        _account_document(base / "account.json", held)
        db = open_database(base / "template.db")
        try:
            place = BackupPlace(base / "backups", "pixiu")
            import_document(db, base / "account.json", datetime.fromisoformat(NOW), replace=False, place=place)
        finally:
            db.close()
        yield base


def _recorded(base: Path, index: int, case: dict) -> bool:
    """The call made on a copy of the account: whether it recorded a trade."""
    from pixiu_cli.conversation.agent.tools import ToolArgumentError, ToolContext
    from pixiu_cli.conversation.model_tools import model_tools

    path = base / f"case{index}.db"
    shutil.copyfile(base / "template.db", path)
    db = open_database(path)
    try:
        before = len(stores_of(db).account.fills())
        now = datetime.fromisoformat(NOW)
        stores = stores_of(db)
        ctx = ToolContext(stores.investor, stores.memory, stores.portfolio, lambda: now).for_turn(case["message"])
        try:
            model_tools().get("record_decision").handler(ctx, dict(case["call"], reason="用户说的"))
        except ToolArgumentError:  # refused as the loop would refuse it: nothing recorded
            pass
        return len(stores_of(db).account.fills()) > before
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
