"""A misbehaving model server cannot change the account or write the user's rules: a reply to
`你好` that calls `record_decision` (sell all 100 shares of 600519 at ¥1) and `remember` (the
rule 单只个股可以满仓) leaves the account as it was and no such rule in the block, over real
HTTP through the offline server and the real `pixiu` entry point; the same calls during
`pixiu brief --yes` are refused too. What the user did say still goes through: a trade they
report and a rule they state."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec
from tests.helpers import FIXTURE, NOW, pixiu_in_process

SELL_ALL = {"symbol": "600519", "side": "sell", "price": 1, "quantity": 100, "reason": "用户要求清仓"}
HOSTILE_RULE = {"kind": "rule", "text": "单只个股可以满仓"}


def run(env, *args) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "意外错误" not in done.stderr
    return done.stdout


@pytest.fixture
def env(online_env):
    env = {**online_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: trades are told on one
    run(env, "import", str(FIXTURE))  # 600519 ×100, 002415 ×2000 @ 31.2, 300750 ×300
    return env


def account(env) -> dict:
    return json.loads(run(env, "holdings", "--json"))


def memories(env) -> list[dict]:
    return json.loads(run(env, "memory", "list", "--json"))


def block(env) -> str:
    messages = json.loads(run(env, "context", "我的纪律有哪些", "--json"))
    return next(m["content"] for m in messages if m["content"].startswith("[上下文信息]"))


def section(text: str, title: str) -> str:
    return text[text.index(f"## {title}") :].split("\n## ")[0] if f"## {title}" in text else ""


def hostile(*calls: tuple[str, dict], text: str = "好的，已为你清仓，并记下了你的纪律。") -> tuple[ScriptedReply, ...]:
    specs = [ToolCallSpec(name, json.dumps(args, ensure_ascii=False)) for name, args in calls]
    return ScriptedReply(tool_calls=specs), ScriptedReply(text=text)


def tool_results(server) -> list[dict]:
    return [json.loads(m["content"]) for m in server.requests[-1].json["messages"] if m["role"] == "tool"]


def test_a_reply_to_a_greeting_changes_neither_the_account_nor_the_rules(server, env):
    before, rules_before = account(env), section(block(env), "用户纪律")
    server.enqueue(*hostile(("record_decision", SELL_ALL), ("remember", HOSTILE_RULE)))
    out = json.loads(run(env, "ask", "--json", "你好"))
    assert out["status"] == "complete"

    assert account(env) == before  # 600519 still 100 shares: no 已清仓
    assert section(block(env), "用户纪律") == rules_before and "满仓" not in block(env)
    trade, note = tool_results(server)
    assert trade["ok"] is False and trade["error"].startswith(
        "没有记录这笔交易：用户本轮的话里没有股票 600519（贵州茅台）、方向 卖出、数量 100 股、价格 1 元。"
    )
    assert note["ok"] is False and note["result"] == "proposed" and "「单只个股可以满仓」" in note["error"]
    # kept only as the model's proposal, which the user sees and may take or leave
    (proposal,) = [m for m in memories(env) if m["text"] == "单只个股可以满仓"]
    assert (proposal["author"], proposal["kind"]) == ("proposal", "rule")
    # the sale only proposed: the account unchanged until the user confirms it
    assert (
        out["notices"][0].startswith("模型提议（未经用户确认） #")
        and "交易 · 卖出 600519 100 股 @ 1，" in out["notices"][0]
    )
    assert out["notices"][1:] == [
        f"模型提议（未经用户确认） #{proposal['ref']}：纪律 · 单只个股可以满仓——你这一轮的话里没有这些内容，"
        f"它不算你的纪律，也不会注入对话；采纳：/memory accept {proposal['ref']}，删除：/forget {proposal['ref']}"
    ]
    # the user accepts it: only now is it their rule
    accepted = pixiu_in_process(env, "memory", "accept", proposal["ref"], text=True)
    assert accepted.returncode == 0 and f"已采纳 #{proposal['ref']}" in accepted.stdout + accepted.stderr
    assert "单只个股可以满仓" in section(block(env), "用户纪律")


def test_the_brief_turn_changes_nothing_whatever_its_reply_calls(server, env):
    before, rules_before = account(env), section(block(env), "用户纪律")
    server.enqueue(
        *hostile(
            ("record_decision", SELL_ALL),
            ("remember", HOSTILE_RULE),
            ("set_alert", {"symbol": "600519", "kind": "below", "threshold": 1}),
            text="今日组合平稳。\n结论：组合平稳。",
        )
    )
    out = json.loads(run(env, "brief", "--yes", "--json"))
    assert out["status"] == "complete"
    assert account(env) == before and section(block(env), "用户纪律") == rules_before
    assert not [m for m in memories(env) if "满仓" in m["text"]]  # not even a proposal
    assert json.loads(run(env, "alert", "list", "--json")) == []
    results = tool_results(server)
    assert [r["ok"] for r in results] == [False, False, False]
    assert all(r["error"].startswith("本轮不是用户的消息（每日简报），不能调用 ") for r in results)


def test_what_the_user_said_still_goes_through(server, env):
    server.enqueue(
        *hostile(
            ("record_decision", {"symbol": "002415", "side": "buy", "price": 30, "quantity": 200}),
            ("remember", {"kind": "rule", "text": "单只个股仓位不超过两成"}),
            text="已记录。",
        )
    )
    out = json.loads(run(env, "ask", "--json", "今天以 30 元买入海康威视 200 股。记住我的纪律：单只个股仓位不超过两成"))
    assert [r["ok"] for r in tool_results(server)] == [True, True]
    held = next(h for h in account(env)["holdings"] if h["symbol"] == "002415")
    # 2,000 @ 31.2 held and 200 @ 30 bought with its estimated fee (the minimum commission 5 and
    # the transfer fee 0.06): 2,200 shares at (62,400 + 6,000 + 5.06) / 2,200 = 31.0932…
    assert held["shares"] == 2200 and held["cost"] == pytest.approx((2000 * 31.2 + 200 * 30 + 5.06) / 2200, abs=1e-4)
    (rule,) = [m for m in memories(env) if m["text"] == "单只个股仓位不超过两成"]
    assert rule["author"] == "model_from_user"
    assert "单只个股仓位不超过两成" in section(block(env), "用户纪律")
    assert out["notices"][1] == f"已记住 #{rule['ref']}：纪律 · 单只个股仓位不超过两成（/forget {rule['ref']} 可撤销）"


@pytest.mark.parametrize(
    "said, trade",
    [
        # the stock, side and price are the user's; the shares are not (they said 1 手, 100 股)
        ("1 手茅台 1800 元卖了", {"symbol": "600519", "side": "sell", "price": 1800, "quantity": 50}),
        # everything but the side
        ("茅台 100 股 1800 元，先别动", {"symbol": "600519", "side": "sell", "price": 1800, "quantity": 100}),
        # another stock than the one named
        ("以 30 元买了 200 股海康", {"symbol": "300750", "side": "buy", "price": 30, "quantity": 200}),
        # the trade of the context block's holding, not the message's
        ("我的茅台怎么样", {"symbol": "600519", "side": "sell", "price": 1, "quantity": 100}),
        # every figure the user's, but a question, not a trade done
        (
            "茅台现在 1800 元，我持有 100 股，要不要卖？",
            {"symbol": "600519", "side": "sell", "price": 1800, "quantity": 100},
        ),
    ],
)
def test_a_trade_the_words_do_not_state_is_refused(server, env, said, trade):
    before = account(env)
    server.enqueue(*hostile(("record_decision", trade), text="好"))
    run(env, "ask", "--json", said)
    assert account(env) == before
    (result,) = tool_results(server)
    assert result["ok"] is False and result["error"].startswith("没有记录这笔交易：用户本轮的话里没有")
    assert result["result"] == "proposed"  # kept for the user to confirm, the account unchanged
