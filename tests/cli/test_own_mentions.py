"""The investor's own stocks named the way they are typed, through `pixiu context` on a real
home: held, watched and noted stocks by a generated short form next to words no cue list
holds, by an IME typo and by pinyin initials; a held one kept in a pair; the everyday senses
still left out; `--explain` says which form matched and why; and the name table with these
forms is kept per home and built again when a holding is added."""

from __future__ import annotations

import json

import pytest

from tests.helpers import clean_env, pixiu_in_process_ok

DOCUMENT = {
    "holdings": [
        {"symbol": "603993", "name": "洛阳钼业", "short_names": [], "shares": 5000, "cost": 7.8, "role": "core"},
        {"symbol": "600426", "name": "华鲁恒升", "short_names": [], "shares": 800, "cost": 27.9, "role": "satellite"},
        {"symbol": "000792", "name": "盐湖股份", "short_names": [], "shares": 500, "cost": 17.5, "role": "satellite"},
    ],
    "decisions": [
        {
            "symbol": "000338",
            "side": "sell",
            "price": 16.2,
            "quantity": 1000,
            "reason": "周期见顶",
            "decided_at": "2026-10-10T10:00:00+08:00",
        }
    ],
    "notes": [
        {"kind": "plan", "symbol": "000425", "text": "徐工机械跌到6块再建仓", "created_at": "2026-11-03T20:00:00+08:00"}
    ],
}
MORE = {
    "holdings": [
        {"symbol": "600362", "name": "江西铜业", "short_names": [], "shares": 100, "cost": 21.4, "role": "satellite"}
    ]
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("own-mentions")
    env = clean_env(root / "home", XDG_CACHE_HOME=str(root / "cache"), PIXIU_NOW="2026-11-25T20:30")
    document = root / "account.json"
    document.write_text(json.dumps(DOCUMENT, ensure_ascii=False), encoding="utf-8")
    pixiu_in_process_ok(env, "import", str(document))
    pixiu_in_process_ok(env, "watch", "add", "601600")
    return env, root


def explained(env, text: str) -> dict:
    return json.loads(pixiu_in_process_ok(env, "context", "--explain", text))["selection"]


def mention(selection: dict, text: str) -> dict:
    return next(m for m in selection["mentions"] if m["text"] == text)


@pytest.mark.parametrize(
    ("text", "typed", "symbol", "form"),
    [
        ("洛钼负债率多少", "洛钼", "603993", "首字缩写"),  # held; 负债率 is in no cue list of mentions
        ("华鲁有没有质押", "华鲁", "600426", "前两字"),
        ("华路恒升最近怎么样", "华路恒升", "600426", "同音"),  # the IME's first choice for lu
        ("lymy今天咋了", "lymy", "603993", "拼音首字母"),
        ("luoyangmuye 披露了啥", "luoyangmuye", "603993", "拼音"),
        ("中铝出了个公告", "中铝", "601600", "首字缩写"),  # watched
        ("徐工到6块了没", "徐工", "000425", "前两字"),  # named by a plan only
        ("潍柴还值得买回来吗", "潍柴", "000338", "前两字"),  # named by a decision only
    ],
)
def test_own_stocks_by_their_everyday_forms(home, text, typed, symbol, form):
    selection = explained(home[0], text)
    assert selection["symbols"] == [symbol]
    found = mention(selection, typed)
    assert found["accepted"] and found["symbol"] == symbol and found["form"] == form


def test_a_held_stock_is_kept_when_compared_with_another(home):
    selection = explained(home[0], "盐湖和紫金矿业二选一")
    assert selection["symbols"] == ["000792", "601899"]
    assert "比较" in mention(selection, "盐湖")["why"] and mention(selection, "盐湖")["form"] == "去掉前后缀"


def test_everyday_senses_stay_out_and_say_why(home):
    assert explained(home[0], "下周去洛阳旅游")["symbols"] == []
    typo = explained(home[0], "华路上堵车了")
    assert typo["symbols"] == []
    rejected = mention(typo, "华路")
    assert not rejected["accepted"] and rejected["form"] == "同音" and rejected["of"] == "华鲁"


def test_the_table_view_names_the_form(home):
    shown = pixiu_in_process_ok(home[0], "context", "洛钼负债率多少")
    assert "✓ 洛钼 → 603993（首字缩写：洛阳钼业）" in shown


def test_the_table_is_kept_per_home_and_built_again_for_a_new_holding(home):
    env, root = home
    kept = root / "cache" / "pixiu" / "names"
    pixiu_in_process_ok(env, "context", "江铜呢")
    before = set(kept.glob("names-*.pickle"))
    assert before and explained(env, "江铜呢")["symbols"] == []
    assert set(kept.glob("names-*.pickle")) == before  # the same holdings: the same table
    document = root / "more.json"
    document.write_text(json.dumps(MORE, ensure_ascii=False), encoding="utf-8")
    pixiu_in_process_ok(env, "import", str(document))
    assert explained(env, "江铜呢")["symbols"] == ["600362"]
    assert len(set(kept.glob("names-*.pickle")) - before) == 1
    assert explained(env, "招轮最近咋样")["symbols"] == []
    pixiu_in_process_ok(env, "watch", "add", "601872")  # the watch list is part of the universe too
    assert explained(env, "招轮最近咋样")["symbols"] == ["601872"]
    assert len(set(kept.glob("names-*.pickle")) - before) == 2


def test_an_everyday_word_form_is_the_stock_unless_daily_life_says_otherwise(home):
    # 盐湖 (盐湖股份, held) is also a lake: with no investing word from any list it is the stock,
    # and the sentence about swimming in it is the lake
    taken = explained(home[0], "盐湖的锂价影响大不大")
    assert taken["symbols"] == ["000792"]
    why = mention(taken, "盐湖")["why"]
    assert mention(taken, "盐湖")["accepted"] and "日常用语" in why and "没有日常用法的迹象" in why
    vetoed = explained(home[0], "盐湖里能游泳吗")
    assert vetoed["symbols"] == []
    assert not mention(vetoed, "盐湖")["accepted"] and "“游泳”" in mention(vetoed, "盐湖")["why"]


def test_one_character_of_each_word_names_a_watched_stock(home):
    env = home[0]
    pixiu_in_process_ok(env, "watch", "add", "600547")
    shown = pixiu_in_process_ok(env, "context", "山金有没有减持公告")
    assert "✓ 山金 → 600547（每词一字：山东黄金）" in shown
