"""The import/export document: validation with errors that name the field and the row,
and conversion to and from the store's data classes.

Timestamps are normalised to ISO 8601 in Asia/Shanghai (`2026-11-27T09:30:00+08:00`) so the
store can compare them as strings. A date alone means midnight; a naive time means Shanghai
time; `days_ago` (+ optional `time`) is a convenience for demo and eval data."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import replace as dataclass_replace
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from pixiu_cli.account.model import FILL_KINDS, SHARE_KINDS
from pixiu_cli.home.model import (
    LEDGER,
    STATED,
    AccountLedger,
    Alert,
    Decision,
    DomainData,
    Holding,
    MemoryEvent,
    NewsItem,
    Profile,
    Report,
    Signal,
)
from pixiu_cli.kernel.clock import SHANGHAI
from pixiu_cli.kernel.errors import UserError, os_reason
from pixiu_cli.kernel.vocabulary import AUTHOR_IMPORT, AUTHORS, NOTE_KINDS, SIDES, normalise_code
from pixiu_cli.market.plausible import (
    fill_problems,
    future_problem,
    market_date_problem,
    money_problem,
    price_problem,
    shares_problem,
)

SECTIONS = ("holdings", "profiles", "news", "signals", "reports", "decisions", "alerts", "notes", "persona")
ACCOUNT = "account"  # the ledger: fills and stated cash balances (AccountLedger)
# 2: the account section, where news and reports came from, the ids fills link decisions by
FORMAT_VERSION = 2
ROLES = ("core", "satellite")
LAYERS = ("事实", "逻辑工具", "情绪观点", "混合")
# JSON may spell lone UTF-16 surrogates ("\ud800"); Python keeps them, SQLite cannot store them.
_SURROGATE = re.compile("[\ud800-\udfff]")


class DatasetError(UserError):
    """An invalid document; the message names the field and the row."""


def normalise_timestamp(value, where: str, now: datetime) -> str:
    try:
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            moment = datetime.combine(date.fromisoformat(value), time(0, 0), SHANGHAI)
        elif isinstance(value, str):
            moment = datetime.fromisoformat(value)
            moment = moment.replace(tzinfo=SHANGHAI) if moment.tzinfo is None else moment.astimezone(SHANGHAI)
        else:
            raise ValueError
        # Shanghai's offset before 1901 is +08:05:43, which pushes 0001-01-01 below the first
        # UTC instant: such a moment could be stored but never read back, so it is refused here.
        moment.astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: 0001-01-01/9999-12-31 shifted out of range
        raise DatasetError(f"{where}：无法识别的日期时间 {value!r}（应为 YYYY-MM-DD 或 ISO 8601）") from None
    # a row from the future would list first and reach the context as a fact, as a synced one cannot
    if problem := future_problem(moment.date(), now.astimezone(SHANGHAI).date()):
        raise DatasetError(f"{where}：{problem}")
    return moment.isoformat(timespec="seconds")


class _Row:
    def __init__(self, section: str, index: int, raw, now: datetime):
        if not isinstance(raw, dict):
            raise DatasetError(f"{section}[{index}]：应为对象")
        self.section, self.index, self.raw, self.now = section, index, raw, now

    def where(self, name: str) -> str:
        return f"{self.section}[{self.index}].{name}"

    def text(self, name: str, required: bool = True, choices: tuple[str, ...] | None = None) -> str | None:
        value = self.raw.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise DatasetError(f"{self.where(name)}：缺少必填字段")
            return None
        if not isinstance(value, str):
            raise DatasetError(f"{self.where(name)}：应为字符串")
        if choices and value not in choices:
            raise DatasetError(f"{self.where(name)}：应为 {' / '.join(choices)} 之一，而不是 {value!r}")
        return value

    def symbol(self, name: str = "symbol", required: bool = True) -> str | None:
        value = self.raw.get(name)
        if value is None and not required:
            return None
        return _code(value, self.where(name))

    def number(
        self, name: str, required: bool = True, positive: bool = False, plausible: Callable | None = None
    ) -> float | None:
        value = self.raw.get(name)
        if value is None and not required:
            return None
        if value is None:
            raise DatasetError(f"{self.where(name)}：缺少必填字段")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise DatasetError(f"{self.where(name)}：应为数字，而不是 {_short(value)}")
        if positive and value <= 0:
            raise DatasetError(f"{self.where(name)}：应大于 0")
        if plausible and (problem := plausible(float(value))):
            raise DatasetError(f"{self.where(name)}：{problem}")
        return float(value)

    def moment(self, name: str, required: bool = True) -> str | None:
        if "days_ago" in self.raw and name not in self.raw:
            days = self.raw["days_ago"]
            if isinstance(days, bool) or not isinstance(days, (int, float)) or not _finite(days) or days < 0:
                raise DatasetError(f"{self.where('days_ago')}：应为非负数字")
            clock = self.raw.get("time", "09:00")
            try:
                at = time.fromisoformat(clock)
            except (TypeError, ValueError):
                raise DatasetError(f"{self.where('time')}：应为 HH:MM") from None
            try:
                day = (self.now.astimezone(SHANGHAI) - timedelta(days=days)).date()
            except OverflowError:
                raise DatasetError(f"{self.where('days_ago')}：天数过大（{_short(days)}）") from None
            return datetime.combine(day, at, SHANGHAI).isoformat(timespec="seconds")
        value = self.raw.get(name, self.raw.get("date"))
        if value is None:
            if required:
                raise DatasetError(f"{self.where(name)}：缺少必填字段")
            return None
        return normalise_timestamp(value, self.where(name), self.now)

    def stamp(self, name: str) -> str | None:
        """An optional timestamp of its own: neither `date` nor `days_ago` stands in for it."""
        value = self.raw.get(name)
        return None if value is None else normalise_timestamp(value, self.where(name), self.now)

    def day(self, name: str) -> str:
        value = self.text(name)
        try:
            if _DAY.fullmatch(value):
                return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
        raise DatasetError(f"{self.where(name)}：应为日期 YYYY-MM-DD，而不是 {_short(value)}")

    def whole(self, name: str) -> int | None:
        value = self.raw.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise DatasetError(f"{self.where(name)}：应为正整数，而不是 {_short(value)}")
        return value

    def carried(self, known) -> dict:
        """The row's other fields, as they are: columns this version does not check (one a
        later version added) travel through, and the store refuses those it has no column for."""
        extra = {}
        for key, value in self.raw.items():
            if key in known:
                continue
            if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
                raise DatasetError(f"{self.where(key)}：应为字符串、数字或 null")
            extra[key] = value
        return extra


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _code(value, where: str) -> str:
    """Six ASCII digits however the file spells them (６００５１９, ٦٠٠٥١٩, "600519\\n"), so one
    stock never becomes several rows and no line break reaches the context block."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**6:
        return f"{value:06d}"
    code = normalise_code(value)
    if code is None:
        raise DatasetError(f"{where}：应为六位股票代码，而不是 {_short(value)}")
    return code


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float (JSON allows 10**400)
        return False


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _check_values(doc) -> None:
    """Every key and string in the document must be storable as UTF-8 and every number finite
    (JSON parsers accept NaN, Infinity and 1e999; pixiu's export never writes them); name the
    first that is not."""
    stack = [(doc, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise DatasetError(f"{where or '顶层'}：应为有限数字，而不是 {_short(value)}")
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise DatasetError(f"{where}：含有无效的 Unicode 字符（孤立的代理项 \\ud800–\\udfff），无法保存")
        elif isinstance(value, dict):
            for key in value:
                if _SURROGATE.search(key):
                    raise DatasetError(f"{where or '顶层'}：字段名含有无效的 Unicode 字符（孤立的代理项），无法保存")
            stack.extend((v, f"{where}.{k}" if where else k) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))


def _list(doc: dict, section: str, where: str | None = None) -> list:
    value = doc.get(section, [])
    if not isinstance(value, list):
        raise DatasetError(f"{where or section}：应为数组")
    return value


def _holdings(rows: list, now: datetime) -> list[Holding]:
    holdings, seen = [], set()
    for i, raw in enumerate(rows):
        r = _Row("holdings", i, raw, now)
        symbol = r.symbol()
        if symbol in seen:
            raise DatasetError(f"{r.where('symbol')}：重复的持仓 {symbol}")
        seen.add(symbol)
        shorts = raw.get("short_names", [])
        if not isinstance(shorts, list) or not all(isinstance(s, str) and s.strip() for s in shorts):
            raise DatasetError(f"{r.where('short_names')}：应为非空字符串数组")
        holdings.append(
            Holding(
                symbol,
                r.text("name"),
                tuple(shorts),
                r.number("shares", positive=True, plausible=shares_problem),
                r.number("cost", positive=True, plausible=price_problem),
                r.text("role", choices=ROLES),
                r.moment("updated_at", required=False),
                r.text("basis", required=False, choices=(STATED, LEDGER)) or STATED,
            )
        )
    return holdings


def _profile(r: _Row) -> Profile:
    return Profile(
        0,
        r.symbol(),
        r.text("strategy"),
        r.text("period", False),
        r.number("annual_return", False),
        r.number("max_drawdown", False),
        r.number("win_rate", False),
        r.number("sharpe", False),
        r.text("best_role", False, ROLES),
        r.text("conclusion", False),
        r.moment("as_of"),
    )


def _news_item(r: _Row) -> NewsItem:
    return NewsItem(
        0,
        r.symbol(required=False),
        r.text("title"),
        r.text("summary", False),
        r.text("source", False),
        r.text("layer", False, LAYERS),
        # a fetched item may be undated (its feed's time was unreadable); one written by hand is dated
        r.moment("published_at", required="fetched_at" not in r.raw),
        url=r.text("url", False),
        fetched_at=r.stamp("fetched_at"),
        provider=r.text("provider", False),
        dedup_key=r.text("dedup_key", False),
    )


# A signal's components are a few named figures; deeper nesting only breaks the export later.
MAX_COMPONENT_DEPTH = 8


def _depth(value) -> int:
    """How deeply lists and objects nest, without recursion (600 levels must not overflow)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _signal(r: _Row) -> Signal:
    components = r.raw.get("components", {})
    if not isinstance(components, dict):
        raise DatasetError(f"{r.where('components')}：应为对象")
    if _depth(components) > MAX_COMPONENT_DEPTH:
        raise DatasetError(f"{r.where('components')}：嵌套超过 {MAX_COMPONENT_DEPTH} 层")
    return Signal(0, r.symbol(), r.number("score"), r.text("direction", False), components, r.moment("as_of"))


def _report(r: _Row) -> Report:
    symbols = r.raw.get("symbols", [])
    if not isinstance(symbols, list):
        raise DatasetError(f"{r.where('symbols')}：应为六位代码数组")
    codes = tuple(_code(s, f"{r.where('symbols')}[{j}]") for j, s in enumerate(symbols))
    return Report(
        0,
        r.text("title"),
        codes,
        r.text("conclusion"),
        r.moment("created_at"),
        as_of=r.text("as_of", False),
        origin=r.text("origin", False),
    )


def _decision(r: _Row) -> Decision:
    return Decision(
        r.whole("id") or 0,  # only for the account's fills to link it by (0: none)
        r.symbol(),
        r.text("side", choices=SIDES),
        r.number("price", positive=True, plausible=price_problem),
        r.number("quantity", positive=True, plausible=shares_problem),
        r.text("reason", False),
        r.moment("decided_at"),
        r.text("source", False) or "import",
    )


def _alert(r: _Row) -> Alert:
    return Alert(0, r.symbol(required=False), r.text("rule", False), r.text("message"), r.moment("triggered_at"))


def _note(r: _Row) -> MemoryEvent:
    return MemoryEvent(
        0,
        "user_note",
        r.text("kind", choices=NOTE_KINDS),
        r.symbol(required=False),
        r.text("text"),
        r.moment("created_at"),
        r.text("source", False) or "import",
        author=_author(r),
    )


def _author(r: _Row) -> str:
    """A note of a document is imported, unless the document says who wrote it: a proposal
    exported and imported back stays one."""
    return r.text("author", False, AUTHORS) or AUTHOR_IMPORT


# Every row section after holdings (which also checks for duplicates across rows), in document
# order, so the first invalid row reported is the same whichever order the keys are written in.
_ROW_PARSERS = {
    "profiles": _profile,
    "news": _news_item,
    "signals": _signal,
    "reports": _report,
    "decisions": _decision,
    "alerts": _alert,
    "notes": _note,
}


def _persona(doc: dict) -> dict[str, str]:
    persona = doc.get("persona", {})
    if not isinstance(persona, dict):
        raise DatasetError("persona：应为对象")
    for key, value in persona.items():
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise DatasetError(f"persona.{key}：应为字符串或数字")
    return {k: str(v) for k, v in persona.items()}


def _version(doc: dict) -> None:
    version = doc.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
        raise DatasetError(
            f"version：这个 pixiu 读得懂的格式版本是 1–{FORMAT_VERSION}，而不是 {_short(version)}"
            "（更新版本的 pixiu 导出的文件请用新版本导入）"
        )


def _unique(items: list, value: Callable, section: str, name: str) -> None:
    """No two rows of `section` give the same non-empty `name`."""
    first: dict = {}
    for i, item in enumerate(items):
        key = value(item)
        if key is not None and first.setdefault(key, i) != i:
            raise DatasetError(f"{section}[{i}].{name}：与 {section}[{first[key]}] 重复（{_short(key)}）")


_FILL_NUMBERS = ("quantity", "price", "amount", "fees", "cash_change", "balance")
# broker_account: the account a row belongs to (an older document has none: the default one)
_FILL_TEXTS = ("time", "name", "account", "contract", "origin", "source_file", "recorded_at", "broker_account")


def _ledger_day(r: _Row, name: str) -> str:
    """A day of the account: between the market's first session and tomorrow."""
    day = r.day(name)
    if problem := market_date_problem(date.fromisoformat(day), r.now.astimezone(SHANGHAI).date()):
        raise DatasetError(f"{r.where(name)}：{problem}")
    return day


def _fill(r: _Row, decisions: set[int]) -> dict:
    row = {
        "fill_id": r.text("fill_id"),
        "day": _ledger_day(r, "day"),
        "kind": r.text("kind", choices=FILL_KINDS),
        "symbol": r.symbol(required=False),
        **{name: r.number(name, required=False) for name in _FILL_NUMBERS},
        **{name: r.text(name, False) for name in _FILL_TEXTS},
        "decision_id": r.whole("decision_id"),
    }
    # the checks a statement's rows pass: a ledger arriving as JSON is no more believable
    values = {k: row[k] for k in _FILL_NUMBERS if row[k] is not None}
    for field, problem in fill_problems(moves_shares=row["kind"] in SHARE_KINDS, **values):
        raise DatasetError(f"{r.where(field)}：{problem}")
    if row["decision_id"] is not None and row["decision_id"] not in decisions:
        raise DatasetError(f"{r.where('decision_id')}：decisions 中没有 id 为 {row['decision_id']} 的操作决策")
    row.update(r.carried(row))
    return {k: v for k, v in row.items() if v is not None}


def _cash(r: _Row) -> dict:
    row = {
        "amount": r.number("amount", plausible=money_problem),
        "as_of": _ledger_day(r, "as_of"),
        "source": r.text("source", False),
    }
    row["set_at"] = r.text("set_at", False)
    row["broker_account"] = r.text("broker_account", False)
    row.update(r.carried(row))
    return {k: v for k, v in row.items() if v is not None}


def _account(doc: dict, now: datetime, decisions: set[int]) -> AccountLedger | None:
    """The ledger, or None when the document has no account section (an older export)."""
    if ACCOUNT not in doc:
        return None
    account = doc[ACCOUNT]
    if not isinstance(account, dict):
        raise DatasetError(f"{ACCOUNT}：应为对象（fills、cash）")
    unknown = sorted(set(account) - {"fills", "cash"})
    if unknown:
        raise DatasetError(f"{ACCOUNT}：未知的字段 {', '.join(unknown)}（可用：fills, cash）")
    where = f"{ACCOUNT}.fills"
    fills = [_fill(_Row(where, i, raw, now), decisions) for i, raw in enumerate(_list(account, "fills", where))]
    _unique(fills, lambda f: f["fill_id"], where, "fill_id")
    where = f"{ACCOUNT}.cash"
    cash = [_cash(_Row(where, i, raw, now)) for i, raw in enumerate(_list(account, "cash", where))]
    return AccountLedger(tuple(fills), tuple(cash))


def parse_document(doc, now: datetime) -> DomainData:
    if not isinstance(doc, dict):
        raise DatasetError("文档顶层应为 JSON 对象")
    unknown = sorted(set(doc) - set(SECTIONS) - {ACCOUNT, "$schema", "comment", "version"})
    if unknown:
        raise DatasetError(f"未知的顶层字段：{', '.join(unknown)}（可用：{', '.join((*SECTIONS, ACCOUNT))}）")
    _check_values(doc)
    _version(doc)
    holdings = _holdings(_list(doc, "holdings"), now)
    rows = {
        section: [parse(_Row(section, i, raw, now)) for i, raw in enumerate(_list(doc, section))]
        for section, parse in _ROW_PARSERS.items()
    }
    _unique(rows["news"], lambda n: n.dedup_key, "news", "dedup_key")
    _unique(rows["decisions"], lambda d: d.id or None, "decisions", "id")
    account = _account(doc, now, {d.id for d in rows["decisions"] if d.id})
    # an id no fill links by says nothing: dropped, so the document reads back the same
    linked = {f.get("decision_id") for f in account.fills} if account else set()
    rows["decisions"] = [d if d.id in linked else dataclass_replace(d, id=0) for d in rows["decisions"]]
    read_at = now.astimezone(SHANGHAI).isoformat(timespec="seconds")
    return DomainData(holdings, **rows, persona=_persona(doc), account=account, read_at=read_at)


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object naming a field twice is ambiguous (json takes the last silently): refuse it."""
    doc = dict(pairs)
    if len(doc) != len(pairs):
        seen: set[str] = set()
        raise _DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return doc


def load_document(path: Path, now: datetime) -> DomainData:
    try:
        text = path.read_text(encoding="utf-8-sig")  # Windows editors start UTF-8 with a BOM
    except FileNotFoundError:
        raise DatasetError(f"找不到文件 {path}") from None
    except IsADirectoryError:
        raise DatasetError(f"{path} 是目录，不是文件") from None
    except UnicodeDecodeError:
        raise DatasetError(f"{path} 不是 UTF-8 文本文件") from None
    except OSError as exc:  # permission denied, a device that cannot be read …
        raise DatasetError(f"无法读取文件 {path}：{os_reason(exc)}") from None
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise DatasetError(f"{path.name} 中的对象有重复的字段「{exc.key}」，无法确定用哪个值") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path.name} 不是有效的 JSON（第 {exc.lineno} 行第 {exc.colno} 列：{exc.msg}）") from None
    except RecursionError:
        raise DatasetError(f"{path.name} 的 JSON 嵌套过深") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise DatasetError(f"{path.name} 不是可接受的 JSON：{exc}") from None
    return parse_document(doc, now)


def to_document(data: DomainData) -> dict:
    def strip(obj, *drop):
        row = {k: (list(v) if isinstance(v, tuple) else v) for k, v in obj.__dict__.items() if k not in drop}
        return {k: v for k, v in row.items() if v is not None}

    account = data.account
    linked = {f.get("decision_id") for f in account.fills} if account else set()
    document = {
        "holdings": [strip(h) for h in data.holdings],
        "profiles": [strip(p, "id") for p in data.profiles],
        "news": [strip(n, "id") for n in data.news],
        "signals": [strip(s, "id") for s in data.signals],
        "reports": [strip(r, "id") for r in data.reports],
        # a decision's id is written only for the fills that link it
        "decisions": [strip(d) if d.id in linked else strip(d, "id") for d in data.decisions],
        "alerts": [strip(a, "id") for a in data.alerts],
        "notes": [
            {
                "kind": n.note_kind,
                "symbol": n.symbol,
                "text": n.text,
                "created_at": n.created_at,
                "source": n.source,
                "author": n.author,
            }
            for n in data.notes
        ],
        "persona": dict(data.persona),
    }
    if account is not None:
        document[ACCOUNT] = {
            part: [{k: v for k, v in row.items() if v is not None} for row in rows]
            for part, rows in (("fills", account.fills), ("cash", account.cash))
        }
    return document


def _finite_copy(value, where: str, replaced: list[str]):
    """`value` with every non-finite float turned into None, noting where."""
    if isinstance(value, float) and not math.isfinite(value):
        replaced.append(f"{where}（{value!r}）")
        return None
    if isinstance(value, list):
        return [_finite_copy(v, f"{where}[{i}]", replaced) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _finite_copy(v, f"{where}.{k}", replaced) for k, v in value.items()}
    return value


def export_document(data: DomainData, now: datetime) -> tuple[dict, list[str]]:
    """The document `pixiu export` writes, and one line per thing it had to change to keep
    the promise that an exported file always re-imports: a value the database holds but JSON
    cannot (NaN, ±Infinity) is written as null, and a row that would still not import (a
    required number missing, a holding whose code now folds onto another) is left out."""
    notes: list[str] = []
    document: dict = {"version": FORMAT_VERSION}
    for section, rows in to_document(data).items():
        if section == "persona":
            replaced: list[str] = []
            document[section] = _finite_copy(rows, section, replaced)
            notes += [f"{where} 不是有限数字，导出为 null" for where in replaced]
        elif section == ACCOUNT:
            decisions = {d["id"] for d in document["decisions"] if "id" in d}
            document[section] = _exported_account(rows, decisions, now, notes)
        else:
            document[section] = _exported_rows(section, rows, now, notes)
    return document, notes


def _exported_rows(section: str, rows: list[dict], now: datetime, notes: list[str]) -> list[dict]:
    kept, seen = [], set()
    for i, row in enumerate(rows):
        replaced: list[str] = []
        clean = {k: v for k, v in _finite_copy(row, f"{section}[{i}]", replaced).items() if v is not None}
        label = f"未导出 {section}[{i}]" + (f"（{row['symbol']}）" if isinstance(row.get("symbol"), str) else "")
        try:
            parsed = parse_document({section: [clean]}, now)
        except DatasetError as exc:
            reason = "、".join(replaced) + " 不是有限数字" if replaced else str(exc).removeprefix(f"{section}[0].")
            notes.append(f"{label}：{reason}")
            continue
        notes += [f"{where} 不是有限数字，导出为 null" for where in replaced]
        if section == "holdings":
            symbol = parsed.holdings[0].symbol
            if symbol in seen:
                notes.append(f"{label}：代码 {symbol} 与前面的持仓重复")
                continue
            seen.add(symbol)
            clean["symbol"] = symbol
        kept.append(clean)
    return kept


def _exported_account(account: dict, decisions: set[int], now: datetime, notes: list[str]) -> dict:
    """Each fill and balance checked as an import checks it; a fill whose decision was left
    out keeps everything else, without the link."""
    exported = {}
    for part, parse in (("fills", lambda r: _fill(r, decisions)), ("cash", _cash)):
        kept = []
        for i, row in enumerate(account[part]):
            where, replaced = f"{ACCOUNT}.{part}[{i}]", []
            clean = {k: v for k, v in _finite_copy(row, where, replaced).items() if v is not None}
            if clean.get("decision_id", 0) not in (0, *decisions):
                notes.append(f"{where}：关联的操作决策未导出，导出时去掉了这一关联")
                del clean["decision_id"]
            try:
                parse(_Row(f"{ACCOUNT}.{part}", i, clean, now))
            except DatasetError as exc:
                reason = "、".join(replaced) + " 不是有限数字" if replaced else str(exc).removeprefix(f"{where}.")
                notes.append(f"未导出 {where}：{reason}")
                continue
            notes += [f"{at} 不是有限数字，导出为 null" for at in replaced]
            kept.append(clean)
        exported[part] = kept
    return exported
