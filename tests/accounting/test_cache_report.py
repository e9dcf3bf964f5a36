"""Cache accounting and cache-break explanations on real calls to the offline model in process
(its prefix cache is the offline server's; the wire's own figures: tests/offline/test_offline_usage.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pixiu_cli.account.explain import explain
from pixiu_cli.account.report import PriceTable, build_report, call_cost
from pixiu_cli.conversation.offline.model import OfflineModel
from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import build_app


class Rig:
    def __init__(self, model, tmp_path, history_blocks="delta"):
        app = build_app(model, tmp_path / "c.db", history_blocks=history_blocks)
        self.db, self.store, self.client, self.builder, self.agent = (
            app.db,
            app.store,
            app.client,
            app.builder,
            app.agent,
        )
        self.model = model

    def turn(self, conv, text, reply="好的，这是回答。" * 10):
        self.model.enqueue(ScriptedReply(text=reply))
        return self.agent.run_turn(conv, text)

    def explain_last(self):
        calls = self.store.calls_for_conversation(self.store.latest_conversation().id)
        previous = calls[-2] if len(calls) > 1 else self.store.last_call_before(calls[-1].id)
        return explain(previous, calls[-1])


@pytest.fixture
def rig(model, tmp_path):
    return Rig(model, tmp_path)


def test_first_call_and_append_only(rig):
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    assert rig.explain_last().cause == "first_call"
    rig.turn(conv, "第二问")
    e = rig.explain_last()
    assert e.cause == "append_only" and e.predicted_hit > 0
    assert (
        e.reported_hit == e.predicted_hit and not e.flagged
    )  # the offline simulator shares this code; test_explain_recorded.py checks recorded figures


def test_system_prompt_changed(rig, monkeypatch):
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    import pixiu_cli.conversation.context.builder as builder_module

    monkeypatch.setattr(builder_module, "system_prompt", lambda: "完全不同的系统提示")
    rig.turn(conv, "第二问")
    e = rig.explain_last()
    assert e.cause == "system_changed" and e.reported_hit == 0


def test_tools_changed(rig):
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    rig.agent.tools = type(rig.agent.tools)(rig.agent.tools.tools[:-1])
    rig.turn(conv, "第二问")
    assert rig.explain_last().cause == "tools_changed"


def test_model_or_params_changed(rig):
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    rig.agent.temperature = 0.3
    rig.turn(conv, "第二问")
    e = rig.explain_last()
    assert e.cause == "model_or_params" and "temperature" in e.detail


def test_history_compaction_is_named_as_such(rig):
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    rig.turn(conv, "第二问")
    rig.store.set_summary(conv, "- 摘要", upto_seq=1)
    rig.turn(conv, "第三问")
    e = rig.explain_last()
    assert e.cause == "history_compacted" and "压缩历史" in e.label and "/retry" not in e.label


def test_context_block_changed_or_dropped(model, tmp_path):
    rig = Rig(model, tmp_path, history_blocks="keep")
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    rig.builder.history_blocks = "drop"  # the earlier block disappears from the history
    rig.turn(conv, "第二问")
    e = rig.explain_last()
    assert e.cause == "context_block_changed" and e.reported_hit < e.common_tokens + 64


def test_new_conversation(rig):
    rig.turn(rig.store.create_conversation().id, "第一问")
    rig.turn(rig.store.create_conversation().id, "另一个对话")
    e = rig.explain_last()
    assert e.cause == "new_conversation" and e.reported_hit > 0  # system prompt and tools are shared


def test_gap_is_flagged_when_the_provider_disagrees(rig):
    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    rig.model.cache.reset()  # the provider forgot (eviction): it reports less than the prefix allows
    rig.turn(conv, "第二问")
    e = rig.explain_last()
    assert e.cause == "append_only" and e.flagged and e.gap < 0


def test_totals_equal_the_sum_of_stored_calls(rig):
    conv = rig.store.create_conversation().id
    for i in range(4):
        rig.turn(conv, f"问题{i}")
    rig.turn(rig.store.create_conversation().id, "别的对话")
    report = build_report(rig.store, conv, PriceTable())
    calls = rig.store.calls_for_conversation(conv)
    assert report.conversation.prompt_tokens == sum(c.usage.prompt_tokens for c in calls)
    assert report.conversation.cache_hit_tokens == sum(c.usage.cache_hit_tokens for c in calls)
    assert report.conversation.cache_miss_tokens == sum(c.usage.cache_miss_tokens for c in calls)
    assert sum(t.totals.prompt_tokens for t in report.turns) == report.conversation.prompt_tokens
    every = [c for conv_ in rig.store.list_conversations() for c in rig.store.calls_for_conversation(conv_.id)]
    assert report.all_time.calls == len(every) == report.today.calls
    assert report.all_time.completion_tokens == sum(c.usage.completion_tokens for c in every)
    assert [c.cache_hit_tokens > 0 for c in report.calls] == [False, True, True, True]


def test_unknown_for_providers_without_cache_data(tmp_path):
    rig = Rig(OfflineModel(cache_profile="none"), tmp_path)
    conv = rig.store.create_conversation().id
    rig.turn(conv, "一")
    rig.turn(conv, "二")
    report = build_report(rig.store, conv, PriceTable())
    assert report.conversation.cache_hit_tokens is None and report.conversation.hit_rate is None
    assert report.conversation.unreported_calls == 2
    assert all(c.cache_hit_tokens is None and c.hit_rate is None for c in report.calls)
    assert report.as_json()["totals"]["conversation"]["cache_hit_tokens"] is None


def test_cost_arithmetic_by_hand():
    prices = PriceTable(hit_per_million=0.5, miss_per_million=2.0, output_per_million=8.0, user_set=True)
    cost = call_cost(prices, model="any", hit=600_000, miss=400_000, prompt=1_000_000, completion=100_000, at=None)
    # 0.6M × 0.5 + 0.4M × 2 + 0.1M × 8 = 0.3 + 0.8 + 0.8
    assert cost.actual == pytest.approx(1.9)
    assert cost.without_cache == pytest.approx(2.0 + 0.8)
    assert cost.savings == pytest.approx(0.9)
    # Tuesday 2026-11-24: 10:00 Beijing is a peak hour, 01:00 and 12:30 are idle (half price).
    for moment, expected in (
        (datetime(2026, 11, 24, 2, 0, tzinfo=UTC), 1.9),
        (datetime(2026, 11, 23, 17, 0, tzinfo=UTC), 0.95),
        (datetime(2026, 11, 24, 4, 30, tzinfo=UTC), 0.95),
    ):
        got = call_cost(prices, model="any", hit=600_000, miss=400_000, prompt=1_000_000, completion=100_000, at=moment)
        assert got.actual == pytest.approx(expected), moment
    assert call_cost(prices, model="any", hit=None, miss=None, prompt=None, completion=5, at=None) is None


def test_published_prices_per_model_with_deepseeks_idle_hours():
    """DeepSeek's published table: deepseek-flash 0.04 / 2 / 8 CNY and deepseek-v4-pro
    0.30 / 9 / 27 per million (hit / miss / output) at peak; half in idle hours, which
    include weekends and statutory holidays all day."""
    table = PriceTable()
    args = dict(hit=500_000, miss=500_000, prompt=1_000_000, completion=200_000)
    peak = datetime(2026, 11, 24, 6, 30, tzinfo=UTC)  # Tuesday 14:30 Beijing
    flash = call_cost(table, model="deepseek-flash", at=peak, **args)
    assert flash.actual == pytest.approx(0.5 * 0.04 + 0.5 * 2 + 0.2 * 8)  # 2.62
    pro = call_cost(table, model="deepseek-v4-pro", at=peak, **args)
    assert pro.actual == pytest.approx(0.5 * 0.30 + 0.5 * 9 + 0.2 * 27)  # 10.05
    saturday = datetime(2026, 11, 28, 2, 0, tzinfo=UTC)  # 10:00 Beijing
    national_day = datetime(2026, 10, 2, 2, 0, tzinfo=UTC)  # a Friday, 10:00 Beijing, a holiday
    for idle in (saturday, national_day):
        assert call_cost(table, model="deepseek-flash", at=idle, **args).actual == pytest.approx(2.62 / 2)
    assert call_cost(table, model="deepseek-chat", at=peak, **args) is None  # retired: no price
    assert not table.knows("qwen2.5:7b") and table.knows("deepseek-flash")


def test_price_table_rejects_unknown_settings():
    with pytest.raises(ValueError):
        PriceTable.from_mapping({"hit_price": 1})
    assert PriceTable.from_mapping({"currency": "USD", "hit_per_million": 0.07}).currency == "USD"


@pytest.mark.parametrize("how", ["retry", "undo"])
def test_a_turn_withdrawn_by_retry_or_undo_is_named_as_such(rig, how):
    from pixiu_cli.conversation.ask import undo_last_turn

    conv = rig.store.create_conversation().id
    rig.turn(conv, "第一问")
    last = rig.turn(conv, "第二问")
    if how == "retry":
        rig.store.label_retried(last.turn_id, "（已用 /retry 重新生成，见第 3 轮）")
        rig.turn(conv, "第二问")
    else:
        undo_last_turn(rig.store, conv)
        rig.turn(conv, "换个问题")
    e = rig.explain_last()
    assert e.cause == "turn_withdrawn" and "/retry 或 /undo" in e.label
    assert "较早的 [上下文信息] 块" not in e.label
