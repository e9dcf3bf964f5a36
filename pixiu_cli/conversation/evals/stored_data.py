"""Market data a context eval case stores beside its data set (the case's `stored` option):
fundamentals, benchmark bars and a whole-market session, as the syncs would have written
them. A file of ``data/evals/datasets/stored/`` holds:

``valuations``  ``{symbol: {"source": s, "rows": [[date, close, pe_ttm, pb_mrq, ps_ttm], …]}}``
``reports``     ``[{symbol, period, source, published, revenue, …}]`` (FinancialReport's fields)
``dividends``   ``[{symbol, source, announced, ex_date, cash, summary, …}]``
``bars``        ``{symbol: {"source": s, "closes": [[date, close], …]}}``: the index benchmarks, and
                the holdings' own closes (a holding with bars is valued at its last close)
``snapshot``    ``{"breadth": {…Breadth's fields}, "industries": [{…IndustryMove's fields}]}``

Numbers are written as JSON numbers or strings and stored as the decimals they spell."""

from __future__ import annotations

import json
from dataclasses import fields
from decimal import Decimal
from pathlib import Path

from pixiu_cli.conversation.evals.case_files import DATASETS_FOLDER, default_cases_dir
from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.market.bars import Bar, SeriesWrite
from pixiu_cli.market.fundamentals.model import Dividend, FinancialReport, FundamentalsWrite, ValuationDay
from pixiu_cli.market.review.model import Breadth, IndustryMove, Snapshot

STORED_FOLDER = "stored"
_KEYS = {"valuations", "reports", "dividends", "bars", "snapshot"}


def stored_data(value, source: Path | None, fail) -> dict:
    """The file a case names, parsed (its keys checked)."""
    if not isinstance(value, str) or Path(value).name != value or not value.strip():
        raise fail("stored 应为 datasets/stored/ 下的文件名")
    name = value if value.endswith(".json") else f"{value}.json"
    folders = [source.parent / DATASETS_FOLDER / STORED_FOLDER] if source else []
    folders.append(default_cases_dir() / DATASETS_FOLDER / STORED_FOLDER)
    path = next((f / name for f in folders if (f / name).is_file()), None)
    if path is None:
        raise fail(f"找不到已存数据文件 {name}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise fail(f"已存数据 {name} 不是有效的 JSON（第 {exc.lineno} 行：{exc.msg}）") from None
    if not isinstance(data, dict) or set(data) - _KEYS:
        raise fail(f"已存数据 {name} 只能有 {'、'.join(sorted(_KEYS))}")
    return data


def _decimal(value) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _typed(cls, row: dict):
    names = {f.name: str(f.type) for f in fields(cls)}
    return cls(**{k: _decimal(v) if "Decimal" in names[k] else v for k, v in row.items()})


def write_stored(db, data: dict, at: str) -> None:
    store = stores_of(db).fundamentals
    reports, dividends = data.get("reports", []), data.get("dividends", [])
    symbols = set(data.get("valuations", {})) | {r["symbol"] for r in reports} | {d["symbol"] for d in dividends}
    for symbol in sorted(symbols):
        spec = data.get("valuations", {}).get(symbol, {"source": "baostock", "rows": []})
        days = tuple(
            ValuationDay(symbol, d, spec["source"], *(_decimal(v) for v in values)) for d, *values in spec["rows"]
        )
        mine = tuple(_typed(FinancialReport, r) for r in reports if r["symbol"] == symbol)
        paid = tuple(_typed(Dividend, d) for d in dividends if d["symbol"] == symbol)
        store.write(FundamentalsWrite(symbol, spec["source"], at, days, mine, paid))
    for symbol, spec in data.get("bars", {}).items():
        bars = [Bar(d, c, c, c, c, 1e9) for d, c in spec["closes"]]
        stores_of(db).market.write_series(SeriesWrite(symbol, bars, spec["source"], at))
    if "snapshot" in data:
        breadth = _typed(Breadth, data["snapshot"]["breadth"])
        industries = tuple(_typed(IndustryMove, i) for i in data["snapshot"].get("industries", []))
        stores_of(db).market_review.write(Snapshot(breadth, industries))
