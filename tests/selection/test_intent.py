import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.selection.intent import Intent, detect_intent, is_portfolio_question

PORTFOLIO_QUESTIONS = [
    # the plain wording of portfolio questions
    "我的持仓哪只适合核心仓",
    "仓位配比怎么样",
    "我的组合风险大吗",
    "卫星仓要不要换",
    "我的仓太重了吗",
    "资产怎么配置比较好",
    "哪只最值得留",
    "哪一只该先卖",
    # natural variants
    "我手上的票怎么样",
    "我手里这些股票还能拿吗",
    "我买的这几只还能拿吗",
    "我买的那些都亏了",
    "我的股票整体怎么样",
    "整体仓位是不是太高",
    "要不要调仓",
    "需要再平衡吗",
    "集中度是不是太高",
    "够分散吗",
    "哪个最该减",
    "该加哪只",
    "哪些该留着",
    "我的账户亏了好多",
    "账户里还有多少现金",
    "我持有的里面谁最弱",
    "现在该减仓吗",
    "要不要满仓",
    "这几只哪个更稳",
    "投资组合怎么优化",
    "钱怎么分配",
]

NOT_PORTFOLIO = [
    "今天大盘怎么样",
    "什么是市盈率",
    "怎么配置 Python 环境",
    "配置文件放在哪里",
    "API key 怎么配置",
    "哪只股票值得买",
    "A股哪只龙头最强",
    "基金持仓变化大吗",
    "北向持仓有什么信号",
    "机构重仓股有哪些",
    "K线组合形态怎么看",
    "这是一套组合拳",
    "市场集中度提高意味着什么",
    "大盘整体表现如何",
    "哪个指标最好用",
    "明天会涨吗",
    "美联储加息的影响",
]

TRADE_REVIEWS = [
    "复盘一下我上周的操作",
    "帮我复盘",
    "看看我的买卖记录",
    "最近的交易记录",
    "这笔交易做得对吗",
    "那笔卖出是不是太早",
    "操作回顾",
    "交易总结一下",
    "我上周卖的海康",
    "我昨天买了茅台",
    "我刚清仓了宁德",
    "茅台卖飞了",
]


@pytest.mark.parametrize("text", PORTFOLIO_QUESTIONS)
def test_portfolio_questions(text):
    assert is_portfolio_question(text)
    assert detect_intent(text, []) is Intent.PORTFOLIO_REVIEW


@pytest.mark.parametrize("text", NOT_PORTFOLIO)
def test_not_portfolio_questions(text):
    assert not is_portfolio_question(text)
    assert detect_intent(text, []) is Intent.GENERAL


@pytest.mark.parametrize("text", TRADE_REVIEWS)
def test_trade_reviews(text):
    assert detect_intent(text, []) is Intent.TRADE_REVIEW


@pytest.mark.parametrize(
    ("text", "symbols", "expected"),
    [
        ("茅台怎么样", ["600519"], Intent.SINGLE_STOCK),
        ("600519还能买吗", ["600519"], Intent.SINGLE_STOCK),
        ("我今天想买茅台", ["600519"], Intent.SINGLE_STOCK),  # a plan, not a review
        ("茅台该减仓吗", ["600519"], Intent.SINGLE_STOCK),  # weak cue + symbol
        ("600519和000858哪只更好", ["600519", "000858"], Intent.SINGLE_STOCK),
        ("茅台在我的持仓里占比高吗", ["600519"], Intent.PORTFOLIO_REVIEW),  # strong cue
        # a position word about one named stock is about that stock, not the whole portfolio
        ("海康的仓位要不要降", ["002415"], Intent.SINGLE_STOCK),
        ("宁德时代的持仓成本是多少", ["300750"], Intent.SINGLE_STOCK),
        ("复盘一下我上周卖茅台", ["600519"], Intent.TRADE_REVIEW),
        ("帮我复盘今天大盘", [], Intent.GENERAL),  # a market recap
        ("复盘一下今天我的操作和大盘", [], Intent.TRADE_REVIEW),
        ("今天大盘怎么样", [], Intent.GENERAL),
    ],
)
def test_detect_intent(text, symbols, expected):
    assert detect_intent(text, symbols) is expected


def test_intent_values_are_strings():
    assert {i.value for i in Intent} == {"portfolio_review", "single_stock", "trade_review", "general"}
    assert Intent.GENERAL == "general"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.lists(st.just("600519"), max_size=2))
def test_total(text, symbols):
    assert detect_intent(text, symbols) in set(Intent)
    assert isinstance(is_portfolio_question(text), bool)


def test_dapei_bijiao_is_not_a_portfolio_ratio():
    # "搭配比较" contains 配比 but asks about combining products, not the user's allocation
    from pixiu_cli.conversation.selection.intent import Intent, detect_intent

    assert detect_intent("ETF 和个股怎么搭配比较好？", []) != Intent.PORTFOLIO_REVIEW
    assert detect_intent("仓位配比怎么样", []) == Intent.PORTFOLIO_REVIEW


def test_the_intent_reason_names_position_words_only_when_there_are_some():
    from pixiu_cli.conversation.selection.intent import analyze

    assert analyze("茅台最近怎么样", ["600519"]).reason == "点名了个股"
    assert "仓位词" in analyze("茅台仓位要不要减", ["600519"]).reason
