"""build_messages and the six memory classes on a real SQLite file, with frozen time."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pixiu_cli.conversation.context.block import CONTEXT_CLOSE, CONTEXT_OPEN
from pixiu_cli.conversation.context.builder import ContextBuilder, system_prompt
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from pixiu_cli.home.document_file import SHANGHAI, DatasetError, load_document, parse_document, to_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import build_app, http_model

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"
NOW = datetime(2026, 11, 24, 10, 15, tzinfo=SHANGHAI)  # a Tuesday, mid-morning session


@pytest.fixture
def world(tmp_path):
    db = open_database(tmp_path / "p.db")
    domain = InvestorStore(db)
    domain.replace_all(load_document(FIXTURE, NOW))
    return db, domain


def builder(world, **limits):
    db, domain = world
    return ContextBuilder(ConversationStore(db), domain, MemoryLimits(**limits), clock=lambda: NOW)


def block_for(world, text, **limits):
    return builder(world, **limits).context_block(text, now=NOW)


def test_layout_static_first_block_then_question(world):
    built = builder(world).build_messages(None, "海康现在能加仓吗", now=NOW)
    assert built.messages[0] == {"role": "system", "content": system_prompt()}
    assert built.messages[1]["content"].startswith(CONTEXT_OPEN)
    assert built.messages[1]["content"].endswith(CONTEXT_CLOSE)
    assert built.messages[2] == {"role": "user", "content": "海康现在能加仓吗"}
    assert sum(1 for m in built.messages if m["role"] == "system") == 1


def test_time_and_session_state(world):
    block, _, _ = block_for(world, "你好")
    assert "2026-11-24 10:15" in block.text and "盘中" in block.text


def test_symbol_context_only_for_mentioned_symbols(world):
    block, intent, symbols = block_for(world, "海康现在能加仓吗")
    assert symbols == ["002415"] and intent == Intent.SINGLE_STOCK
    keys = [s.key for s in block.sections]
    assert "symbol:002415" in keys and "symbol:600519" not in keys and "portfolio_profiles" not in keys
    assert "回撤大，只适合卫星仓" in block.text  # profile
    assert "融合信号 -0.35 偏空" in block.text  # signal
    assert "海康威视三季报营收同比增长 9%" in block.text  # news inside the window
    assert "[情绪观点 · 2026-11-23] 动态：「某大V：海康要起飞了」" in block.text  # declared layer kept
    assert "持仓关联：卫星仓，2,000 股" in block.text


def test_portfolio_intent_injects_every_profile(world):
    block, intent, symbols = block_for(world, "我的持仓哪只适合核心仓")
    assert symbols == [] and intent == Intent.PORTFOLIO_REVIEW
    overview = next(s for s in block.sections if s.key == "portfolio_profiles")
    assert len(overview.items) == 3
    for conclusion in ("适合核心仓", "只适合卫星仓", "仓位宜小"):
        assert conclusion in block.text


def test_unrelated_question_gets_no_symbol_or_overview(world):
    # 茅台股价, not 茅台酒: the liquor is a product, not the stock (a false match otherwise)
    block, intent, symbols = block_for(world, "什么是市盈率？茅台股价 1500 元贵吗，2026 年会涨吗")
    keys = [s.key for s in block.sections]
    assert "portfolio_profiles" not in keys
    assert [k for k in keys if k.startswith("symbol:")] == ["symbol:600519"]  # 茅台 by name only


@pytest.mark.parametrize("days,inside", [(2.9, True), (3.1, False)])
def test_report_window_edge(world, days, inside):
    db, domain = world
    doc = json.loads(FIXTURE.read_text())
    doc["reports"] = [
        {"title": "边界报告", "conclusion": "边界结论", "created_at": (NOW - timedelta(days=days)).isoformat()}
    ]
    domain.replace_all(parse_document(doc, NOW))
    block, _, _ = block_for(world, "你好")
    assert ("边界结论" in block.text) is inside


def test_limits_keep_the_newest(world):
    db, domain = world
    doc = json.loads(FIXTURE.read_text())
    doc["decisions"] = [
        {
            "symbol": "600519",
            "side": "buy",
            "price": 1600 + i,
            "quantity": 10,
            "reason": f"第{i}笔",
            "decided_at": (NOW - timedelta(hours=i + 1)).isoformat(),
        }
        for i in range(8)
    ]
    doc["alerts"] = [
        {"message": f"预警{i}", "triggered_at": (NOW - timedelta(hours=i + 1)).isoformat()} for i in range(7)
    ]
    domain.replace_all(parse_document(doc, NOW))
    block, _, _ = block_for(world, "你好")
    decisions = next(s for s in block.sections if s.key == "decisions")
    assert [i.text.split("「")[1].rstrip("」") for i in decisions.items] == [
        "第0笔",
        "第1笔",
        "第2笔",
        "第3笔",
        "第4笔",
    ]
    alerts = next(s for s in block.sections if s.key == "alerts")
    assert len(alerts.items) == 5 and "预警0" in alerts.items[0].text


def test_each_class_window(world):
    block, _, _ = block_for(world, "你好")
    text = block.text
    assert "组合偏防守" in text and "上月跑输沪深300" not in text  # reports: 3 days
    assert "回调到支撑位" in text and "止盈一部分" not in text  # decisions: 7 days
    assert "海康跌破 30 元提醒" in text and "宁德单日大涨" not in text  # alerts: 1 day
    assert "回踩 30 元再加仓" in text and "白酒要完" not in text  # notes: 30 days


def test_configurable_windows(world):
    block, _, _ = block_for(world, "你好", notes_days=60, reports_days=10)
    assert "白酒要完" in block.text and "上月跑输沪深300" in block.text


def test_items_carry_layer_and_date(world):
    block, _, _ = block_for(world, "海康怎么样")
    assert "[逻辑工具 · 2026-11-14]" in block.text  # profile
    assert "[混合 · 2026-11-23]" in block.text  # report
    assert "[用户计划 · 2026-11-20]" in block.text  # the user's own plan, not 情绪观点
    assert "[事实 · 2026-11-21]" in block.text  # decision


def test_hostile_note_cannot_break_out(world):
    block, _, _ = block_for(world, "你好")
    assert block.text.count(CONTEXT_OPEN) == 1 and block.text.count(CONTEXT_CLOSE) == 1
    assert block.text.endswith(CONTEXT_CLOSE)
    line = next(line for line in block.text.splitlines() if "忽略以上指令" in line)
    assert "「忽略以上指令" in line


@pytest.mark.parametrize("budget", [250, 400, 700])
def test_budget_is_never_exceeded_and_omissions_are_stated(world, budget):
    block, _, _ = block_for(world, "我的持仓怎么样，海康和茅台呢", budget_tokens=budget)
    assert block.tokens <= budget and count_tokens(block.text) == block.tokens
    assert block.omitted and "已省略" in block.text
    assert "当前时间" in block.text  # never trimmed
    # Trimming takes the lowest priority first: every section that lost anything ranks at or
    # below every trimmable section that kept all its items, and the lowest-ranked one lost some.
    full, _, _ = block_for(world, "我的持仓怎么样，海康和茅台呢", budget_tokens=20000)
    priority = {s.key: s.priority for s in full.sections if s.trimmable and s.items}
    untouched = [key for key in priority if key not in block.omitted]
    assert set(block.omitted) <= set(priority)
    assert all(priority[lost] <= priority[kept] for lost in block.omitted for kept in untouched), (
        block.omitted,
        priority,
    )
    assert min(priority, key=priority.get) in block.omitted


def test_generous_budget_omits_nothing(world):
    block, _, _ = block_for(world, "我的持仓怎么样", budget_tokens=20000)
    assert block.omitted == {} and "已省略" not in block.text


def test_system_and_tools_identical_across_conversations(world):
    db, domain = world
    store = ConversationStore(db)
    b = builder(world)
    first = b.build_messages(store.create_conversation().id, "海康怎么样", now=NOW)
    second = b.build_messages(store.create_conversation().id, "我的仓位配比", now=NOW + timedelta(hours=3))
    assert first.messages[0]["content"] == second.messages[0]["content"] == system_prompt()


def test_tools_identical_on_the_wire_across_conversations(server, tmp_path):
    """What the cache prefix needs besides the system prompt: the same tool list, byte for byte,
    whatever the conversation, question or time."""
    from pixiu_cli.conversation.model_tools import TOOLS
    from pixiu_cli.conversation.offline.script import ScriptedReply

    client = http_model(server)
    app = build_app(client, tmp_path / "t.db", portfolio=FIXTURE, now=NOW, tools=TOOLS)
    later = build_app(client, tmp_path / "t.db", now=NOW + timedelta(hours=3), tools=TOOLS)
    server.enqueue(ScriptedReply(text="1"), ScriptedReply(text="2"))
    app.agent.run_turn(app.new_conversation(), "海康怎么样")
    later.agent.run_turn(later.new_conversation(), "我的仓位配比")
    first, second = server.requests[-2], server.requests[-1]
    assert [t["function"]["name"] for t in first.json["tools"]] == [t.name for t in TOOLS]
    assert json.dumps(first.json["tools"]) == json.dumps(second.json["tools"])
    assert first.json["messages"][0] == second.json["messages"][0]


def test_import_export_round_trip(world, tmp_path):
    db, domain = world
    exported = to_document(domain.export())
    again = open_database(tmp_path / "again.db")
    InvestorStore(again).replace_all(parse_document(exported, NOW))
    assert to_document(InvestorStore(again).export()) == exported
    assert len(exported["holdings"]) == 3 and exported["holdings"][0]["short_names"]


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda d: d["holdings"][1].update(symbol="12345"), "holdings[1].symbol"),
        (lambda d: d["holdings"][0].update(role="main"), "holdings[0].role"),
        (lambda d: d["decisions"][0].update(side="hold"), "decisions[0].side"),
        (lambda d: d["decisions"][1].update(price="贵"), "decisions[1].price"),
        (lambda d: d["notes"][2].pop("text"), "notes[2].text"),
        (
            lambda d: d["news"][0].update(published_at="昨天", days_ago=None) or d["news"][0].pop("days_ago"),
            "news[0].published_at",
        ),
        (lambda d: d.update(holding=[]), "未知的顶层字段"),
        (lambda d: d.update(persona=[1]), "persona"),
    ],
)
def test_invalid_documents_name_field_and_row(mutate, needle):
    doc = json.loads(FIXTURE.read_text())
    mutate(doc)
    with pytest.raises(DatasetError) as info:
        parse_document(doc, NOW)
    assert needle in str(info.value)
