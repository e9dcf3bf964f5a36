"""The schema, as ordered sqlite-utils migrations. Never edit an applied migration; add one."""

from __future__ import annotations

import json

from sqlite_utils import Database, Migrations

from pixiu_cli.kernel.safe_text import scrub
from pixiu_cli.kernel.store.rows import pack_text
from pixiu_cli.kernel.vocabulary import DEFAULT_ACCOUNT

migrations = Migrations("pixiu")


@migrations()
def m001_conversations(db: Database) -> None:
    db["conversations"].create(
        {
            "id": int,
            "title": str,
            "created_at": str,
            "updated_at": str,
            "model": str,
            "summary": str,
            "summary_upto_turn": int,
        },
        pk="id",
    )
    db["turns"].create(
        {
            "id": int,
            "conversation_id": int,
            "seq": int,
            "user_text": str,
            "reply_text": str,
            "status": str,  # pending | complete | interrupted | error
            "error": str,
            "messages_json": str,  # what this turn adds to the history, as sent
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("conversation_id", "conversations", "id")],
    )
    db["turns"].create_index(["conversation_id", "seq"], unique=True)
    db["calls"].create(
        {
            "id": int,
            "turn_id": int,
            "conversation_id": int,
            "step": int,
            "provider": str,
            "model": str,
            "request_json": str,  # the exact body sent over the wire (no key: keys travel in headers)
            "reply_text": str,
            "reasoning_text": str,
            "tool_calls_json": str,
            "finish_reason": str,
            "status": str,  # pending | complete | interrupted | error
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cache_hit_tokens": int,
            "cache_miss_tokens": int,
            "ttft_ms": float,
            "latency_ms": float,
            "started_at": str,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("turn_id", "turns", "id")],
    )
    db["calls"].create_index(["turn_id", "step"])
    db["calls"].create_index(["conversation_id", "id"])


@migrations()
def m002_domain(db: Database) -> None:
    _create_holdings_and_profiles(db)
    _create_news_signals_and_reports(db)
    _create_decisions_and_alerts(db)
    _create_memory_and_persona(db)


def _create_holdings_and_profiles(db: Database) -> None:
    db["holdings"].create(
        {
            "symbol": str,
            "name": str,
            "short_names": str,
            "shares": float,
            "cost": float,
            "role": str,
            "updated_at": str,
        },
        pk="symbol",
    )
    db["profiles"].create(
        {
            "id": int,
            "symbol": str,
            "strategy": str,
            "period": str,
            "annual_return": float,
            "max_drawdown": float,
            "win_rate": float,
            "sharpe": float,
            "best_role": str,
            "conclusion": str,
            "as_of": str,
        },
        pk="id",
    )
    db["profiles"].create_index(["symbol", "as_of"])


def _create_news_signals_and_reports(db: Database) -> None:
    db["news"].create(
        {"id": int, "symbol": str, "title": str, "summary": str, "source": str, "layer": str, "published_at": str},
        pk="id",
    )
    db["news"].create_index(["symbol", "published_at"])
    db["signals"].create(
        {"id": int, "symbol": str, "score": float, "direction": str, "components": str, "as_of": str}, pk="id"
    )
    db["signals"].create_index(["symbol", "as_of"])
    db["reports"].create({"id": int, "title": str, "symbols": str, "conclusion": str, "created_at": str}, pk="id")
    db["reports"].create_index(["created_at"])


def _create_decisions_and_alerts(db: Database) -> None:
    db["decisions"].create(
        {
            "id": int,
            "symbol": str,
            "side": str,
            "price": float,
            "quantity": float,
            "reason": str,
            "decided_at": str,
            "source": str,
        },
        pk="id",
    )
    db["decisions"].create_index(["decided_at"])
    db["alerts"].create({"id": int, "symbol": str, "rule": str, "message": str, "triggered_at": str}, pk="id")
    db["alerts"].create_index(["triggered_at"])


def _create_memory_and_persona(db: Database) -> None:
    # user notes and tool-triggered events share one event store, so one query searches
    # both (search_memory, /memory)
    db["memory_events"].create(
        {
            "id": int,
            "kind": str,
            "note_kind": str,
            "symbol": str,
            "text": str,
            "created_at": str,
            "source": str,
            "deleted_at": str,
            "inject_count": int,
        },
        pk="id",
        defaults={"inject_count": 0},
    )
    db["memory_events"].create_index(["kind", "deleted_at", "created_at"])
    db["memory_events"].create_index(["symbol", "created_at"])
    db["persona"].create({"key": str, "value": str}, pk="key")
    db["calls"].add_column("context_json", str)  # sections, token counts and memory ids of the block


@migrations()
def m003_per_symbol_indexes(db: Database) -> None:
    # symbol context loads each mentioned symbol's own decisions (trade review of a named stock)
    db["decisions"].create_index(["symbol", "decided_at"])


@migrations()
def m004_turn_tokens(db: Database) -> None:
    # tokens a turn adds to the history, so the history budget is a SUM, not a re-tokenisation
    db["turns"].add_column("history_tokens", int)


@migrations()
def m005_turn_owner(db: Database) -> None:
    # the process answering a pending turn ("pid:start"), so reopening a conversation marks
    # only the turns of processes that are gone as interrupted (store/liveness.py)
    db["turns"].add_column("owner", str)


@migrations()
def m006_portfolio_version(db: Database) -> None:
    # A counter bumped by every change to holdings or profiles, so the context engine can
    # reuse what it read of them across turns; conversation writes do not touch it.
    db.execute("create table portfolio_version (id integer primary key check (id = 1), version integer not null)")
    db.execute("insert into portfolio_version (id, version) values (1, 0)")
    for table in ("holdings", "profiles"):
        for event in ("insert", "update", "delete"):
            db.execute(
                f"create trigger {table}_{event}_bumps_version after {event} on {table} "
                "begin update portfolio_version set version = version + 1 where id = 1; end"
            )


@migrations()
def m007_security_master(db: Database) -> None:
    # Every security pixiu knows a name for: the market list from a sync, or what imports and
    # conversation mention. kind is "stock" or "index" so index codes are never taken for
    # stocks. Aliases map a nickname (宁王) to a code; source says who added it.
    db["securities"].create(
        {
            "symbol": str,
            "name": str,
            "kind": str,
            "board": str,
            "list_date": str,
            "status": str,
            "is_st": int,
            "source": str,
            "updated_at": str,
        },
        pk="symbol",
        not_null={"name", "kind"},
        defaults={"kind": "stock", "is_st": 0},
    )
    db["securities"].create_index(["name"])
    db["security_aliases"].create({"alias": str, "symbol": str, "source": str, "created_at": str}, pk="alias")
    db.execute("create table securities_version (id integer primary key check (id = 1), version integer not null)")
    db.execute("insert into securities_version (id, version) values (1, 0)")
    for table in ("securities", "security_aliases"):
        for event in ("insert", "update", "delete"):
            db.execute(
                f"create trigger {table}_{event}_bumps_version after {event} on {table} "
                "begin update securities_version set version = version + 1 where id = 1; end"
            )


@migrations()
def m010_market_bars(db: Database) -> None:
    # Unadjusted daily bars exactly as the source gave them; adjusted series are computed on
    # read from corporate_actions (a stored qfq series goes wrong at the next dividend).
    # WITHOUT ROWID: the (symbol, date) key is the only access path, so the table is the index.
    db.execute(
        "create table market_bars (symbol text not null, date text not null, open real, high real, low real, "
        "close real, volume real, amount real, trade_status integer not null default 1, "
        "is_st integer not null default 0, primary key (symbol, date)) without rowid"
    )
    # One row per event and source; ratio is the source's own factor when it gave one
    # (baostock), else derived on read from cash/shares and the previous close.
    db["corporate_actions"].create(
        {
            "symbol": str,
            "ex_date": str,
            "cash_per_share": float,
            "shares_per_share": float,
            "ratio": float,
            "source": str,
            "method": str,
            "fetched_at": str,
        },
        pk=("symbol", "ex_date", "source"),
        not_null={"symbol", "ex_date", "source"},
    )
    # Provenance and freshness of each stored series.
    db["market_series"].create(
        {
            "symbol": str,
            "source": str,
            "origin": str,
            "file_adjusted": str,
            "volume_unit": str,
            "last_sync_at": str,
            "last_error": str,
            "stale": int,
        },
        pk="symbol",
        defaults={"stale": 0},
    )
    db["trading_days"].create({"date": str, "source": str}, pk="date")
    db["watchlist"].create({"symbol": str, "added_at": str}, pk="symbol")
    # Bumped by every market write (explicitly: a per-row trigger would slow bulk imports),
    # so a valuation computed from the stored bars stays valid while this number is the same.
    db.execute("create table market_version (id integer primary key check (id = 1), version integer not null)")
    db.execute("insert into market_version (id, version) values (1, 0)")


@migrations()
def m011_analytics_profiles_signals_alerts_track(db: Database) -> None:
    _create_backtests(db)
    _add_profile_and_signal_provenance(db)
    _create_alert_rules(db)
    _add_decision_outcomes(db)


def _create_backtests(db: Database) -> None:
    # Every strategy's backtest of a symbol (pixiu profile --json); the selected one is also
    # written to profiles, which gains the provenance the block shows.
    db["backtests"].create(
        {
            "id": int,
            "symbol": str,
            "strategy": str,
            "label": str,
            "window_start": str,
            "window_end": str,
            "annual_return": float,
            "max_drawdown": float,
            "sharpe": float,
            "win_rate": float,
            "trades": int,
            "exposure": float,
            "excess_return": float,
            "in_sample_sharpe": float,
            "out_annual_return": float,
            "out_sharpe": float,
            "selected": int,
            "as_of": str,
            "engine_version": str,
            "cost_model": str,
            "data_source": str,
            "computed_at": str,
        },
        pk="id",
    )
    db["backtests"].create_index(["symbol", "as_of"])


def _add_profile_and_signal_provenance(db: Database) -> None:
    for column, kind in (
        ("source", str),
        ("engine_version", str),
        ("cost_model", str),
        ("data_source", str),
        ("trades", int),
        ("exposure", float),
        ("excess_return", float),
        ("out_annual_return", float),
        ("out_sharpe", float),
    ):
        db["profiles"].add_column(column, kind)
    db["signals"].add_column("source", str)


def _create_alert_rules(db: Database) -> None:
    # alerts gain the rule that fired and the bar it fired on, so a rule fires once per bar
    db["alert_rules"].create(
        {
            "id": int,
            "symbol": str,
            "kind": str,
            "threshold": float,
            "cooldown_days": int,
            "created_at": str,
            "source": str,
            "deleted_at": str,
            "checked_through": str,
            "last_fired_on": str,
        },
        pk="id",
    )
    db["alerts"].add_column("rule_id", int)
    db["alerts"].add_column("bar_date", str)
    db["alerts"].add_column("seen_at", str)
    db.execute("create unique index alerts_rule_bar on alerts (rule_id, bar_date) where rule_id is not null")


def _add_decision_outcomes(db: Database) -> None:
    for column in ("return_5d", "return_20d", "outcome_5d", "outcome_20d", "vs_stock_5d", "vs_stock_20d"):
        db["decisions"].add_column(column, float)
    db["decisions"].add_column("scored_at", str)


@migrations()
def m010_memory_undo(db: Database) -> None:
    # Undo for every memory. memory_revisions keeps what a note was before each merge, edit
    # or deletion (so undoing a merge restores the earlier text, and the next context block
    # can say which memory was withdrawn). A decision keeps the holding before and after it
    # (JSON), so forgetting a recorded trade puts the holding back; deleted_at withdraws it.
    db["memory_revisions"].create(
        {
            "id": int,
            "event_id": int,
            "action": str,
            "old_text": str,
            "old_note_kind": str,
            "old_created_at": str,
            "old_source": str,
            "new_text": str,
            "at": str,
        },
        pk="id",
    )
    db["memory_revisions"].create_index(["event_id", "id"])
    db["memory_revisions"].create_index(["at"])
    db["decisions"].add_column("deleted_at", str)
    db["decisions"].add_column("holding_before", str)
    db["decisions"].add_column("holding_after", str)
    db["memory_events"].add_column("decision_id", int)
    # link the events recorded with a trade to their decision (same symbol and instant)
    db.execute(
        "update memory_events set decision_id = (select d.id from decisions d where d.symbol = "
        "memory_events.symbol and d.decided_at = memory_events.created_at order by d.id limit 1) "
        "where kind = 'decision'"
    )


@migrations()
def m017_context_persona_as_of(db: Database) -> None:
    # The context block shows every item's as-of date, the persona's too. Its writers stamp
    # it with the app's clock (the triggers this once created read SQLite's: m026 drops them).
    db["persona"].add_column("updated_at", str)


@migrations()
def m010_evals_answer_runs(db: Database) -> None:
    # `pixiu eval --live`: one row per run and one per case × ablation, so results (replies,
    # usage, grades) can be read back later with `pixiu eval --history`.
    db["eval_runs"].create(
        {
            "id": int,
            "started_at": str,
            "finished_at": str,
            "provider": str,
            "model": str,
            "offline": int,
            "cases": int,
            "ablations_json": str,
            "summary_json": str,
        },
        pk="id",
    )
    db["eval_results"].create(
        {
            "id": int,
            "run_id": int,
            "ablation": str,
            "case_id": str,
            "category": str,
            "passed": int,
            "reply_text": str,
            "tools_json": str,
            "grades_json": str,
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cache_hit_tokens": int,
            "cache_miss_tokens": int,
        },
        pk="id",
        foreign_keys=[("run_id", "eval_runs", "id")],
    )
    db["eval_results"].create_index(["run_id", "ablation"])


@migrations()
def m018_perfstore_packed_requests(db: Database) -> None:
    # A call's request is stored once, packed (see store/requests.py; request_json stays for
    # older rows and is NULL for new ones); each call's cache explanation is stored when the
    # call finishes.
    db["calls"].add_column("request_z", bytes)
    for column in ("request_base", "request_prefix", "request_suffix", "request_depth"):
        db["calls"].add_column(column, int)
    db["calls"].add_column("cache_explanation_json", str)


@migrations()
def m019_turn_block_record(db: Database) -> None:
    # What each turn's [上下文信息] block carried (section digests by title, memory ids),
    # stored as JSON beside the messages so later turns never parse the block text back.
    # NULL on older turns: those are parsed (context/builder.py).
    db["turns"].add_column("block_json", str)


@migrations()
def m026_news_provenance_and_briefs(db: Database) -> None:
    # `pixiu news sync`: each fetched item keeps where it came from (the feed, its URL) and
    # when it was fetched; dedup_key (the URL, else a digest of source + title + time) makes a
    # second sync add nothing. Imported rows leave it NULL, so two identical imported items
    # still keep two (the import's own merge rules).
    for column in ("url", "fetched_at", "provider", "dedup_key"):
        db["news"].add_column(column, str)
    db.execute("create unique index news_dedup_key on news(dedup_key) where dedup_key is not null")
    db["news"].create_index(["fetched_at"])
    # `pixiu brief`: a report row says which brief produced it (as-of session, the turn of
    # the call that wrote it); the brief's own figures are kept so the next one can say what
    # changed since.
    for column in ("as_of", "origin"):
        db["reports"].add_column(column, str)
    for column in ("conversation_id", "turn_id", "turn_seq"):
        db["reports"].add_column(column, int)
    db["briefs"].create(
        {
            "id": int,
            "report_id": int,
            "as_of": str,
            "created_at": str,
            "conversation_id": int,
            "turn_id": int,
            "turn_seq": int,
            "facts_json": str,
        },
        pk="id",
    )
    db["briefs"].create_index(["created_at"])


@migrations()
def m024_account_fills_and_cash(db: Database) -> None:
    # The investor's account: every fill and cash movement from a broker statement or told
    # one at a time (origin statement | manual), under a stable fill_id (the broker's number
    # or a digest of the row), so re-importing a statement adds nothing; and the cash
    # balance as a statement's 资金余额 or `pixiu cash set` stated it on a day.
    db["account_fills"].create(
        {
            "id": int,
            "fill_id": str,
            "account": str,
            "day": str,
            "time": str,
            "kind": str,
            "symbol": str,
            "name": str,
            "quantity": float,
            "price": float,
            "amount": float,
            "fees": float,
            "cash_change": float,
            "balance": float,
            "contract": str,
            "origin": str,
            "decision_id": int,
            "source_file": str,
            "recorded_at": str,
            "deleted_at": str,
        },
        pk="id",
        not_null={"fill_id", "day", "kind"},
    )
    db.execute("create unique index account_fills_fill_id on account_fills (fill_id)")
    db["account_fills"].create_index(["symbol", "day"])
    db["account_cash"].create({"id": int, "amount": float, "as_of": str, "source": str, "set_at": str}, pk="id")
    db["account_cash"].create_index(["as_of", "id"])


def _never_reuse_ids(db: Database, table: str) -> None:
    """Rebuild `table` with AUTOINCREMENT: SQLite then never hands out an id again once
    used, even after the row with the largest id is gone (a replace, a restore)."""
    sql = db.execute("select sql from sqlite_master where type = 'table' and name = ?", [table]).fetchone()[0]
    extras = [
        r[0]
        for r in db.execute(
            "select sql from sqlite_master where tbl_name = ? and type in ('index', 'trigger') and sql is not null",
            [table],
        ).fetchall()
    ]
    rebuilt = sql.replace(f'"{table}"', f'"{table}_rebuilt"', 1).replace(
        '"id" INTEGER PRIMARY KEY', '"id" INTEGER PRIMARY KEY AUTOINCREMENT', 1
    )
    db.execute(rebuilt)
    db.execute(f'insert into "{table}_rebuilt" select * from "{table}"')
    db.execute(f'drop table "{table}"')
    db.execute(f'alter table "{table}_rebuilt" rename to "{table}"')
    for statement in extras:
        db.execute(statement)


@migrations()
def m024_stable_memory_ids(db: Database) -> None:
    # The ids the user sees (n12 a note, d5 a trade, a3 an alert rule) must never name
    # another memory later: not after `import --replace`, a restore or the demo's refresh.
    for table in ("memory_events", "decisions", "alert_rules"):
        _never_reuse_ids(db, table)


@migrations()
def m028_restore_generation(db: Database) -> None:
    # Moved by every `pixiu restore`: a process with a turn under way checks it before each of
    # the turn's writes, so its answer never lands in a restored turn of the same id.
    db["restore_generation"].insert({"id": 1, "version": 0}, pk="id")


@migrations()
def m025_note_pins_replacements_decision_uses(db: Database) -> None:
    # A pinned note is injected whatever its age; a plan replaced by a newer one for the same
    # stock and direction names its successor (0: in force), so /forget of the new plan can
    # put the old one back.
    db["memory_events"].add_column("pinned", int, not_null_default=0)
    db["memory_events"].add_column("replaced_by", int, not_null_default=0)
    # How many calls a trade was shown in (/memory), imported trades included (they have no event).
    db["decisions"].add_column("inject_count", int, not_null_default=0)


@migrations()
def m025_conversation_deleted_at(db: Database) -> None:
    # A deleted conversation leaves every list but keeps its turns and calls, so
    # `pixiu sessions --restore ID` undoes the delete whole.
    db["conversations"].add_column("deleted_at", str)


@migrations()
def m025_plan_replacement_offers(db: Database) -> None:
    # A new plan that restates an older one (same stock and direction, other numbers) only
    # offers to replace it: the older plan names the offering plan here (0: no offer) and
    # stays in force, labelled, until the user accepts with /memory replace.
    db["memory_events"].add_column("replace_offered_by", int, not_null_default=0)


@migrations()
def m025_conversation_switched_model(db: Database) -> None:
    # The model `/model` switched a conversation to (NULL: never switched), apart from the
    # model it was started with, so resuming it uses the switch and otherwise the configured default.
    db["conversations"].add_column("switched_model", str)


@migrations()
def m026_persona_stamped_by_its_writers(db: Database) -> None:
    # The persona's as-of is the app's clock (PIXIU_NOW included), given by import and merge:
    # the triggers m017 once created stamped it with SQLite's own clock.
    db.execute("drop trigger if exists persona_insert_stamps")
    db.execute("drop trigger if exists persona_update_stamps")


@migrations()
def m026_alerts_recorded_at(db: Database) -> None:
    # When a check found an alert, apart from the close it fired on: the brief lists every
    # alert found since the last brief, also one dated at a close older than that brief.
    db["alerts"].add_column("recorded_at", str)


@migrations()
def m029_holding_basis(db: Database) -> None:
    # A holding row is either what the user or a document stated (shares at a cost on its
    # day, moved by the ledger's later events) or a copy of what the ledger adds up to. Rows
    # the live fills add up to exactly are the ledger's; every other row was stated.
    db["holdings"].add_column("basis", str, not_null_default="stated")
    rows = db.conn.execute(
        "select h.symbol, h.shares, sum(case f.kind when 'sell' then -f.quantity else f.quantity end) "
        "from holdings h join account_fills f on f.symbol = h.symbol and f.deleted_at is null "
        "and f.kind in ('buy', 'sell', 'bonus', 'allotment', 'rights') group by h.symbol"
    ).fetchall()
    for symbol, shares, net in rows:
        if shares is not None and net is not None and abs(shares - net) < 1e-6:
            db.execute("update holdings set basis = 'ledger' where symbol = ?", [symbol])


@migrations()
def m029_cash_fills_before(db: Database) -> None:
    # A stated balance is the account after every fill written before it: the ledger's last id
    # then, so a trade told later the same day moves it and one told earlier does not.
    db["account_cash"].add_column("fills_before", int)


@migrations()
def m030_fill_contract_kind(db: Database) -> None:
    # Which broker number a fill's contract is (order: 合同编号, trade: 成交编号): two
    # statements' numbers of one kind decide whether two fills are one. NULL on older rows.
    db["account_fills"].add_column("contract_kind", str)


@migrations()
def m030_push_log(db: Database) -> None:
    # What each push did, per channel: a brief can be sent again (`pixiu brief --push --last`),
    # an alert never twice to one channel (the unique index is the claim made before sending).
    # Channel names only: the addresses and keys stay in config.toml or the environment.
    db["push_log"].create(
        {
            "id": int,
            "kind": str,  # brief | alert
            "ref": int,  # briefs.id or alerts.id
            "channel": str,
            "status": str,  # sending | sent | failed
            "parts": int,
            "detail": str,
            "at": str,
        },
        pk="id",
    )
    db.execute("create unique index push_log_alert on push_log (ref, channel) where kind = 'alert'")
    db["push_log"].create_index(["kind", "ref"])


@migrations()
def m030_scrub_echoed_credentials(db: Database) -> None:
    # A server that echoed the request's headers left `Authorization: Basic …` (and the like)
    # in stored errors, and so in every backup since: mask what has the shape of a credential.

    for table in ("turns", "calls"):
        rows = db.execute(f"select id, error from {table} where error is not null").fetchall()
        for row_id, error in rows:
            if scrub(error) != error:
                db.execute(f"update {table} set error = ? where id = ?", [scrub(error), row_id])


@migrations()
def m030_memory_authors(db: Database) -> None:
    # Who wrote each memory: `user` (typed by the user: /remember, the CLI), `model_from_user`
    # (the model, in the user's own words of that turn), `import` (a document the user
    # imported), `proposal` (the model's, not found in the user's words: never the user's
    # until accepted). A row nobody attributes is a proposal. A note the model wrote before
    # authors were kept is the user's only when its text is the user's own words of a turn
    # (the remember tool asks for them).
    db["memory_events"].add_column("author", str, not_null_default="proposal")
    db["memory_revisions"].add_column("old_author", str)
    db.execute(
        "update memory_events set author = case "
        "when source = 'user' then 'user' "
        "when source = 'model' and (kind = 'decision' or exists (select 1 from turns t "
        "where instr(t.user_text, memory_events.text) > 0)) then 'model_from_user' "
        "when source = 'model' then 'proposal' "
        "else 'import' end"
    )


@migrations()
def m030_fundamentals_and_market_review(db: Database) -> None:
    # Fundamentals as the sources gave them (`pixiu data sync --fundamentals`): numbers as
    # decimal text, so a figure reads back exactly as the source wrote it (money is Decimal).
    # A stock's daily valuation, keyed like its bars.
    db.execute(
        "create table valuation_days (symbol text not null, date text not null, source text not null, "
        "close text, pe_ttm text, pb_mrq text, ps_ttm text, pcf_ttm text, total_mv text, float_mv text, "
        "fetched_at text, primary key (symbol, date)) without rowid"
    )
    db.execute(
        "create table financial_reports (symbol text not null, period text not null, source text not null, "
        "published text, revenue text, revenue_yoy text, net_profit text, net_profit_yoy text, roe text, "
        "gross_margin text, net_margin text, debt_ratio text, operating_cash_flow text, cfo_to_profit text, "
        "eps_ttm text, total_shares text, float_shares text, fetched_at text, primary key (symbol, period))"
    )
    # A sync replaces a source's dividends of the stock (plans change until they are paid).
    db.execute(
        "create table dividends (id integer primary key, symbol text not null, source text not null, "
        "announced text, ex_date text, pay_date text, cash text, bonus_shares text, transfer_shares text, "
        "summary text, fetched_at text)"
    )
    db.execute("create index dividends_symbol on dividends(symbol, ex_date)")
    # 业绩预告 / 业绩快报: what a company said about a period before its report.
    db.execute(
        "create table report_notices (symbol text not null, period text not null, kind text not null, "
        "source text not null, published text, summary text, change_low text, change_high text, "
        "fetched_at text, primary key (symbol, period, kind))"
    )
    # Which stocks keep fundamentals (a daily sync refreshes these only), when their valuation
    # and their reports were last fetched, and why the last attempt failed.
    db["fundamentals_sync"].create(
        {"symbol": str, "source": str, "last_sync_at": str, "reports_at": str, "last_error": str, "errored_at": str},
        pk="symbol",
    )
    # The whole market on one session (`pixiu data sync --market`), counted from the
    # source's snapshot of every listed stock, and its industry boards.
    db["market_breadth"].create(
        {
            "session": str,
            "taken_at": str,
            "source": str,
            "closed": int,
            "stocks": int,
            "advancers": int,
            "decliners": int,
            "flat": int,
            "suspended": int,
            "limit_up": int,
            "limit_down": int,
            "turnover": str,
        },
        pk="session",
    )
    db.execute(
        "create table industry_moves (session text not null, code text not null, name text, change text, "
        "advancers integer, decliners integer, leader text, leader_change text, source text, taken_at text, "
        "primary key (session, code))"
    )


@migrations()
def m031_mcp_calls(db: Database) -> None:
    # Every call another agent made through `pixiu mcp`: which agent (the name its client
    # gave when it connected), which tool, resource or prompt, when, and whether it was
    # refused. The arguments are not kept: a question may quote the user's own notes.
    db["mcp_calls"].create(
        {"id": int, "agent": str, "kind": str, "name": str, "at": str, "outcome": str, "detail": str}, pk="id"
    )
    db["mcp_calls"].create_index(["at"])


@migrations()
def m032_packed_turn_texts(db: Database) -> None:
    # Each turn's history messages and each call's block summary packed against a shared
    # dictionary (store/packed_text.py), the plain column left NULL; rows written before are
    # packed here, so every row reads one way from now on. A request's middle may be packed
    # with the previous request as its dictionary (request_dict: how many bytes of it).

    db["turns"].add_column("messages_z", bytes)
    db["calls"].add_column("context_z", bytes)
    db["calls"].add_column("request_dict", int)
    for table, plain, packed in (("turns", "messages_json", "messages_z"), ("calls", "context_json", "context_z")):
        rows = db.execute(f"select id, {plain} from {table} where {plain} is not null").fetchall()
        db.conn.executemany(
            f"update {table} set {packed} = ?, {plain} = null where id = ?",
            [(pack_text(text), row_id) for row_id, text in rows],
        )


@migrations()
def m033_market_gap_days(db: Database) -> None:
    # What open_gaps_on counted over every stored series for one day: kept by a refresh so the
    # next one that asks about the same day reads one row instead of probing every series.
    # A write of a series' bars from some date drops the days from that date on (the only days
    # whose counts it can change: its own bars' and the one after), in the write's transaction.
    db.execute(
        "create table market_gap_days (date text not null, min_fall real not null, gapped integer not null, "
        "present integer not null, primary key (date, min_fall)) without rowid"
    )


@migrations()
def m034_position_checkpoints(db: Database) -> None:
    # Each stock's ledger book at the end of a day (domain/ledger.py `Checkpoint`), so the
    # account over a large ledger derives only the events after it. The triggers drop every
    # checkpoint a change could alter, whoever writes: a fill of the stock on or before its
    # day, or up to BOOKED_AFTER (60 days) after it (that fill may book an action the
    # checkpoint applied), and a corporate action of the stock on or before its day.
    db.execute(
        "create table position_checkpoints (symbol text primary key, through text not null, state text not null)"
    )
    db.execute("create index account_fills_day on account_fills (day)")
    fills = "delete from position_checkpoints where symbol = {r}.symbol and through >= coalesce(date({r}.day, '-61 days'), '');"
    actions = "delete from position_checkpoints where symbol = {r}.symbol and through >= coalesce({r}.ex_date, '');"
    for table, body in (("account_fills", fills), ("corporate_actions", actions)):
        for event, rows in (("insert", ("new",)), ("delete", ("old",)), ("update", ("old", "new"))):
            statements = " ".join(body.format(r=r) for r in rows)
            db.execute(f"create trigger {table}_{event}_checkpoints after {event} on {table} begin {statements} end")


@migrations()
def m035_fill_fee_estimated(db: Database) -> None:
    # A trade told without its fees carries pixiu's estimate (the account's commission and the
    # dated duties): flagged (1), so a list says 估算 and a statement's real fill replaces it.
    # NULL on every other fill, so an export carries the column only where it says something.
    db["account_fills"].add_column("fee_estimated", int)


@migrations()
def m036_proposed_changes(db: Database) -> None:
    # A change to the account the model asked for and the user has not confirmed (a trade, an
    # alert): a memory event of kind 'proposal' whose `proposed` column holds its arguments as
    # JSON, made only when the user accepts it (services/proposals.py).
    db["memory_events"].add_column("proposed", str)


@migrations()
def m037_broker_accounts(db: Database) -> None:
    # Several broker accounts (券商, 资金账号, 股东代码): each fill and each stated balance
    # belongs to one, by its name. A home always has one (the first: the default); an older
    # home's rows all move into it, with the 股东代码 its statements named. A row written
    # without an account (a writer that names none: a trade told, an older document) goes to
    # the default one, and a row naming an account the registry lacks adds it: the triggers
    # do both, whoever writes. The checkpoints become one per (account, stock): a cache, rebuilt.
    db.execute(
        "create table broker_accounts (id integer primary key autoincrement, name text not null unique, "
        "broker text, fund_account text, shareholder_codes text not null default '[]', created_at text)"
    )
    codes = sorted(r[0] for r in db.execute("select distinct account from account_fills where account is not null"))
    # named after the statements it holds (the last digits of the 股东代码 they name), as a new
    # account a statement opens is; a home told by hand has nothing to name it after
    name = f"对账单-{codes[0][-4:]}" if codes else DEFAULT_ACCOUNT
    db.execute(
        "insert into broker_accounts (name, shareholder_codes) values (?, ?)",
        [name, json.dumps(codes, ensure_ascii=False)],
    )
    for table in ("account_fills", "account_cash"):
        db[table].add_column("broker_account", str)
        db.execute(f"update {table} set broker_account = ?", [name])
        db.execute(
            f"create trigger {table}_default_account after insert on {table} when new.broker_account is null begin "
            f"insert into broker_accounts (name) select '{DEFAULT_ACCOUNT}' where not exists (select 1 from broker_accounts); "
            f"update {table} set broker_account = (select name from broker_accounts order by id limit 1) where rowid = new.rowid; end"
        )
        db.execute(
            f"create trigger {table}_named_account after insert on {table} when new.broker_account is not null begin "
            f"insert or ignore into broker_accounts (name) values (new.broker_account); end"
        )
    db.execute("create index account_fills_account on account_fills (broker_account, symbol, day)")
    db.execute("drop table position_checkpoints")
    db.execute(
        "create table position_checkpoints (broker_account text not null default '', symbol text not null, "
        "through text not null, state text not null, primary key (symbol, broker_account)) without rowid"
    )


@migrations()
def m038_account_value_series(db: Database) -> None:
    # The account's value at every session's close (account/performance.py), derived once per
    # change of the ledger, the holdings, the stored market data or the last closed session,
    # and kept by that key so a second `pixiu performance` costs a read. A scope is an account
    # ("" for all of them together); a row is only ever a cache, dropped with no loss.
    db.execute("create table account_value_series (scope text primary key, key text not null, series text not null)")
