"""Mechanisms an outsider's tune sets found missing, as a user meets them in `pixiu context`:
a bare 比 or a swap compares two names, names side by side in a choice are compared, the
market's unique first two characters (隆鑫 of 隆鑫通用) name a stock in a comparison, a homophone
typo compared with another stock is the stock; a question about trades keeps the told trades in
their own section; the class a question asks about outlasts the profiles under the budget;
colloquial periods move the trades' window; everyday senses of devices and schools; chat
initials that are an own stock's initials need investing words; a bank's first character
with 行 is its form."""

from __future__ import annotations

import json

import pytest

from tests.helpers import block_of, lazy_homes, mention_of, pixiu_in_process_ok, section_text, targets_of
from tests.helpers import explained as explain

ACCOUNTS = {
    "driver": ("o7t1_driver.json", "2026-12-02T20:30:00+08:00"),
    "teacher": ("o7t1_teacher.json", "2026-12-02T20:30:00+08:00"),
    "accountant": ("o7t1_accountant.json", "2026-12-02T20:30:00+08:00"),
    "veteran": ("o7t3_veteran.json", "2026-12-03T10:15:00+08:00"),
    "clerk": ("o7t3_clerk.json", "2026-12-03T10:15:00+08:00"),
    "railway": ("o7t4_railway_retiree.json", "2026-12-07T09:40:00+08:00"),
    "vendor": ("o7t4_vendor_account.json", "2026-12-07T09:40:00+08:00"),
    "farmer": ("o7t6_pig_farmer.json", "2026-12-01T12:00:00+08:00"),
    "police": ("o7t6_retired_police.json", "2026-12-01T12:00:00+08:00"),
    "yoga": ("o7t9_yoga_teacher.json", "2026-12-05T09:20:00+08:00"),
    "accountant_small": ("o7t11_t11_kuaiji.json", "2026-11-23T20:30:00+08:00"),
    "guard": ("o7t11_t11_baoan.json", "2026-11-23T20:30:00+08:00"),
    "dental": ("o7t13_nurse.json", "2026-12-10T20:30:00+08:00"),
    "seller": ("o7t14_live_seller.json", "2026-11-20T09:40:00+08:00"),
    "doctor": ("o7t16_village_doctor.json", "2026-12-11T15:30:00+08:00"),
    "tailor": ("o7t18_tailor.json", "2026-12-01T20:30:00+08:00"),
    "warehouse": ("o7t21_cangguan.json", "2026-12-04T20:30:00+08:00"),
    "teller": ("o7t20_teller_lin.json", "2026-11-17T20:30:00+08:00"),
    "hairdresser": ("o7t2_hairdresser.json", "2026-11-26T10:15:00+08:00"),
    "mother": ("o7t6_young_mother.json", "2026-12-01T12:00:00+08:00"),
    "pharmacy": ("o7t8_pharmacy_zhou.json", "2026-11-24T14:30:00+08:00"),
    "hotel": ("o7t12_lin_hotel.json", "2026-12-02T09:20:00+08:00"),
    "same": ("account_feng.json", "2026-12-04T20:00:00+08:00"),
    "tea": ("o7t14_tea_farmer.json", "2026-11-20T09:40:00+08:00"),
    "prof": ("o7t15_prof_t15.json", "2026-12-03T20:30:00+08:00"),
}


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    """A home per account of `ACCOUNTS`, imported once for the module on first use."""
    return lazy_homes(tmp_path_factory, ACCOUNTS)


def keys(info: dict) -> set[str]:
    return {s["key"] for s in info["sections"]}


@pytest.mark.parametrize(
    ("text", "symbols"),
    [
        ("春风 比 隆鑫 咋样", ["603129", "603766"]),  # a bare 比; 隆鑫 the first two of 隆鑫通用
        ("春峰换成伯特利划算不", ["603129", "603596"]),  # a homophone typo in a swap
        ("继锋二选一 继锋还是新泉", ["603997", "603179"]),
    ],
)
def test_two_names_compared_are_both_stocks(homes, text, symbols):
    driver = homes("driver")
    info = explain(driver, text)
    assert info["selection"]["symbols"] == symbols
    assert {f"symbol:{s}" for s in symbols} <= keys(info)


def test_the_markets_first_two_characters_count_only_in_a_comparison(homes):
    driver = homes("driver")
    compared = mention_of(explain(driver, "春风 比 隆鑫 咋样"), "隆鑫")
    assert compared["accepted"] and compared["form"] == "前两字" and compared["of"] == "隆鑫通用"
    alone = mention_of(explain(driver, "隆鑫那边下雨了"), "隆鑫")
    assert not alone["accepted"]


def test_a_question_about_a_trade_keeps_it_in_the_decisions_section(homes):
    teacher = homes("teacher")
    block = block_of(teacher, "卖丸美那笔印花税多少")
    decisions = section_text(block, "近期操作决策")
    assert "丸美冲高减半仓锁定利润" in decisions
    assert block.count("丸美冲高减半仓锁定利润") == 1  # not again in the stock's section


def test_a_named_stocks_fee_asked_as_a_sum_brings_its_trades_of_any_age(homes):
    teacher = homes("teacher")
    block = block_of(teacher, "金牌家居来回一趟佣金多少")
    assert "春节前买金牌家居" in block and "国庆前清仓金牌家居" in block


def test_the_report_asked_for_outlasts_the_profiles_on_a_large_account(homes):
    accountant = homes("accountant")
    info = explain(accountant, "国庆前后组合对比那份报告再给我看看")
    assert "reports" in keys(info)
    assert "reports" not in info["omitted"]
    assert "节后半导体反弹最快" in block_of(accountant, "国庆前后组合对比那份报告再给我看看")


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("这俩礼拜买了啥", "2026-11-18", "2026-12-02"),
        ("月中以来的交易", "2026-11-11", "2026-12-02"),
        ("上个季度的交易", "2026-07-01", "2026-09-30"),
        ("最近十来天的操作", "2026-11-20", "2026-12-02"),
        ("前阵子动过哪些票", "2026-11-02", "2026-12-02"),
        ("上上个月的交易", "2026-10-01", "2026-10-31"),
        ("前几天买的", "2026-11-25", "2026-12-02"),
        ("大前天卖的", "2026-11-29", "2026-11-29"),
        ("前两周的交易", "2026-11-18", "2026-12-02"),
        ("周一那笔", "2026-11-30", "2026-11-30"),  # the most recent Monday
        ("11号买的", "2026-11-11", "2026-11-11"),  # December's 11th has not come
        ("夏天买的", "2026-06-01", "2026-08-31"),
        ("去年这个时候的交易", "2025-11-17", "2025-12-17"),
        ("九月份以后的交易", "2026-09-01", "2026-12-02"),
        ("10.8号以后买的", "2026-10-08", "2026-12-02"),
        ("今年春节前卖了啥", "2026-02-02", "2026-02-15"),  # a period inside another narrows it
        ("去年国庆前的操作", "2025-09-17", "2025-09-30"),  # last year's closure
    ],
)
def test_colloquial_periods_move_the_trades_window(homes, text, start, end):
    driver = homes("driver")
    windows = explain(driver, text)["selection"]["windows"]
    moved = next(w for w in windows if w["section"] == "decisions")
    assert (moved["start"], moved["end"]) == (start, end)


@pytest.mark.parametrize(
    "text", ["电脑屏幕上有个蓝色光标一直闪怎么办", "我孙子考上南大了 光电专业好不好", "我想稳健一点 医疗保险怎么买"]
)
def test_a_device_a_school_or_insurance_is_daily_life(homes, text):
    env = homes("hairdresser")
    info = explain(env, text)
    assert info["selection"]["symbols"] == []


def test_chat_initials_that_are_an_own_stocks_initials_need_investing_words(homes):
    veteran = homes("veteran")
    assert explain(veteran, "kdl负债率是不是上去了")["selection"]["symbols"] == ["002850"]
    assert explain(veteran, "kdl")["selection"]["symbols"] == []


def test_a_banks_first_character_with_hang_is_its_form(homes):
    clerk = homes("clerk")
    info = explain(clerk, "青银和张行二选一留哪个")
    assert info["selection"]["symbols"] == ["002948", "002839"]
    assert mention_of(info, "张行")["form"] == "每词一字"


@pytest.mark.parametrize(
    ("home", "text", "name"),
    [
        ("railway", "给孙女买的海伦钢琴到货了", "海伦钢琴"),  # bought, arrived: the piano
        ("railway", "浴室装了个奥普浴霸 冬天洗澡不冷了", "奥普"),  # the product after the name
        ("farmer", "今天买了二十袋史丹利复合肥 又涨价了", "史丹利"),  # counted in bags
        ("farmer", "昨晚电视上看到个巨星 唱得真好", "巨星"),  # a star on television
        ("vendor", "你是火星人吗 这都不知道", "火星人"),  # a person described by the name
        ("vendor", "张仲景的伤寒论真难懂", "仲景"),  # inside a person's name
    ],
)
def test_a_name_in_daily_life_is_no_stock(homes, home, text, name):
    info = explain(homes(home), text)
    assert info["selection"]["symbols"] == []
    assert not mention_of(info, name)["accepted"]


def test_the_same_names_asked_as_stocks_stay_stocks(homes):
    railway = homes("railway")
    farmer = homes("farmer")
    assert explain(railway, "海伦钢琴最近怎么样")["selection"]["symbols"] == ["300329"]
    assert explain(farmer, "史丹利的股价跌了")["selection"]["symbols"] == ["002588"]


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("vendor", "摊位费涨到一千二了 扛不住"),  # a stall's rent, not the account
        ("police", "老战友把退休金都拿去炒股了 满仓"),  # a comrade's money
    ],
)
def test_somebody_elses_or_daily_money_is_not_the_account(homes, home, text):
    info = explain(homes(home), text)
    assert info["selection"]["intent"] == "general"
    assert "portfolio_profiles" not in keys(info)


def test_money_to_buy_stocks_with_is_the_account(homes):
    assert "account" in targets_of(homes("vendor"), "卡里还有多少能买股的钱")


def test_a_reminder_asked_with_a_measure_word_reads_the_alerts(homes):
    env = homes("mother")
    info = explain(env, "节后第一天是不是有个提醒")
    assert "alerts" in info["selection"]["targets"]
    assert "梦百合节后第一天跌破12元" in block_of(env, "节后第一天是不是有个提醒")


def test_a_fee_tallied_over_a_named_period_brings_its_trades(homes):
    police = homes("police")
    block = block_of(police, "过户费上个月多少")
    assert "月初券商冲高，减一创" in block


def test_a_shipped_nickname_names_the_stock_in_a_comparison(homes):
    police = homes("police")
    assert explain(police, "苏农和一创哪个股息高")["selection"]["symbols"] == ["603323", "002797"]


def test_advising_a_friend_is_not_the_users_own_account(homes):
    yoga = homes("yoga")
    info = explain(yoga, "闺蜜满仓医药股 我该劝她吗")
    assert "portfolio_profiles" not in keys(info)
    assert explain(yoga, "我该减仓吗")["selection"]["intent"] == "portfolio_review"


@pytest.mark.parametrize("text", ["还能腾出多少钱来", "总共投了多少 现在值多少", "钱都用上了没 还闲着多少"])
def test_money_freed_invested_or_idle_is_the_account(homes, text):
    yoga = homes("yoga")
    info = explain(yoga, text)
    assert info["selection"]["intent"] == "portfolio_review"
    assert "account" in info["selection"]["targets"]


@pytest.mark.slow
def test_an_english_follow_up_on_a_market_figure_keeps_the_stock(homes):
    env = homes("pharmacy")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "药易购跌了好多"))
    conversation = str(asked["conversation_id"])
    info = explain(env, "its volume today?", "--conversation", conversation)
    assert "symbol:300937" in keys(info)
    assert "symbol:300937" not in keys(explain(env, "its raining today", "--conversation", conversation))


def test_a_question_about_a_stocks_plan_keeps_it_in_the_notes_section(homes):
    accountant_small = homes("accountant_small")
    info = explain(accountant_small, "两个月前给乔治白定的计划是啥")
    assert "notes" in keys(info)
    block = block_of(accountant_small, "两个月前给乔治白定的计划是啥")
    notes = section_text(block, "用户计划 / 观点")
    assert "乔治白拿到年报分红登记日再决定去留" in notes
    assert block.count("乔治白拿到年报分红登记日再决定去留") == 1


def test_a_stored_document_named_by_that_one_is_a_report(homes):
    assert "brief" in targets_of(homes("guard"), "春节前那份持仓快照呢")


def test_a_brands_latin_letters_before_its_name_leave_the_name_as_a_form(homes):
    guard = homes("guard")
    info = explain(guard, "智家和致欧二选一 留哪个")
    assert "symbol:002668" in keys(info)  # TCL智家
    assert mention_of(info, "智家")["form"] == "去掉前后缀"


def test_adding_a_stock_to_a_comparison_keeps_the_compared_ones(homes):
    env = homes("hotel")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "曲美家居和梦天家居哪个现金流好"))
    info = explain(env, "再加个好莱客", "--conversation", str(asked["conversation_id"]))
    assert {"symbol:603818", "symbol:603216", "symbol:603898"} <= keys(info)
    assert info["selection"]["operation"]["name"] == "add"


def test_another_names_characters_are_no_daily_life_word(homes):
    env = homes("hotel")
    info = explain(env, "乔治白跟南山智尚哪个做西服强")  # 治 of 乔治白 is no medicine
    assert info["selection"]["symbols"] == ["002687", "300918"]


@pytest.mark.parametrize("text", ["片仔癀也看看", "同样问下片仔癀"])
def test_the_same_question_of_another_stock_keeps_the_topic(homes, text):
    env = homes("same")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "泸州老窖的市盈率多少"))
    info = explain(env, text, "--conversation", str(asked["conversation_id"]))
    assert info["selection"]["operation"]["name"] == "same_topic"


@pytest.mark.parametrize(
    ("text", "name"), [("安利你们一个冲牙器 科室都在用", "安利"), ("儿子要扫地机器人 两千左右哪款好", "机器人")]
)
def test_slang_and_a_household_gadget_are_no_stock(homes, text, name):
    dental = homes("dental")
    info = explain(dental, text)
    assert info["selection"]["symbols"] == []


def test_cantonese_particles_read_as_mandarin(homes):
    seller = homes("seller")
    assert "十月份青木科技清仓" in block_of(seller, "十月份清咗边只")


def test_a_typo_of_an_account_word_is_read_as_the_word(homes):
    seller = homes("seller")
    assert explain(seller, "资金利用绿高不高")["selection"]["intent"] == "portfolio_review"


def test_a_compared_short_forms_word_is_no_daily_life(homes):
    env = homes("tea")
    assert explain(env, "彩虹换成太力划不划算")["selection"]["symbols"] == ["003023", "301595"]


@pytest.mark.slow
def test_the_two_just_discussed_joined_to_a_third(homes):
    env = homes("prof")
    first = json.loads(pixiu_in_process_ok(env, "ask", "--json", "国检集团分红怎么样"))
    conversation = str(first["conversation_id"])
    pixiu_in_process_ok(env, "ask", "--json", "--conversation", conversation, "上海建科呢")
    info = explain(env, "两个一起跟建研院比", "--conversation", conversation)
    assert {"symbol:603060", "symbol:603153", "symbol:603183"} <= keys(info)
    assert explain(env, "成长和红利的比例现在多少")["selection"]["intent"] == "portfolio_review"


def test_the_last_few_trades_are_the_newest_whatever_their_week(homes):
    info = explain(homes("doctor"), "佣金万几 帮我算下最近几笔")
    moved = next(w for w in info["selection"]["windows"] if w["section"] == "decisions")
    assert (moved["start"], moved["end"]) == ("2025-12-11", "2026-12-11")
    block = block_of(homes("doctor"), "佣金万几 帮我算下最近几笔")
    assert "五洲月初加仓" in block and "健尔康减仓" in block


def test_suits_counted_in_sets_are_no_stuck_position(homes):
    info = explain(homes("tailor"), "云中马的老板来店里定了两套西装")
    assert info["selection"]["symbols"] == []


def test_a_short_listed_name_followed_by_investing_words_is_the_stock(homes):
    assert explain(homes("warehouse"), "大悦城这只股票分红怎么样")["selection"]["symbols"] == ["000031"]


def test_what_a_price_drives_is_no_meal(homes):
    info = explain(homes("teller"), "湖南白银跟顺博合金哪个更吃金属价格")  # 吃 as depends on
    assert info["selection"]["symbols"] == ["002716", "002996"]
    assert "trades" in targets_of(homes("teller"), "春节前那波红包行情我买了啥")


def test_a_market_short_form_never_takes_a_longer_names_place(homes):
    """和晶 of 和晶科技 starts one character before 晶澳科技: the short form, a stock only in a
    comparison, gives way to the full name it overlaps."""
    info = explain(homes("teller"), "太阳纸业和晶澳科技哪个跌得多")
    assert info["selection"]["symbols"] == ["002078", "002459"]
