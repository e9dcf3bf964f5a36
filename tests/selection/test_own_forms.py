"""The everyday forms of the investor's own stocks (conversation/selection/forms.py): which forms a name
gives and which it does not (everyday and industry words, English), and how the name table
finds them — halves, initials, affix-free names, pinyin as a whole Latin token, IME typos."""

from __future__ import annotations

import pytest

from pixiu_cli.conversation.selection.select import select
from pixiu_cli.market.names.forms import (
    AFFIX,
    EACH_WORD,
    FIRST_TWO,
    INITIALS,
    LAST_TWO,
    PINYIN,
    PINYIN_INITIALS,
    generated_forms,
    latin_forms,
)
from pixiu_cli.market.names.table import HOMOPHONE, Holder, NameTable, names_from


def forms(name: str) -> dict[str, str]:
    return {f.text: f.kind for f in generated_forms(name)}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("陕西煤业", {"陕煤": INITIALS}),
        ("华鲁恒升", {"华鲁": FIRST_TWO, "恒升": LAST_TWO, "华恒": INITIALS}),
        ("宁波银行", {"宁行": INITIALS, "宁银": INITIALS}),
        ("中国神华", {"神华": AFFIX}),
        ("盐湖股份", {"盐湖": AFFIX}),
        ("中国铝业", {"中铝": INITIALS}),
        ("特变电工", {"特变": FIRST_TWO, "特电": INITIALS}),
        ("山东黄金", {"山金": EACH_WORD, "山黄": INITIALS}),
        ("抚顺特钢", {"抚钢": EACH_WORD}),
    ],
)
def test_a_name_gives_its_everyday_forms(name, expected):
    assert expected.items() <= forms(name).items()


@pytest.mark.parametrize(
    ("name", "not_a_form", "why"),
    [
        ("洛阳钼业", "洛阳", "a city: an everyday word"),
        ("宁德时代", "时代", "an everyday word"),
        ("兖矿能源", "能源", "an industry word many listed names end in"),
        ("北京银行", "北京", "a city: more frequent than any first part people call a company"),
        ("南京银行", "银行", "an industry word"),
        ("上港集团", "上集", "集团 is an affix: no initials across it"),
        ("中国神华", "中国", "an everyday word"),
        ("成都银行", "成行", "an everyday word (the trip takes place)"),
        ("陕西煤业", "陕业", "业 ends hundreds of listed names: it tells nothing of the company"),
        ("兴业证券", "兴券", "券 ends dozens of listed names (证券)"),
        ("西安旅游", "西游", "an everyday word (the novel, a trip west)"),
        ("四川黄金", "四金", "四川金顶's first-characters abbreviation: another stock"),
    ],
)
def test_everyday_and_industry_words_are_no_forms(name, not_a_form, why):
    assert not_a_form not in forms(name), why


def test_pinyin_forms_take_every_reading_and_no_english_word():
    latin = {f.text: f.kind for f in latin_forms("宁波银行")}
    assert latin["nbyh"] == latin["nbyx"] == PINYIN_INITIALS  # 行: hang and xing
    assert latin["ningboyinhang"] == PINYIN
    assert {f.text for f in latin_forms("陕西煤业")} == {"shanximeiye", "sxmy"}
    assert not [f for f in latin_forms("茅台") if len(f.text) < 3]  # mt: too many things
    spelled = {f.text for f in latin_forms("安宁德")}
    assert "anningde" in spelled and "and" not in spelled  # its initials are an English word


HOLDERS = (Holder("603993", "洛阳钼业", ()), Holder("600426", "华鲁恒升", ()), Holder("601009", "南京银行", ()))


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(names_from(HOLDERS, (), ()), sounds=True)


def found(table: NameTable, text: str) -> list[tuple[str, str | None, str]]:
    return [(text[m.start : m.end], m.name.symbol, m.name.form) for m in table.matches(text)]


def test_the_table_matches_own_forms_with_their_kind(table):
    assert found(table, "洛钼负债率多少") == [("洛钼", "603993", INITIALS)]
    assert found(table, "帮我看下hlhs") == [("hlhs", "600426", PINYIN_INITIALS)]
    assert found(table, "NJYH呢".lower()) == [("njyh", "601009", PINYIN_INITIALS)]


def test_pinyin_is_a_whole_token_only(table):
    assert found(table, "xhlhsx") == []
    assert found(table, "hlhs2026") == [("hlhs", "600426", PINYIN_INITIALS)]


def test_an_ime_typo_of_a_whole_name_beats_the_half_typed_right(table):
    assert found(table, "落阳钼业跌了") == [("落阳钼业", "603993", HOMOPHONE)]
    assert found(table, "华路恒升最近怎么样") == [("华路恒升", "600426", HOMOPHONE)]


def test_two_typos_of_a_two_syllable_form_are_another_word(table):
    assert found(table, "滑路今天") == []  # 华鲁 read as hua lu, both characters other


def test_forms_of_a_stock_nobody_holds_are_not_generated():
    market = NameTable(names_from((), (), ()), sounds=True)
    assert found(market, "洛钼负债率多少") == [] and found(market, "lymy") == []


@pytest.mark.parametrize(
    ("text", "symbols"),
    [
        ("洛钼负债率多少", ["603993"]),  # no investing word the lists know: recall first
        ("华路有没有新公告", ["600426"]),  # a two-syllable typo with an investing word
        ("华路上堵车了", []),  # the same typo with nothing about investing
        ("华路的现金流", ["600426"]),  # a question about a company's fundamentals
        ("南京因行的分红", ["601009"]),
        ("下周去洛阳旅游", []),
        ("洛钼和招商银行二选一", ["603993", "600036"]),
    ],
)
def test_own_forms_are_judged_recall_first_through_the_vetoes(table, text, symbols):
    assert select(text, table).symbols == symbols


def test_two_own_stocks_named_together_are_both_taken():
    # 长城 is too common a word to be taken alone without investing words; beside 海天 (a
    # sauce too) both are stocks
    holders = (Holder("601633", "长城汽车", ("长城",)), Holder("603288", "海天味业", ("海天",)))
    table = NameTable(names_from(holders, (), ()), sounds=True)
    assert select("长城二选一", table).symbols == []
    assert select("长城和海天二选一", table).symbols == ["601633", "603288"]
    ningde = NameTable(names_from((Holder("300750", "宁德时代", ("宁德",)), holders[1]), (), ()), sounds=True)
    assert select("宁德还天天跌", ningde).symbols == ["300750"]  # 还天 sounds like 海天 but cuts 天天
    assert select("下周去宁德出差，带点海天酱油", ningde).symbols == []  # vetoed, not wanting evidence


def test_a_form_inside_a_longer_word_is_not_taken_by_a_pair():
    holders = (Holder("600487", "亨通光电", ()), Holder("600522", "中天科技", ()))
    table = NameTable(names_from(holders, (), ()), sounds=True)
    assert select("亨通和中天换一个", table).symbols == ["600487", "600522"]
    assert select("祝你万事亨通，事业如日中天", table).symbols == []


OWN = (
    Holder("300750", "宁德时代", ()),
    Holder("600111", "北方稀土", ()),
    Holder("600522", "中天科技", ()),
    Holder("601333", "广深铁路", ()),
    Holder("601633", "长城汽车", ("长城",)),
    Holder("600547", "山东黄金", ()),
    Holder("002396", "星网锐捷", ("万能",)),
)


@pytest.fixture(scope="module")
def own() -> NameTable:
    return NameTable(names_from(OWN, (), ()), sounds=True)


def judged(table: NameTable, text: str) -> list[tuple[str, bool, str]]:
    return [(m.text, m.accepted, m.why) for m in select(text, table).mentions]


@pytest.mark.parametrize(
    ("text", "symbols"),
    [
        ("宁德的订单多不多", ["300750"]),  # an everyday word (the city), no investing word: recall first
        ("中天这两天咋回事", ["600522"]),
        ("山金有没有减持公告", ["600547"]),  # 山东黄金 by one character of each word
        ("山金咋样了", ["600547"]),
        ("宁德那边下暴雨了", []),  # the city's weather
        ("周末去宁德玩两天", []),
        ("他的事业如日中天", []),  # inside a longer word the dictionary knows, however rare
        ("广深高速堵不堵", []),  # the road, not the railway company
        ("稀土是什么东西", []),  # the word's meaning
        ("稀土储量中国第一吗", []),  # a name's last two characters: the business, not the company
        ("稀土的产量配额涨了", ["600111"]),  # ... with investing words it is the stock
        ("长城真壮观", []),  # a name the user gave that is a very common word: needs evidence
        ("长城最近涨了", ["601633"]),
        ("这个工具是万能的", []),  # on forms.toml's list of everyday senses
        ("万能和长城二选一", ["002396", "601633"]),  # ... kept in a pair all the same
    ],
)
def test_every_own_form_is_the_stock_unless_a_veto_says_otherwise(own, text, symbols):
    assert select(text, own).symbols == symbols


def test_explain_says_why_an_everyday_own_form_is_taken_or_held_back(own):
    [(_, taken, why)] = judged(own, "宁德的产能多不多")
    assert taken and "日常用语" in why and "没有日常用法的迹象" in why
    [(_, taken, why)] = judged(own, "宁德那边下暴雨了")
    assert not taken and "暴雨" in why and "地方" in why
    [(_, taken, why)] = judged(own, "他的事业如日中天")
    assert not taken and "如日中天" in why
    [(_, taken, why)] = judged(own, "稀土储量中国第一吗")
    assert not taken and "后两字" in why
    [(_, taken, why)] = judged(own, "这个工具是万能的")
    assert not taken and "形容词" in why
    [(_, taken, why)] = judged(own, "广深高速堵不堵")
    assert not taken and "堵不堵" in why


def test_the_each_word_form_names_its_kind():
    table = NameTable(names_from((Holder("600547", "山东黄金", ()),), (), ()), sounds=True)
    assert found(table, "山金咋样了") == [("山金", "600547", EACH_WORD)]


def test_the_users_cost_price_is_clear_evidence_for_a_product_named_form():
    table = NameTable(names_from((Holder("600059", "古越龙山", ()),), (), ()), sounds=True)
    assert select("龙山成本价多少", table).symbols == ["600059"]  # the user's position
    assert select("龙山的持仓成本多少", table).symbols == ["600059"]
    assert select("龙山的黄酒过年喝正好", table).symbols == []  # the product


@pytest.mark.parametrize(
    ("name", "bare", "first_two"), [("盛科通信-u", "盛科通信", "盛科"), ("云天励飞-u", "云天励飞", "云天")]
)
def test_a_share_class_mark_is_no_part_of_a_names_forms(name, bare, first_two):
    found = forms(name)
    assert found[bare] == AFFIX and found[first_two] == FIRST_TWO
    assert not any("-" in form for form in found)


@pytest.mark.parametrize(
    ("name", "form", "kind"),
    [
        ("漳州发展", "漳发", INITIALS),  # 发展 is a word of the name, not the kind of company
        ("北部湾港", "北部湾", AFFIX),  # the port left out, as people say it
    ],
)
def test_a_names_own_words_give_its_abbreviation(name, form, kind):
    assert forms(name)[form] == kind
    assert "上集" not in forms("上港集团")  # 集团 says only what kind of company it is


def test_a_typo_never_takes_the_place_of_a_name_typed_right():
    holders = (Holder("002724", "海洋王", ()), Holder("002990", "盛视科技", ()), Holder("002518", "科士达", ()))
    table = NameTable(names_from(holders, (), ()), sounds=True)
    found = select("海洋王要不要换成科士达", table)
    assert found.symbols == ["002724", "002518"]  # 成科 sounds like 盛科 but 科士达 is typed right
    assert "成科" not in {m.text for m in found.mentions}
