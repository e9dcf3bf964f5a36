"""A change the model asks for is checked against the user's words of the turn: what each
message states, and what the refusal names as missing, written out by hand."""

from __future__ import annotations

import pytest

from pixiu_cli.account.trades import NewTrade
from pixiu_cli.conversation.grounding import ground_alert, ground_note, ground_trade
from pixiu_cli.conversation.selection.aliases import add_alias
from pixiu_cli.home.document_file import load_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.handle import Market
from pixiu_cli.market.store import SecurityMaster
from pixiu_cli.memory.alerts import NewAlert
from tests.helpers import FIXTURE, NOW  # NOW: 2026-11-24


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    db = open_database(tmp_path_factory.mktemp("g") / "p.db")
    InvestorStore(db).replace_all(load_document(FIXTURE, NOW))  # 600519 茅台, 002415 海康, 300750 宁德
    add_alias(SecurityMaster(db), "宁王", "300750", NOW)
    yield db
    db.close()


def trade(symbol, side, price, quantity, fee=0.0, day=None):
    return NewTrade(symbol, side, price, quantity, None, None, "model", day, fee)


@pytest.mark.parametrize(
    "said, call",
    [
        ("今天以 30 元买入海康威视 200 股", trade("002415", "buy", 30, 200)),
        ("我今天 32.5 元买了 10 手海康", trade("002415", "buy", 32.5, 1000)),  # 10 手 = 1,000 股
        ("卖出６００５１９　１００股，价格１８００元", trade("600519", "sell", 1800, 100)),  # full width
        ("以一千八百元卖了一手茅台", trade("600519", "sell", 1800, 100)),  # numerals, 一手 = 100 股
        ("三十块五买了两千股海康", trade("002415", "buy", 30.5, 2000)),  # 30 块 5 = 30.5 元
        ("宁王 200 元买了 100 股", trade("300750", "buy", 200, 100)),  # the user's alias
        ("以 100 元买入 100 股茅台", trade("600519", "buy", 100, 100)),  # one figure each
        ("昨天以 30 元买了 200 股海康", trade("002415", "buy", 30, 200, day="2026-11-23")),
        ("卖了 100 股茅台，1800 元，手续费 5 元", trade("600519", "sell", 1800, 100, fee=5)),
        ("茅台今天开盘就卖了 100 股，1800 元", trade("600519", "sell", 1800, 100)),  # 就卖了: done
        ("我今天买了 100 股茅台，成本 1800 元，怎么看？", trade("600519", "buy", 1800, 100)),  # asks after
    ],
)
def test_a_trade_the_user_states_is_grounded(db, said, call):
    assert ground_trade(Market(db), said, call, NOW).missing == ()


@pytest.mark.parametrize(
    "said, call, missing",
    [
        ("你好", trade("600519", "sell", 1, 100), ("股票 600519（贵州茅台）", "方向 卖出", "数量 100 股", "价格 1 元")),
        ("以 100 元买了茅台", trade("600519", "buy", 100, 100), ("数量 100 股",)),  # 100 元 is a price
        ("买了 100 股茅台", trade("600519", "buy", 100, 100), ("价格 100 元",)),  # 100 股 is shares
        ("卖了 1 手茅台，1800 元", trade("600519", "sell", 1800, 1), ("数量 1 股",)),  # 1 手 is 100 股
        ("以 30 元买了 200 股海康", trade("300750", "buy", 30, 200), ("股票 300750（宁德时代）",)),
        ("茅台 100 股 1800 元", trade("600519", "sell", 1800, 100), ("方向 卖出",)),
        ("卖了 100 股茅台，1800 元，手续费 5 元", trade("600519", "sell", 1800, 100, fee=6), ("手续费 6 元",)),
        ("卖了 100 股茅台，1800 元", trade("600519", "sell", 1800, 100, day="2026-11-20"), ("日期 2026-11-20",)),
    ],
)
def test_what_the_words_lack_is_named(db, said, call, missing):
    assert ground_trade(Market(db), said, call, NOW).missing == missing


@pytest.mark.parametrize(
    "said, classes",
    [
        ("茅台现在 1800 元，我持有 100 股，要不要卖？", ("提问",)),
        ("可以 1800 元卖 100 股茅台吗", ("提问",)),
        ("1800 元卖 100 股茅台合适不？", ("提问",)),
        ("茅台 1800 元，我想卖 100 股", ("打算或条件",)),
        ("茅台跌破 1800 元就卖 100 股", ("打算或条件",)),
        ("我没卖茅台 100 股，1800 元", ("否定",)),
    ],
)
def test_a_question_or_an_intention_is_no_trade(db, said, classes):
    (missing,) = ground_trade(Market(db), said, trade("600519", "sell", 1800, 100), NOW).missing
    assert missing.startswith("已成交的卖出（用户的话是") and all(c in missing for c in classes)


# Each class of sentence that names a trade without reporting one of the user's own fills, in
# several phrasings: the refusal names the class (and the call becomes a proposal the user confirms).
FAMILIES = {
    "否定": ["我不想以 1800 元卖 100 股茅台", "千万别以 1800 元卖 100 股茅台", "我绝不会 1800 元卖掉 100 股茅台"],
    "假设": [
        "如果以 1800 元卖出 100 股茅台，盈亏多少",
        "假设我 1800 元卖了 100 股茅台",
        "模拟一下 1800 元卖出 100 股茅台",
        "要是茅台 1800 元我卖了 100 股，会怎样",
    ],
    "将来或打算": ["明天以 1800 元卖 100 股茅台", "下周准备 1800 元卖出 100 股茅台", "我打算 1800 元卖掉 100 股茅台"],
    "未成交或已撤单": [
        "挂了个单 1800 元卖 100 股茅台，还没成交",
        "1800 元卖出 100 股茅台的单子撤了",
        "委托 1800 元卖出 100 股茅台",
        "1800 元卖 100 股茅台，排队中没成交",
    ],
    "他人的交易或说法": [
        "我朋友以 1800 元卖了 100 股茅台",
        "我老婆今天 1800 元卖了 100 股茅台",
        "新闻说大股东以 1800 元减持了 100 股茅台",
        "听说有人 1800 元卖了 100 股茅台",
    ],
    "计算": [
        "帮我算一下 1800 元卖 100 股茅台能拿多少钱",
        "1800 元卖 100 股茅台要多少手续费",
        "算算 1800 卖 100 股茅台盈亏",
    ],
}


@pytest.mark.parametrize(
    "said, family", [(said, family) for family, phrasings in FAMILIES.items() for said in phrasings]
)
def test_a_sentence_of_each_class_is_no_report(db, said, family):
    (missing,) = ground_trade(Market(db), said, trade("600519", "sell", 1800, 100), NOW).missing
    assert missing.startswith("已成交的卖出（用户的话是") and family in missing


@pytest.mark.parametrize(
    "said",
    ["我的茅台买入价是 1580 元，一共 200 股", "茅台成本价 1580 元买的 200 股", "我持有 200 股茅台，买入均价 1580 元"],
)
def test_a_holding_described_is_no_buy(db, said):
    assert "描述已有持仓" in "".join(ground_trade(Market(db), said, trade("600519", "buy", 1580, 200), NOW).missing)


@pytest.mark.parametrize(
    "said, text, symbol",
    [
        ("我以后再也不追涨杀跌了", "不追涨杀跌", None),
        ("记住：单只个股可以满仓", "单只个股可以满仓", None),
        ("海康估值偏高，回踩３０元再加倉", "海康估值偏高，回踩30元再加仓", "002415"),  # full width, traditional
        ("以后仓位不超过三成", "仓位不超过3成", None),  # 三 = 3
    ],
)
def test_a_note_in_the_users_words_is_grounded(db, said, text, symbol):
    assert ground_note(Market(db), said, text, symbol).missing == ()


@pytest.mark.parametrize(
    "said, text, symbol, missing",
    [
        ("你好", "单只个股可以满仓", None, ("「单只个股可以满仓」",)),
        ("单只个股不可以满仓", "单只个股可以满仓", None, ("否定词「不」（用户说的是「不可以满仓」）",)),
        ("单只个股可以满仓", "单只个股不可以满仓", None, ("「不」",)),  # a negation the user never said
        ("海康回踩 30 元再加仓", "海康回踩28元再加仓", None, ("数字 28元",)),
        ("回踩 30 元再加仓", "回踩30元再加仓", "002415", ("股票 002415（海康威视）",)),
    ],
)
def test_a_note_not_in_the_users_words_names_what_is_not(db, said, text, symbol, missing):
    assert ground_note(Market(db), said, text, symbol).missing == missing


def test_an_alert_needs_its_stock_direction_and_threshold(db):
    below = NewAlert("600519", "below", 1500, "对话")
    assert ground_alert(Market(db), "茅台跌破1500就止损", below).missing == ()
    assert ground_alert(Market(db), "茅台涨破1500提醒我", below).missing == ("条件 below",)
    assert ground_alert(Market(db), "你好", below).missing[:3] == ("股票 600519（贵州茅台）", "条件 below", "阈值 1500")


@pytest.mark.parametrize(
    "said", ["茅台不会跌破 1500 的", "茅台会跌破 1500 吗？", "有人说茅台要跌破 1500", "茅台跌破 1500 了"]
)
def test_an_alert_needs_the_users_instruction(db, said):
    (missing,) = ground_alert(Market(db), said, NewAlert("600519", "below", 1500, "对话")).missing
    assert missing.startswith("设预警的要求")


@pytest.mark.parametrize("said", ["单只个股可以满仓吗？", '有人说"单只个股可以满仓"，对吗', "单只个股可以满仓？"])
def test_a_question_is_no_rule(db, said):
    assert ground_note(Market(db), said, "单只个股可以满仓", None).missing != ()


@pytest.mark.parametrize(
    "said, text",
    [
        ("海康跌到 25 元就不要再加仓", "海康跌到25元就再加仓"),
        ("宁德时代跌到 200 元，绝不要再加仓", "宁德时代跌到200元，绝再加仓"),
    ],
)
def test_a_negation_the_note_skips_over_is_named(db, said, text):
    (missing, *_) = ground_note(Market(db), said, text, None).missing
    assert missing.startswith("否定词「不要」")


def test_a_question_is_no_plan(db):
    assert ground_note(Market(db), "宁德时代跌到 200 元要不要加仓", "宁德时代跌到200元要加仓", None).missing


@pytest.mark.parametrize(
    "said, call, why",
    [
        ("茅台 1800 元卖 100 股", trade("600519", "sell", 1800, 100), "未说明已成交的说法"),  # no sign it was done
        ("茅台 1800 元卖 100 股，收盘前去操作", trade("600519", "sell", 1800, 100), "将来或打算"),
        ("1800 卖了 100 股茅台，开玩笑的", trade("600519", "sell", 1800, 100), "收回或否认"),  # retracted after
        ("今天 1800 卖了 100 股茅台，明天 1850 再卖 200 股", trade("600519", "sell", 1850, 200), "将来或打算"),
        ("茅台涨到 1800 卖 100 股", trade("600519", "sell", 1800, 100), "条件单"),
        ("茅台 1800 卖了 100 股，亏没亏", trade("600519", "sell", 1800, 100), "提问"),
        ("室友刚买了茅台 100 股，1800", trade("600519", "buy", 1800, 100), "他人的交易或说法"),
        # 自己 after another person is that person's own, not the user taking the clause back
        ("我同事用他自己的钱 1800 买了 100 股茅台", trade("600519", "buy", 1800, 100), "他人的交易或说法"),
    ],
)
def test_a_trade_is_judged_in_its_own_clauses_and_needs_a_sign_it_was_done(db, said, call, why):
    (missing,) = ground_trade(Market(db), said, call, NOW).missing
    assert missing.startswith("已成交的") and why in missing


@pytest.mark.parametrize(
    "said, call",
    [
        ("今天 1800 卖了 100 股茅台，明天 1850 再卖 200 股", trade("600519", "sell", 1800, 100)),
        ("朋友劝我别买，我还是 1800 买了 100 股茅台", trade("600519", "buy", 1800, 100)),
        ("委托的茅台 1800 买入 100 股，刚才已全部成交", trade("600519", "buy", 1800, 100)),
        ("怕明天还要跌，所以今天先把海康卖了 500 股，30.5", trade("002415", "sell", 30.5, 500)),
        ("海康又买了 6 手，30.8成交", trade("002415", "buy", 30.8, 600)),
        ("茅台在 1480 的位置又补了一手", trade("600519", "buy", 1480, 100)),
    ],
)
def test_a_fill_beside_other_words_is_grounded(db, said, call):
    assert ground_trade(Market(db), said, call, NOW).missing == ()
