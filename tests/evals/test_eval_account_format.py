"""The eval format grows with the memory (issue 38): a case sets a watch list, plans one
replaced by another, the account's fills and cash, and checks the account line against the
product's valuation."""

from __future__ import annotations

import pytest

from pixiu_cli.evals.cases import EvalError
from pixiu_cli.evals.contexts import parse_case, run_case

NOW = "2026-03-04T10:15:00+08:00"
HOLDING = {"symbol": "000333", "name": "美的集团", "short_names": ["美的"], "shares": 100, "cost": 60, "role": "core"}


def _case(**overrides) -> dict:
    case = {
        "id": "t",
        "category": "test",
        "now": NOW,
        "dataset": {"holdings": [HOLDING]},
        "message": "美的怎么样",
        "must": ["[上下文信息]"],
    }
    case.update(overrides)
    return case


def test_a_data_set_sets_the_watch_list():
    watched = {"holdings": [HOLDING], "watch": ["000858", {"symbol": "600519", "added_at": "2026-02-01"}]}
    result = run_case(parse_case(_case(dataset=watched, message="我的自选股怎么样", sections=["watchlist"])))
    assert result.passed, result.failures
    assert "自选股（2 只）" in result.block_text and "600519 贵州茅台 · 2026-02-01 加入" in result.block_text
    # without it the list is empty, and the block says so
    plain = run_case(parse_case(_case(message="我的自选股怎么样")))
    assert "自选股（0 只）" in plain.block_text and "自选股（2 只）" not in plain.block_text


def test_a_plan_replaced_by_a_newer_one_leaves_the_block():
    notes = [
        {"ref": "old", "replaced_by": "new", "kind": "plan", "symbol": "000333", "text": "美的60元加仓", "days_ago": 9},
        {"ref": "new", "kind": "plan", "symbol": "000333", "text": "美的不再加仓，跌破55元减半", "days_ago": 2},
    ]
    result = run_case(
        parse_case(
            _case(dataset={"holdings": [HOLDING], "notes": notes}, must=["跌破55元减半"], must_not=["美的60元加仓"])
        )
    )
    assert result.passed, result.failures


def test_a_replaced_by_naming_no_note_is_refused():
    notes = [{"ref": "a", "replaced_by": "b", "kind": "plan", "text": "x", "days_ago": 1}]
    with pytest.raises(EvalError, match=r"notes\[0\]\.replaced_by 应为另一条笔记的 ref"):
        parse_case(_case(dataset={"holdings": [HOLDING], "notes": notes}))


# The account: 10,000.00 stated on 2026-03-02, then a sale of 100 shares at 50.00 with 5.25 of
# fees on 2026-03-03: 10,000.00 + 100 × 50.00 − 5.25 = 14,994.75.
ACCOUNT_PATCH = {
    "replace": {
        "account": {
            "cash": [{"amount": 10000, "as_of": "2026-03-02", "source": "statement"}],
            "fills": [
                {
                    "fill_id": "b1",
                    "day": "2026-02-10",
                    "kind": "buy",
                    "symbol": "000333",
                    "quantity": 300,
                    "price": 60,
                    "amount": 18000,
                    "fees": 5,
                },
                {
                    "fill_id": "s1",
                    "day": "2026-03-03",
                    "kind": "sell",
                    "symbol": "000333",
                    "quantity": 100,
                    "price": 50,
                    "amount": 5000,
                    "fees": 5.25,
                },
            ],
        }
    }
}
LEDGER_HOLDING = {**HOLDING, "basis": "ledger"}


def _account_case(figures: dict) -> dict:
    return _case(dataset={"holdings": [LEDGER_HOLDING]}, dataset_patch=ACCOUNT_PATCH, account=figures)


def test_the_account_check_reads_the_products_valuation_and_the_block():
    result = run_case(parse_case(_account_case({"cash": "14,994.75"})))
    assert result.passed, result.failures
    assert "现金 14,994.75（2026-03-02 余额 10,000.00，其后 1 笔流水已计入）" in result.block_text


def test_the_account_check_fails_on_another_figure():
    result = run_case(parse_case(_account_case({"cash": "15,000.00"})))
    assert not result.passed
    assert result.failures == ["账户估值的 现金 应为 15,000.00，实际为 14,994.75", "账户行缺少 '现金 15,000.00'"]


def test_the_account_check_fails_when_the_cash_is_unknown():
    result = run_case(parse_case(_case(account={"cash": "0"})))
    assert result.failures == ["账户估值的 现金 应为 0，实际为 未知", "账户行缺少 '现金 0'"]


def test_an_account_patch_appends_fills_to_the_data_sets_own():
    appended = {"append": {"account": {"fills": ACCOUNT_PATCH["replace"]["account"]["fills"][1:]}}}
    base = {"holdings": [LEDGER_HOLDING], "account": {"fills": ACCOUNT_PATCH["replace"]["account"]["fills"][:1]}}
    case = parse_case(_case(dataset=base, dataset_patch=appended))
    assert [f["fill_id"] for f in case.document["account"]["fills"]] == ["b1", "s1"]


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"dataset": {"holdings": [HOLDING], "watch": ["abc"]}}, "watch[0] 应为六位代码"),
        ({"dataset": {"holdings": [HOLDING], "watch": "000858"}}, "watch 应为数组"),
        ({"account": {"cash_left": "1"}}, "account 应为 {数值名: 文本} 对象"),
        ({"account": {"cash": 14995}}, "account 的每个数值应为非空字符串"),
        ({"dataset_patch": {"append": {"account": []}}}, "dataset_patch.append.account 应为"),
        ({"dataset_patch": {"replace": {"account": {"fills": {}}}}}, "dataset_patch.replace.account.fills 应为数组"),
    ],
)
def test_malformed_setup_and_checks_are_refused(overrides, fragment):
    with pytest.raises(EvalError) as info:
        parse_case(_case(**overrides))
    assert fragment in str(info.value)
