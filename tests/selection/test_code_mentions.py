import json
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.selection.select import extract_symbols
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names.table import Holder

HOLDINGS = (
    Holder("600519", "贵州茅台", ("茅台",)),
    Holder("002415", "海康威视", ("海康",)),
    Holder("300750", "宁德时代", ("宁德",)),
    Holder("000858", "五粮液", ()),
    Holder("600036", "招商银行", ("招行",)),
    Holder("601318", "中国平安", ("平安",)),
    Holder("688981", "中芯国际", ("中芯",)),
    Holder("000333", "美的集团", ("美的",)),
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("600519", ["600519"]),
        ("sh600519", ["600519"]),
        ("SH600519", ["600519"]),
        ("Sh600519", ["600519"]),
        ("600519.SH", ["600519"]),
        ("600519.sh", ["600519"]),
        ("600519SH", ["600519"]),
        ("SH.600519", ["600519"]),
        ("SHSE.600519", ["600519"]),
        ("600519.SS", ["600519"]),
        ("600519.XSHG", ["600519"]),
        ("sz000001", ["000001"]),
        ("000001.SZ", ["000001"]),
        ("000001.XSHE", ["000001"]),
        ("bj430047", ["430047"]),
        ("430047.BJ", ["430047"]),
        ("920001.BJ", ["920001"]),
        ("６００５１９", ["600519"]),
        ("ＳＨ６００５１９", ["600519"]),
        ("６００５１９．ＳＨ", ["600519"]),
        ("买600519怎么样", ["600519"]),
        ("茅台600519和000858", ["600519", "000858"]),
        ("看看300750、002415，还有688981", ["300750", "002415", "688981"]),
        ("600519,000858,601318", ["600519", "000858", "601318"]),
        ("代码：600519", ["600519"]),
        ("(600519)", ["600519"]),
        ("600519股价多少", ["600519"]),
        ("600519股票能买吗", ["600519"]),
        ("600519手续费多少", ["600519"]),
        ("持有600519 100股", ["600519"]),
        ("sz300750和sh688981", ["300750", "688981"]),
        ("sh510300", ["510300"]),  # an ETF, explicit exchange
        ("sz159915", ["159915"]),
        ("600519 600519 sh600519", ["600519"]),  # deduplicated
    ],
)
def test_code_spellings(text, expected):
    assert extract_symbols(text, ()) == expected


@pytest.mark.parametrize(
    "text",
    [
        "1500元",
        "股价1500",
        "¥600519",
        "￥ 600519",
        "$600519",
        "RMB 600519",
        "600519元",
        "600519 元",
        "600519块",
        "600519股",
        "600519 股",
        "600519手",
        "600519%",
        "600519％",
        "600519万",
        "600519亿",
        "600519倍",
        "600519美元",
        "价格600519",
        "现价：600519",
        "成本 600519",
        "成交量600519",
        "第600519名",
        "订单号600519",
        "邮编430000",
        "验证码600519",
        "2026-01-05",
        "20260105",
        "2026年",
        "2026年1月5日",
        "2026",
        "600519.5",
        "600519.00元",
        "1.600519",
        "3.600519%",
        "2026-600519",
        "600519-2",
        "+600519",
        "13800138000",
        "6005190",
        "1600519",
        "0600519",
        "021-60051900",
        "123456",
        "999999",
        "510300",  # an ETF written bare is not a plausible stock code
        "ID600519",
        "600519abc",
        "wash600519",
        "sh000001",  # 上证指数, not 平安银行
        "sz399001",  # 深证成指
        "sh000300",
        "sz600519",  # wrong exchange
        "bj600519",
        "٦٠٠٥١٩",  # Arabic-Indic digits are not codes
        "1٦00519",
    ],
)
def test_not_codes(text):
    assert extract_symbols(text, ()) == []


def test_known_ambiguity_a_bare_date_or_postal_code_reads_as_a_code():
    # Without context a YYMMDD or a postal code cannot be told from a plausible code; a word
    # in front of it (邮编) can.
    assert extract_symbols("000105", ()) == ["000105"]
    assert extract_symbols("430000", ()) == ["430000"]
    assert extract_symbols("邮编430000", ()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("海康威视怎么样", ["002415"]),
        ("海康估值偏高，回踩30元再加仓", ["002415"]),
        ("贵州茅台和茅台", ["600519"]),
        ("茅台和海康哪个好", ["600519", "002415"]),
        ("宁德时代vs宁德", ["300750"]),
        ("中芯国际688981", ["688981"]),
        ("招行还是平安", ["600036", "601318"]),
        ("买美的怎么样", ["000333"]),
        ("这是一个完美的计划", []),
        ("平安夜快乐", []),
        ("平安银行怎么样", []),  # a different stock, not 中国平安
        ("五粮液和600519", ["000858", "600519"]),
        ("600519和五粮液", ["600519", "000858"]),
        ("我的持仓哪只适合核心仓", []),
        ("海康威视002415", ["002415"]),
    ],
)
def test_holding_names(text, expected):
    assert extract_symbols(text, HOLDINGS) == expected


def test_held_symbol_counts_even_when_not_a_stock_prefix():
    etf = Holder("510300", "沪深300ETF", ("300ETF",))
    assert extract_symbols("510300还能拿吗", [etf]) == ["510300"]
    assert extract_symbols("510300还能拿吗", []) == []


def test_holding_named_like_a_shadow_word_wins():
    bank = Holder("000001", "平安银行", ())
    assert extract_symbols("平安银行怎么样", [bank]) == ["000001"]


def test_short_aliases_are_ignored():
    weird = Holder("600519", "贵州茅台", ("茅",))
    assert extract_symbols("茅草屋", [weird]) == []


def test_empty_text():
    assert extract_symbols("", HOLDINGS) == []


def test_demo_holdings_are_recognised_by_name():
    doc = json.loads((data_dir() / "demo" / "portfolio.json").read_text(encoding="utf-8"))
    holdings = [Holder(h["symbol"], h["name"], tuple(h["short_names"])) for h in doc["holdings"]]
    assert 6 <= len(holdings) <= 8
    for h in holdings:
        assert extract_symbols(f"说说{h.name}吧", holdings) == [h.symbol]
        for short in h.short_names:
            assert extract_symbols(f"{short}怎么样", holdings) == [h.symbol]


# --- properties ---------------------------------------------------------------------------

CJK = st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), max_size=6)

amounts = st.integers(min_value=0, max_value=10**10)
cents = st.integers(min_value=0, max_value=99)

PRICE_FORMS = (
    "{v}元",
    "{v} 元",
    "{v}.{c:02d}元",
    "¥{v}",
    "￥{v}",
    "¥ {v}",
    "${v}",
    "$ {v}.{c:02d}",
    "{v}.{c:02d}",
    "{v:,}",
    "{v:,}.{c:02d}",
    "{v}块",
    "{v}块{c}",
    "{v}万",
    "{v}亿",
    "{v}万元",
    "{v}%",
    "{v}.{c:02d}%",
    "-{v}.{c:02d}%",
    "+{v}.{c:02d}%",
    "价格{v}",
    "现价：{v}",
    "成本价 {v}",
    "市值{v}",
    "{v}美元",
    "{v}港元",
    "{v}RMB",
    "{v} CNY",
    "约{v}元",
    "{v}倍",
)
QUANTITY_FORMS = (
    "{v}股",
    "{v} 股",
    "{v}手",
    "{v} 手",
    "{v:,}股",
    "{v}份",
    "{v}张",
    "数量{v}",
    "数量：{v}",
    "成交量{v}",
    "共{v}股",
    "{v}万股",
    "{v}亿股",
)


@settings(max_examples=300, deadline=None)
@given(form=st.sampled_from(PRICE_FORMS + QUANTITY_FORMS), v=amounts, c=cents, before=CJK, after=CJK)
def test_prices_and_quantities_are_never_codes(form, v, c, before, after):
    text = before + form.format(v=v, c=c) + after
    assert extract_symbols(text, ()) == []


DATE_FORMS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y%m%d",
    "%Y.%m.%d",
    "%Y年%m月%d日",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y%m%d%H%M%S",
    "%Y%m%d %H:%M",
    "%m-%d",
    "%m/%d %H:%M",
)


@settings(max_examples=300, deadline=None)
@given(
    when=st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2099, 12, 31)),
    form=st.sampled_from(DATE_FORMS),
    before=CJK,
    after=CJK,
)
def test_dates_are_never_codes(when, form, before, after):
    text = before + when.strftime(form) + after
    assert extract_symbols(text, ()) == []
    loose = f"{when.year}年{when.month}月{when.day}日"
    assert extract_symbols(before + loose + after, ()) == []


YEAR_FORMS = ("{y}", "{y}年", "{y}年度", "{y}-{z}", "{y}～{z}年", "{y}/{z}", "FY{y}", "{y}Q3")


@settings(max_examples=200, deadline=None)
@given(y=st.integers(1900, 2999), form=st.sampled_from(YEAR_FORMS), before=CJK, after=CJK)
def test_years_are_never_codes(y, form, before, after):
    assert extract_symbols(before + form.format(y=y, z=y + 1) + after, ()) == []


@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=10**6, max_value=10**19), before=CJK, after=CJK)
def test_longer_digit_runs_are_never_codes(n, before, after):
    assert extract_symbols(f"{before}{n}{after}", ()) == []


STOCK_PREFIXES = {
    "sh": ("600", "601", "603", "605", "688", "689"),
    "sz": ("000", "001", "002", "003", "300", "301"),
    "bj": ("43", "83", "87", "88", "92"),
}


@st.composite
def spelled_codes(draw):
    exchange = draw(st.sampled_from(sorted(STOCK_PREFIXES)))
    prefix = draw(st.sampled_from(STOCK_PREFIXES[exchange]))
    code = prefix + "".join(
        draw(st.lists(st.sampled_from("0123456789"), min_size=6 - len(prefix), max_size=6 - len(prefix)))
    )
    form = draw(st.sampled_from(("{c}", "{e}{c}", "{E}{c}", "{c}.{E}", "{c}.{e}", "{E}.{c}", "{W}")))
    full_width = "".join(chr(ord(ch) + 0xFEE0) for ch in code)
    spelled = form.format(c=code, e=exchange, E=exchange.upper(), W=full_width)
    return code, spelled


# Not 是: the amount rule reads through it (价是600519, $是600000 are amounts), so random text
# ending in an amount word before it would rightly hide the code.
SAFE_SEPARATORS = "，。、；！？（）《》「」买看和"


@settings(max_examples=300, deadline=None)
@given(
    spelled=spelled_codes(),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
    sep1=st.sampled_from(SAFE_SEPARATORS),
    sep2=st.sampled_from(SAFE_SEPARATORS),
)
def test_random_unicode_around_a_code_still_finds_it(spelled, before, after, sep1, sep2):
    code, text = spelled
    assert code in extract_symbols(before + sep1 + text + sep2 + after, ())
    assert extract_symbols(text, ()) == [code]


@settings(max_examples=200, deadline=None)
@given(
    holding=st.sampled_from(HOLDINGS),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
    sep1=st.sampled_from(SAFE_SEPARATORS),
    sep2=st.sampled_from(SAFE_SEPARATORS),
    use_short=st.booleans(),
)
def test_random_unicode_around_a_name_still_finds_it(holding, before, after, sep1, sep2, use_short):
    name = holding.short_names[0] if use_short and holding.short_names else holding.name
    assert holding.symbol in extract_symbols(before + sep1 + name + sep2 + after, HOLDINGS)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_total_and_well_formed(text):
    found = extract_symbols(text, HOLDINGS)
    assert len(found) == len(set(found))
    assert all(len(s) == 6 and s.isascii() and s.isdigit() for s in found)
