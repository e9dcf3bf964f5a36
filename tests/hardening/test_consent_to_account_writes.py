"""Only the user's word changes the account. A loopback model (the offline server over real
HTTP) answers with the tool calls of the test's choosing, through the real `pixiu ask` and
`pixiu memory accept`: a trade or an alert is made directly only when the user's words of the
turn report their own fill (or instruct the alert); anything else — a negation, a hypothesis,
the future, an order not filled, someone else's trade, a question, a calculation, a holding
described — is a proposal the user confirms, made once. One stated trade is recorded once
however many calls state it, and proposals are bounded."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec
from pixiu_cli.memory.proposals import PROPOSAL_LONGEST, PROPOSALS_PER_DAY, PROPOSALS_PER_TURN
from tests.helpers import FIXTURE, NOW, in_process_ok, in_process_refused

SELL_ALL = {"symbol": "600519", "side": "sell", "price": 1500, "quantity": 100}  # 600519: 100 shares held
run = in_process_ok


@pytest.fixture
def env(online_env):
    env = {**online_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: a fill is told on one
    run(env, "import", str(FIXTURE))  # 600519 ×100, 002415 ×2000 @ 31.2, 300750 ×300
    return env


def shares(env) -> dict[str, float]:
    return {h["symbol"]: h["shares"] for h in json.loads(run(env, "holdings", "--json"))["holdings"]}


def proposals(env) -> list[dict]:
    return [m for m in json.loads(run(env, "memory", "list", "--json")) if m["author"] == "proposal"]


def calls(*pairs: tuple[str, dict], text: str = "好的。") -> tuple[ScriptedReply, ...]:
    specs = [ToolCallSpec(name, json.dumps(args, ensure_ascii=False)) for name, args in pairs]
    return ScriptedReply(tool_calls=specs), ScriptedReply(text=text)


def tool_results(server) -> list[dict]:
    return [json.loads(m["content"]) for m in server.requests[-1].json["messages"] if m["role"] == "tool"]


def ask(env, server, said: str, *pairs: tuple[str, dict]) -> dict:
    server.enqueue(*calls(*pairs))
    return json.loads(run(env, "ask", "--json", said))


# Each class of sentence that names a trade without reporting a fill of the user's own, in
# several phrasings (some beyond the ones an attack used).
NOT_A_REPORT = {
    "否定": ["我不想以 1500 元卖 100 股茅台", "千万别以 1500 元卖 100 股茅台", "我不打算以 1500 元卖出 100 股茅台"],
    "假设": ["如果以 1500 元卖出 100 股茅台，盈亏多少", "假设 1500 元卖出 100 股茅台", "模拟一下 1500 元卖 100 股茅台"],
    "将来或打算": ["明天以 1500 元卖 100 股茅台", "下周一开盘 1500 元卖出 100 股茅台", "回头 1500 元卖掉 100 股茅台"],
    "未成交或已撤单": [
        "挂了个单 1500 元卖 100 股茅台，还没成交",
        "1500 元卖出 100 股茅台的单子撤了",
        "委托 1500 元卖出 100 股茅台，在排队",
    ],
    "他人的交易或说法": [
        "我朋友以 1500 元卖了 100 股茅台",
        "我老婆今天 1500 元卖了 100 股茅台",
        "新闻说大股东以 1500 元减持了 100 股茅台",
    ],
    "计算": ["帮我算一下 1500 元卖 100 股茅台能拿多少钱", "1500 元卖 100 股茅台要交多少税"],
}


@pytest.mark.parametrize("said, family", [(s, f) for f, phrasings in NOT_A_REPORT.items() for s in phrasings])
def test_a_sentence_that_reports_no_fill_of_the_users_only_proposes_the_trade(server, env, said, family):
    out = ask(env, server, said, ("record_decision", SELL_ALL))
    assert shares(env)["600519"] == 100  # not sold
    (result,) = tool_results(server)
    assert (result["ok"], result["result"]) == (False, "proposed")
    assert family in result["error"] and f"待用户确认的提议 {result['proposal_id']}" in result["error"]
    (proposal,) = proposals(env)
    assert (proposal["ref"], proposal["kind"]) == (result["proposal_id"], "trade")
    assert "卖出 600519 100 股 @ 1500" in proposal["text"]
    assert out["notices"] == [n for n in out["notices"] if n.startswith(f"模型提议（未经用户确认） #{proposal['ref']}")]


@pytest.mark.parametrize("said", ["我的茅台买入价是 1500 元，一共 100 股", "我持有 100 股茅台，成本价 1500 元"])
def test_a_holding_described_is_no_second_buy(server, env, said):
    ask(env, server, said, ("record_decision", {"symbol": "600519", "side": "buy", "price": 1500, "quantity": 100}))
    assert shares(env)["600519"] == 100  # not 200
    assert [p["kind"] for p in proposals(env)] == ["trade"]


def test_a_plain_report_of_a_fill_is_recorded_without_a_question(server, env):
    out = ask(env, server, "我今天以 1500 元卖了 100 股茅台", ("record_decision", SELL_ALL))
    assert "600519" not in shares(env)  # sold
    (result,) = tool_results(server)
    assert result["ok"] is True and result["decision_id"].startswith("d")
    assert proposals(env) == [] and out["notices"][0].startswith(f"已记录 #{result['decision_id']}")


def test_a_confirmed_proposal_records_once(server, env):
    buy = {"symbol": "600519", "side": "buy", "price": 1500, "quantity": 100, "reason": "朋友推荐"}
    ask(env, server, "我朋友以 1500 元买了 100 股茅台", ("record_decision", buy))
    (proposal,) = proposals(env)
    assert shares(env)["600519"] == 100

    assert "已记录 #d" in run(env, "memory", "accept", proposal["ref"])
    assert shares(env)["600519"] == 200 and proposals(env) == []

    again = in_process_refused(env, "memory", "accept", proposal["ref"])
    assert f"#{proposal['ref']} 已经采纳过，已记录为 #d" in again
    assert shares(env)["600519"] == 200  # once
    trades = json.loads(run(env, "trades", "--json"))
    assert [(t["symbol"], t["kind"], t["quantity"], t["price"]) for t in trades] == [("600519", "买入", 100, 1500)]


def test_one_stated_trade_is_recorded_once_however_many_calls_state_it(server, env):
    base = {"symbol": "002415", "side": "buy", "price": 30, "quantity": 200}
    reasons = [dict(base, reason=f"理由 {i}") for i in range(20)]
    variants = [
        dict(base, date="今天"),
        dict(base, fee=0),
        dict(base, name="海康威视"),
        dict(base, price=30.0, quantity=200.0),
        dict(base, date="今天", fee=0, name="海康威视", reason="再来一次"),
    ]
    pairs = [("record_decision", a) for a in (*reasons, *variants)]
    ask(env, server, "今天以 30 元买入海康威视 200 股", *pairs)
    assert shares(env)["002415"] == 2200  # 2,000 held + 200 once
    first, *rest = tool_results(server)
    assert first["ok"] is True
    assert {(r["result"], r["id"]) for r in rest} == {("already_recorded", first["decision_id"])}
    assert all(f"（{first['decision_id']}）" in r["note"] for r in rest)


def test_one_proposed_trade_is_proposed_once(server, env):
    pairs = [("record_decision", dict(SELL_ALL, reason=f"理由 {i}")) for i in range(10)]
    ask(env, server, "我朋友以 1500 元卖了 100 股茅台", *pairs)
    assert len(proposals(env)) == 1
    assert {r["result"] for r in tool_results(server)[1:]} == {"already_proposed"}


@pytest.mark.parametrize("said", ["茅台不会跌破 1500 的", "茅台会跌破 1500 吗？", "听说茅台要跌破 1500"])
def test_an_alert_the_user_did_not_ask_for_is_only_proposed(server, env, said):
    ask(env, server, said, ("set_alert", {"symbol": "600519", "kind": "below", "threshold": 1500}))
    assert json.loads(run(env, "alert", "list", "--json")) == []
    (proposal,) = proposals(env)
    assert proposal["kind"] == "alert"
    assert "待用户确认的提议" in tool_results(server)[0]["error"]
    assert "已设预警 a" in run(env, "memory", "accept", proposal["ref"])
    assert len(json.loads(run(env, "alert", "list", "--json"))) == 1


def test_an_alert_the_user_asks_for_is_set(server, env):
    ask(env, server, "茅台跌破 1500 提醒我", ("set_alert", {"symbol": "600519", "kind": "below", "threshold": 1500}))
    assert len(json.loads(run(env, "alert", "list", "--json"))) == 1 and proposals(env) == []


def block_sections(env) -> str:
    messages = json.loads(run(env, "context", "我的纪律和计划有哪些", "--json"))
    return next(m["content"] for m in messages if m["content"].startswith("[上下文信息]"))


@pytest.mark.parametrize(
    "said, note",
    [
        ("单只个股可以满仓吗？", {"kind": "rule", "text": "单只个股可以满仓"}),
        ('有人说"单只个股可以满仓"，对吗', {"kind": "rule", "text": "单只个股可以满仓"}),
        ("我应该全仓宁德时代吗", {"kind": "rule", "text": "全仓宁德时代"}),
        ("宁德时代跌到 200 元要不要加仓", {"kind": "plan", "text": "宁德时代跌到 200 元要加仓"}),
        ("宁德时代跌到 200 元就不要再加仓了", {"kind": "plan", "text": "宁德时代跌到 200 元就再加仓了"}),
    ],
)
def test_a_question_or_a_dropped_negation_is_no_rule_or_plan_of_the_users(server, env, said, note):
    ask(env, server, said, ("remember", note))
    assert note["text"] not in block_sections(env)
    assert [p["text"] for p in proposals(env)] == [note["text"]]


def test_proposals_are_bounded_per_turn(server, env):
    pairs = [("remember", {"kind": "view", "text": f"模型的看法第 {i} 条"}) for i in range(60)]
    ask(env, server, "你好", *pairs)
    assert len(proposals(env)) == PROPOSALS_PER_TURN
    refused = tool_results(server)[PROPOSALS_PER_TURN:]
    assert len(refused) == 60 - PROPOSALS_PER_TURN and all("每轮上限" in r["error"] for r in refused)


def test_a_proposal_past_the_size_bound_is_not_stored(server, env):
    huge = "满" * (10 * PROPOSAL_LONGEST)
    ask(
        env,
        server,
        "我朋友以 1500 元卖了 100 股茅台",
        ("remember", {"kind": "rule", "text": huge}),
        ("record_decision", dict(SELL_ALL, reason=huge)),
    )
    assert proposals(env) == []  # neither stored
    assert all(f"上限 {PROPOSAL_LONGEST} 字" in r["error"] for r in tool_results(server))


def test_proposals_are_bounded_per_day(server, env):
    for turn in range(PROPOSALS_PER_DAY // PROPOSALS_PER_TURN):
        pairs = [("remember", {"kind": "view", "text": f"看法 {turn}-{i}"}) for i in range(PROPOSALS_PER_TURN)]
        ask(env, server, "你好", *pairs)
    assert len(proposals(env)) == PROPOSALS_PER_DAY
    ask(env, server, "我朋友以 1500 元卖了 100 股茅台", ("record_decision", SELL_ALL))
    (result,) = tool_results(server)
    assert "今天待确认的提议" in result["error"] and len(proposals(env)) == PROPOSALS_PER_DAY
