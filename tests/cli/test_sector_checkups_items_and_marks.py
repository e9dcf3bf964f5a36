"""Mechanisms a sixth round of outsiders' sets found missing, as a user meets them in `pixiu
context`: one kind of stock weighing too much, a check-up of the whole account and a sort by
sector are portfolio questions; a trade act with its result (卖光的那只), 调仓 and a bare 费 read
the trades, a kind of reminder (除息提醒) the alerts, money of daily life that names a report
(红包简报) its subject; 腊月 and 刚过 are periods; a share-class mark (-U) leaves a name's forms;
a conjunction starts no market form; a degree word makes a listed phrase (更值得买) a phrase;
a demonstrative with a measure word, a vehicle, a medicine's form or a person's name around a
name is daily life; a pronoun with an attribute compared (its dividend yield vs X) adds the
stock; the cash asked after a stock is the account's."""

from __future__ import annotations

import json

import pytest

from tests.helpers import block_of, lazy_homes, mention_of, pixiu_in_process_ok, section_text
from tests.helpers import explained as explain

ACCOUNTS = {
    "officer": ("o7t22_army_retiree.json", "2026-12-09T20:30:00+08:00"),
    "coder": ("o7t22_delivery_coder.json", "2026-12-09T20:30:00+08:00"),
    "tea": ("o7t22_tea_shop.json", "2026-12-09T20:30:00+08:00"),
    "nurses": ("o7t23_nurse_couple.json", "2026-12-10T12:00:00+08:00"),
    "trucker": ("o7t23_truck_driver.json", "2026-12-10T12:00:00+08:00"),
    "noodles": ("o7t24_noodle_shop.json", "2026-12-04T20:30:00+08:00"),
    "kindergarten": ("o7t24_kg_teacher.json", "2026-12-04T20:30:00+08:00"),
    "professor": ("o7t24_retired_prof.json", "2026-12-04T20:30:00+08:00"),
    "student": ("o7t25_t25_student.json", "2026-12-08T09:20:00+08:00"),
    "pharmacists": ("o7t25_t25_pharmacists.json", "2026-12-08T09:20:00+08:00"),
    "streamer": ("o7t26_streamer_xiaomei.json", "2026-12-10T20:30:00+08:00"),
    "banker": ("o7t26_banker_laoqian.json", "2026-12-10T20:30:00+08:00"),
    "guard": ("o7t27_guard_night.json", "2026-12-04T22:30:00+08:00"),
    "photographer": ("o7t27_photog_wedding.json", "2026-12-04T22:30:00+08:00"),
    "engineer": ("o7t27_engineer_large.json", "2026-12-04T22:30:00+08:00"),
    "cook": ("o7t28_cook_sichuan.json", "2026-12-11T12:10:00+08:00"),
    "farmers": ("o7t28_farmer_couple.json", "2026-12-11T12:10:00+08:00"),
    "opera": ("o7t29_opera.json", "2026-12-07T20:30:00+08:00"),
    "coach": ("o7t30_gym_coach.json", "2026-12-09T10:05:00+08:00"),
    "dealer": ("o7t30_car_dealer.json", "2026-12-09T10:05:00+08:00"),
    "postman": ("o7t30_postman.json", "2026-12-09T10:05:00+08:00"),
    "customs": ("o7t31_customs_retiree.json", "2026-12-14T09:20:00+08:00"),
    "salon": ("o7t31_nail_salon.json", "2026-12-14T09:20:00+08:00"),
    "agent": ("o7t32_agent_lin.json", "2026-12-03T14:35:00+08:00"),
    "physics": ("o7t32_teacher_wang.json", "2026-12-03T15:20:00+08:00"),
    "director": ("o7t33_retired_director.json", "2026-12-12T20:30:00+08:00"),
    "kiwi": ("o7t33_kiwi_farmer.json", "2026-12-12T20:30:00+08:00"),
    "butcher": ("o7t34_butcher.json", "2026-12-08T20:30:00+08:00"),
    "novelist": ("o7t34_novelist.json", "2026-12-08T20:30:00+08:00"),
    "waterworks": ("o7t34_engineer.json", "2026-12-08T20:30:00+08:00"),
    "pilates": ("o7t35_pilates.json", "2026-12-11T09:20:00+08:00"),
    "pigs": ("o7t36_pig_farmer.json", "2026-12-15T12:00:00+08:00"),
    "tellers": ("o7t36_retired_tellers.json", "2026-12-15T12:00:00+08:00"),
    "principal": ("o7t37_principal.json", "2026-12-09T21:30:00+08:00"),
    "surgeon": ("o7t37_surgeon.json", "2026-12-09T21:30:00+08:00"),
    "tattoo": ("o7t38_tattoo_artist.json", "2026-12-04T12:10:00+08:00"),
    "captain": ("o7t38_ship_captain.json", "2026-12-04T12:10:00+08:00"),
    "wedding": ("o7t39_hunche.json", "2026-12-16T09:35:00+08:00"),
    "headmaster": ("o7t39_xiaozhang.json", "2026-12-16T09:35:00+08:00"),
    "comedian": ("o7t40_xiju.json", "2026-12-10T14:30:00+08:00"),
    "controller": ("o7t40_kongguan.json", "2026-12-10T14:30:00+08:00"),
    "beekeeper": ("o7t41_beekeeper.json", "2026-12-07T12:10:00+08:00"),
    "fishmonger": ("o7t42_yu_fishmonger.json", "2026-12-13T20:30:00+08:00"),
    "pe": ("o7t42_pe_teacher.json", "2026-12-13T20:30:00+08:00"),
    "noodle_factory": ("o7t42_noodle_couple.json", "2026-12-13T20:30:00+08:00"),
    "retired_pharmacist": ("o7t44_pharmacist.json", "2026-12-11T20:30:00+08:00"),
    "stall": ("o7t44_stall.json", "2026-12-11T20:30:00+08:00"),
    "carpenter": ("o7t45_carpenter_zhou.json", "2026-12-14T09:05:00+08:00"),
    "radio": ("o7t45_radio_lin.json", "2026-12-14T09:05:00+08:00"),
    "miner": ("o7t45_coalminer_zhao.json", "2026-12-14T09:05:00+08:00"),
}


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    """A home per account of `ACCOUNTS`, imported once for the module on first use."""
    return lazy_homes(tmp_path_factory, ACCOUNTS)


def selection(env: dict[str, str], text: str, *options: str) -> dict:
    return explain(env, text, *options)["selection"]


@pytest.mark.parametrize(
    "text",
    [
        "医药股占得是不是太多了",  # one kind of stock too heavy
        "我感觉军工偏重了",
        "帮忙把仓位按行业归归类",  # a sort by sector
        "年底了 给持仓做个体检",  # a check-up of the whole account
        "诊断一下所有股票",
        "现在是亏的多还是赚的多",  # which side has more
        "券商比重是不是过高了",  # a sector's weight: not the brokers' positions
        "医药股占比是不是超了",
        "帮我们老两口把持仓都过一遍",  # the user's stocks gone through
        "几只挣钱几只赔钱",  # dialect of 赚钱 / 亏钱
    ],
)
def test_the_whole_account_asked_in_new_ways_is_a_portfolio_question(homes, text):
    info = explain(homes("officer"), text)
    assert info["selection"]["intent"] == "portfolio_review"
    assert "holdings" in {s["key"] for s in info["sections"]}


@pytest.mark.parametrize("text", ["箱子是不是太重了", "下周去医院体检", "这些衣服按颜色分一下"])
def test_the_same_words_about_things_of_daily_life_are_not(homes, text):
    assert selection(homes("officer"), text)["intent"] == "general"


def test_a_trade_act_with_its_result_reads_the_trades_of_the_period(homes):
    block = block_of(homes("nurses"), "国庆前清光的是哪只")
    assert "海翔药业国庆前卖光" in section_text(block, "近期操作决策")


def test_moving_money_between_stocks_reads_the_trades_around_a_holiday(homes):
    block = block_of(homes("officer"), "国庆前后都调过哪些仓")
    assert "国庆前清仓中远海发" in block and "节后加仓长城军工" in block


def test_a_bare_fee_and_an_english_fee_word_read_the_trades(homes):
    coder = homes("coder")
    assert "trades" in selection(coder, "上个月卖天风交了多少费")["targets"]
    assert "trades" in selection(coder, "这个月stamp duty一共多少")["targets"]
    assert "双十一后减天风" in block_of(coder, "最近一个月commission加起来多少")


def test_a_kind_of_reminder_reads_the_alerts_of_the_period(homes):
    nurses = homes("nurses")
    assert "alerts" in selection(nurses, "有啥除权提醒没")["targets"]
    assert "电投能源国庆前除息提醒" in block_of(nurses, "国庆前后有没有除息提醒")


def test_money_of_daily_life_that_names_a_report_is_its_subject(homes):
    nurses = homes("nurses")
    assert "红包简报" in block_of(nurses, "春节前那份红包简报写了啥")
    assert selection(nurses, "春节的红包发多少合适")["targets"] == []


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("腊月里买了啥", "2026-01-01", "2026-02-28"),  # the lunar month as the months it falls in
        ("正月里卖了啥", "2026-02-01", "2026-03-31"),
    ],
)
def test_lunar_months_move_the_trades_window(homes, text, start, end):
    windows = selection(homes("officer"), text)["windows"]
    moved = next(w for w in windows if w["section"] == "decisions")
    assert (moved["start"], moved["end"]) == (start, end)


def test_just_after_a_holiday_is_its_after_side(homes):
    windows = selection(homes("officer"), "国庆刚过那阵买了啥")["windows"]
    moved = next(w for w in windows if w["section"] == "decisions")
    assert moved["start"] == "2026-10-08"


def test_a_share_class_mark_leaves_the_names_everyday_forms(homes):
    coder = homes("coder")
    info = selection(coder, "盛科最近有公告吗")
    assert info["symbols"] == ["688702"]
    assert mention_of({"selection": info}, "盛科")["of"] == "盛科通信-u"


def test_a_conjunction_starts_no_market_short_form(homes):
    info = selection(homes("nurses"), "九安和达安谁更稳")
    assert info["symbols"] == ["002432", "002030"]


def test_a_degree_word_makes_a_listed_phrase_a_phrase(homes):
    info = selection(homes("noodles"), "柯力传感跟汉桑科技 哪个最值得买")
    assert info["symbols"] == ["603662", "301491"]
    assert not mention_of({"selection": info}, "值得买")["accepted"]


def test_an_everyday_market_form_is_a_stock_only_in_a_comparison(homes):
    tea = homes("tea")
    assert "600383" in selection(tea, "万科和金地二选一")["symbols"]
    assert selection(tea, "金地那边新开了家超市")["symbols"] == []


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("tea", "我那台钱江摩托又打不着火了"),  # a demonstrative with a measure word
        ("trucker", "传化公路港的停车场又满了"),  # a place of the company
        ("nurses", "奇正的膏药贴着挺管用"),  # a medicine's form
        ("kindergarten", "今天分了金帝巧克力"),
        ("kindergarten", "新来的小朋友名叫雪峰"),  # a person's name
        ("coder", "千里之行始于足下 大家加油"),  # a set phrase in a cheer
    ],
)
def test_things_people_and_phrases_of_daily_life_are_no_stock(homes, home, text):
    info = selection(homes(home), text)
    assert info["symbols"] == []
    assert info["intent"] == "general"


def test_a_pronoun_with_an_attribute_compared_adds_the_stock(homes):
    env = homes("professor")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "中衡设计分红多少"))
    conversation = str(asked["conversation_id"])
    info = selection(env, "它的股息率比聚合顺高吗", "--conversation", conversation)
    assert set(info["symbols"]) == {"603017", "605166"}
    english = selection(env, "what about its dividend yield vs 聚合顺", "--conversation", conversation)
    assert set(english["symbols"]) == {"603017", "605166"}


def test_the_cash_asked_after_a_stock_is_the_accounts(homes):
    env = homes("tea")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "赛轮轮胎还能拿吗"))
    conversation = str(asked["conversation_id"])
    cash = selection(env, "我现金还有多少", "--conversation", conversation)
    assert cash["symbols"] == [] and "account" in cash["targets"]
    buying = selection(env, "钱还够再买一手吗", "--conversation", conversation)
    assert buying["symbols"] == ["601058"]


def test_money_taken_out_for_a_relative_is_the_users_account(homes):
    info = selection(homes("officer"), "能不能抽出五万给外孙交学费")
    assert info["intent"] == "portfolio_review" and "account" in info["targets"]
    assert selection(homes("officer"), "外孙的学费涨了")["intent"] == "general"


@pytest.mark.parametrize("text", ["钱都换成股票了吗 还剩多少没投", "卡里还有多少可以买的", "现在拢共多少钱了"])
def test_what_is_left_and_what_it_all_comes_to_are_the_accounts(homes, text):
    info = selection(homes("photographer"), text)
    assert "account" in info["targets"]


def test_a_bill_that_comes_to_a_sum_is_no_account(homes):
    assert "account" not in selection(homes("photographer"), "这几样菜一共多少钱")["targets"]


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("engineer", "电视剧里谢永强演得真好"),  # a surname before an own form: a person
        ("guard", "电驴换了块天能电池"),  # a purchase counted by 块
        ("photographer", "收了台老海鸥相机"),  # a purchase with 收, an age word
        ("pharmacists", "海鸥牌的钟还在走"),  # a brand
        ("streamer", "来包利群"),  # an order in a shop
    ],
)
def test_a_person_a_brand_or_an_order_is_no_stock(homes, home, text):
    assert selection(homes(home), text)["symbols"] == []


def test_a_word_that_ends_in_a_surname_makes_no_person(homes):
    assert selection(homes("engineer"), "感谢永强这两年的分红")["symbols"] == ["002489"]


def test_a_counted_pronoun_points_at_that_many_stocks_just_discussed(homes):
    env = homes("banker")
    conversation = None
    for text in ("三星医疗最近咋样", "节能风电呢", "海天精工呢"):
        options = ("--conversation", conversation) if conversation else ()
        asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", *options, text))
        conversation = str(asked["conversation_id"])
    info = selection(env, "这三只里哪只该先减", "--conversation", conversation)
    assert set(info["symbols"]) == {"601567", "601016", "601882"}


def test_the_others_after_two_stocks_is_the_rest_of_the_portfolio(homes):
    env = homes("streamer")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "维海德最近怎么样"))
    conversation = str(asked["conversation_id"])
    pixiu_in_process_ok(env, "ask", "--json", "--conversation", conversation, "奥尼呢")
    info = selection(env, "这俩以外的咋样", "--conversation", conversation)
    assert info["intent"] == "portfolio_review" and info["operation"]["name"] == "complement"


def test_a_review_of_a_period_is_found_after_the_period_ends(homes):
    assert "上半年组合回顾" in block_of(homes("banker"), "上半年的回顾说了啥")  # written on 07-01


def test_a_weekend_that_opens_a_closure_is_still_before_the_holiday(homes):
    assert "二月持仓体检" in block_of(homes("pharmacists"), "春节前那份体检报告")  # written on 02-14


def test_a_quick_take_is_a_report(homes):
    assert "长假后开盘速评" in block_of(homes("student"), "节后头一天那份速评")


def test_the_users_own_last_trades_and_fees_read_the_year(homes):
    student = homes("student")
    assert "用剩下的生活费买电科网安" in block_of(student, "我那几笔小单是不是亏在佣金上")
    assert "拿到一等奖学金第一笔" in block_of(student, "我付的佣金占收益多少")
    assert "trades" in selection(student, "上个月的手续废交了多少")["targets"]  # a typo of 手续费


@pytest.mark.parametrize(
    "text",
    [
        "我家股票哪只能长拿",  # 我家 is the user's
        "十几只股是不是多了",  # the count held, too many
        "股票占了多少 超没超一半",  # the position level
        "连股带钱一共多少",  # stocks and cash together
    ],
)
def test_the_whole_account_in_household_words_is_a_portfolio_question(homes, text):
    assert selection(homes("farmers"), text)["intent"] == "portfolio_review"


def test_a_parents_in_law_account_is_somebody_elses(homes):
    info = selection(homes("dealer"), "老丈人的账户亏了一半")
    assert info["intent"] == "general" and info["symbols"] == []


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("postman", "买了本广博的本子"),  # a purchase counted by 本, a product after the name
        ("farmers", "海南发展得真快"),  # a name that ends in a verb, used as one
        ("farmers", "歌华有线的收视费咋交"),  # a service's bill
        ("opera", "拉普拉斯是哪国人"),  # a person asked about
        ("coach", "女儿在背少年闰土"),  # somebody else's doings
    ],
)
def test_a_product_a_phrase_a_bill_a_person_or_a_relatives_doing_is_no_stock(homes, home, text):
    assert selection(homes(home), text)["symbols"] == []


def test_investing_words_keep_an_own_form_in_a_sentence_about_a_relative(homes):
    assert selection(homes("coach"), "女儿问闰土分红到账没")["symbols"] == ["002440"]


def test_a_companys_count_of_holders_is_no_holder(homes):
    info = selection(homes("postman"), "英威腾股东户数又少了")
    assert info["symbols"] == ["002334"] and info["intent"] != "general"


def test_a_difference_asked_between_two_names_compares_them(homes):
    assert selection(homes("postman"), "英威腾 跟 新时达 差多少")["symbols"] == ["002334", "002527"]


def test_what_came_of_a_periods_trade_reads_until_today(homes):
    windows = selection(homes("coach"), "春节前买的那只 后来咋处理的")["windows"]
    moved = next(w for w in windows if w["section"] == "decisions")
    assert moved["start"] == "2026-02-02" and moved["end"] == "2026-12-09"


@pytest.mark.parametrize(
    ("home", "text", "target"),
    [
        ("cook", "春节前那分复盘咋说的", "brief"),  # 那分 for 那份
        ("farmers", "咱俩上回商量的啥", "plans"),  # what was agreed at home
        ("cook", "今年交了不少手续费", "trades"),
    ],
)
def test_household_and_loose_words_read_their_class(homes, home, text, target):
    assert target in selection(homes(home), text)["targets"]


def test_three_compared_with_the_stock_before(homes):
    env = homes("opera")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "金盘科技还能拿吗"))
    info = selection(env, "和伟创、新风光三个比呢", "--conversation", str(asked["conversation_id"]))
    assert set(info["symbols"]) == {"688676", "688698", "688663"}


def test_a_typo_of_a_long_name_may_touch_a_word_by_one_character(homes):
    assert selection(homes("streamer"), "维海得出新品了吗")["symbols"] == ["301318"]


def test_a_named_stocks_older_news_on_the_figure_asked_is_shown(homes):
    dealer = homes("dealer")
    assert "鑫铂股份资产负债率升至62%" in block_of(dealer, "鑫铂 负债率62%了?")  # 33 days old
    assert "鑫铂股份资产负债率升至62%" not in block_of(dealer, "鑫铂最近咋样")  # past the news window


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("帮我把所有持仓过一遍 儿子打的字", "portfolio_review"),  # who types for the user
        ("有几只是赚的 老伴问的", "portfolio_review"),
        ("今年交易费用一共多少 老公想知道", "trade_review"),
    ],
)
def test_a_closing_note_of_who_asks_leaves_the_account_the_users(homes, text, intent):
    assert selection(homes("salon"), text)["intent"] == intent


def test_somebody_elses_holdings_stay_somebody_elses(homes):
    salon = homes("salon")
    assert selection(salon, "妹夫持仓全是银行股 这样配合理吗")["intent"] == "general"
    assert selection(salon, "我师傅持仓全是银行股 他稳不稳")["intent"] == "general"


def test_a_household_follow_up_on_the_whole_account_widens(homes):
    env = homes("customs")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "巨力索具今天涨停了"))
    info = selection(env, "整体仓位呢 老伴问", "--conversation", str(asked["conversation_id"]))
    assert info["intent"] == "portfolio_review"


def test_a_sale_asked_by_what_it_made_reads_the_trades_of_the_period(homes):
    assert "超研股份涨停打开就走" in block_of(homes("agent"), "上上周卖超研赚了多少")


def test_ranking_every_stock_is_a_portfolio_question(homes):
    assert selection(homes("physics"), "全部股票从强到弱排个序")["intent"] == "portfolio_review"


def test_money_stuck_in_the_market_is_the_accounts(homes):
    assert selection(homes("physics"), "钱是不是全套在里面了")["intent"] == "portfolio_review"


def test_a_customer_named_like_a_stock_is_a_person(homes):
    info = selection(homes("salon"), "老顾客安洁周六约了做指甲")
    assert info["symbols"] == []


def test_the_last_sessions_alerts_outlast_a_weekend(homes):
    block = block_of(homes("director"), "宇环数控涨停了 下周一咋办")  # Friday 10:30, asked Saturday night
    assert "宇环数控盘中涨停提醒" in section_text(block, "待办预警")


def test_a_farms_and_a_shops_money_is_daily_life(homes):
    kiwi = homes("kiwi")
    assert selection(kiwi, "化肥钱够不够")["intent"] == "general"
    assert "trades" in selection(kiwi, "今年总共交多少佣金了")["targets"]


def test_a_typo_that_is_a_common_word_is_the_stock_in_a_comparison(homes):
    assert selection(homes("butcher"), "世家跟闽铝选哪个")["symbols"] == ["002796", "002578"]


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("butcher", "下围棋开局下天元好不好"),  # a board game
        ("butcher", "卫生间地砖选亚光的还是亮面的"),  # floor tiles
        ("pilates", "正强哥约我周六吃饭"),  # a person with a kinship word
        ("pigs", "走皖通高速去合肥 过路费好多"),  # a road driven on
    ],
)
def test_games_tiles_people_and_roads_are_daily_life(homes, home, text):
    assert selection(homes(home), text)["symbols"] == []


def test_a_question_put_to_the_user_about_another_account_is_not_theirs(homes):
    info = selection(homes("waterworks"), "老同事账户里有二十只票 他问我要不要清掉一些")
    assert info["intent"] == "general"


@pytest.mark.parametrize(
    ("home", "text", "item"),
    [
        ("novelist", "上上周提醒我的是哪只", "上海亚虹盘中大跌7%提醒"),
        ("waterworks", "国庆前我在电缆股上干了啥", "国庆前卖通达股份"),
        ("waterworks", "十月份中晟高科是不是报过警", "中晟高科跌破5元提醒"),
        ("pigs", "今年佣金一共给券商好多", "年初卖了一圈肥猪"),  # the broker paid, no holder
    ],
)
def test_loose_words_of_alerts_trades_and_fees_read_their_items(homes, home, text, item):
    assert item in block_of(homes(home), text)


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("butcher", "总共多少钱了现在"),
        ("pilates", "账上一共多少钱"),
        ("pigs", "今年到底是赚了还是亏了"),
        ("tellers", "电力设备的票是不是买太多了"),
    ],
)
def test_the_account_as_a_whole_in_loose_words_is_a_portfolio_question(homes, home, text):
    assert selection(homes(home), text)["intent"] == "portfolio_review"


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("principal", "新买的空调是美芝的 靠谱吗"),  # an appliance at home
        ("tattoo", "周末又看了一遍蓝宇"),  # a film seen again
        ("wedding", "明天给美芝接亲"),  # a wedding: a person
        ("headmaster", "朋友家生意如日中天"),  # an idiom, 生意 or not
    ],
)
def test_an_appliance_a_film_a_wedding_or_an_idiom_is_no_stock(homes, home, text):
    assert selection(homes(home), text)["symbols"] == []


def test_a_tax_asked_of_a_sale_and_a_top_up_asked_by_its_fee_read_the_trades(homes):
    assert "清仓金辰股份" in block_of(homes("surgeon"), "金辰股份卖的时候交了啥税")
    assert "吉贝尔十月份补五百股" in block_of(homes("captain"), "十月份补吉贝尔的佣金")


@pytest.mark.parametrize(
    ("home", "text"), [("captain", "二十几只票帮我过一遍"), ("headmaster", "总共多少钱 各只占多少")]
)
def test_every_holding_counted_or_weighed_is_a_portfolio_question(homes, home, text):
    assert selection(homes(home), text)["intent"] == "portfolio_review"


def test_a_homophone_of_the_investors_own_name_beats_a_market_short_form(homes):
    info = selection(homes("pe"), "建邦现在能买不")  # 键邦股份 watched; 建邦科技 nobody owns
    assert info["symbols"] == ["603285"]


def test_own_stocks_in_a_choice_to_keep_are_stocks_whatever_their_business(homes):
    assert selection(homes("comedian"), "全筑跟恒尚都是搞装修的 留哪个")["symbols"] == ["603030", "603137"]


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("controller", "电动车电机是安乃达的"),  # a part made by the company
        ("beekeeper", "今年国光苹果多少钱一斤"),  # fruit
        ("beekeeper", "中研院的朋友来买蜂蜜"),  # an institute
        ("fishmonger", "给孙子买了个勤上的台灯"),  # a lamp
    ],
)
def test_a_part_fruit_an_institute_or_a_lamp_is_no_stock(homes, home, text):
    assert selection(homes(home), text)["symbols"] == []


@pytest.mark.parametrize(
    ("home", "text", "item"),
    [
        ("comedian", "十一月的月报呢", "巍华、键邦贡献主要收益"),  # November's report, written 12-01
        ("pe", "春节前那个持仓梳理说了啥", "春节前梳理"),
        ("noodle_factory", "上上周那个贝肯提醒", "贝肯跌破八块提醒"),
    ],
)
def test_a_months_report_a_written_review_and_a_named_reminder_are_found(homes, home, text, item):
    assert item in block_of(homes(home), text)


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("controller", "哪些适合长期拿"),
        ("controller", "ST的占比超没超我的纪律"),
        ("noodle_factory", "老伴问账上还剩多少钱"),
    ],
)
def test_keeping_weighing_and_the_account_asked_by_a_spouse_are_portfolio_questions(homes, home, text):
    assert selection(homes(home), text)["intent"] == "portfolio_review"


@pytest.mark.parametrize(
    ("home", "text"),
    [
        ("miner", "孙子帮问：爷爷的仓位重不重"),  # the typist opens, the grandparent is the user
        ("miner", "孙子问爷爷账户余额多少"),
        ("stall", "整体风险大不大 老婆担心"),  # who worries, closing the message
        ("stall", "二十几只票合并成十五只怎么选"),
        ("stall", "每只都点评一下"),
        ("stall", "我们俩的股票一共值多少"),
        ("miner", "煤炭股占多少了 超没超一半"),
        ("miner", "总共多少家当"),
    ],
)
def test_a_family_account_asked_in_household_words_is_a_portfolio_question(homes, home, text):
    assert selection(homes(home), text)["intent"] == "portfolio_review"


def test_a_live_streams_crowd_is_the_crowds_talk(homes):
    assert selection(homes("radio"), "直播间都在喊满仓干 靠谱不")["intent"] == "general"


@pytest.mark.parametrize(("home", "text"), [("carpenter", "依依狗尿垫哪里买便宜"), ("radio", "中视的纪录片频道几点播")])
def test_pet_supplies_and_a_channel_are_no_stock(homes, home, text):
    assert selection(homes(home), text)["symbols"] == []


def test_a_companys_officer_resigning_is_news_of_the_company(homes):
    assert selection(homes("radio"), "华媒控股董事长辞职影响大不")["symbols"] == ["000607"]


def test_an_english_follow_up_asking_what_to_do_keeps_the_stock(homes):
    env = homes("retired_pharmacist")
    asked = json.loads(pixiu_in_process_ok(env, "ask", "--json", "赛诺医疗跌破9块了"))
    info = selection(env, "what should I do with it", "--conversation", str(asked["conversation_id"]))
    assert info["symbols"] == ["688108"]


def test_a_dip_bought_before_a_holiday_reads_the_trades_of_that_window(homes):
    assert "天邑股份国庆前低吸光猫" in block_of(homes("radio"), "国庆前低吸的天邑几块钱")
