"""A character's reading as the homophone fixer takes it (conversation/selection/homophones.py), with
pypinyin imported without its phrase dictionary: the same as pypinyin's full import gives,
for every character pypinyin knows."""

from __future__ import annotations

import json
import os
import sys

import pytest

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names import homophones
from tests.helpers import fresh_python


@pytest.mark.slow  # 41,923 characters through both imports (~2 s); CI runs it
def test_every_characters_reading_is_the_one_the_full_pypinyin_gives():
    code = (
        "import json, sys\n"
        "from pypinyin import Style, pinyin\n"
        "from pypinyin.constants import PHRASES_DICT\n"
        "from pypinyin.pinyin_dict import pinyin_dict\n"
        "assert len(PHRASES_DICT) > 10_000, 'the reference must load the phrases'\n"
        "print(json.dumps({chr(c): pinyin(chr(c), style=Style.NORMAL)[0] for c in sorted(pinyin_dict)}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYPINYIN_")}
    full = json.loads(fresh_python(code, env, timeout=120))
    assert len(full) > 40_000
    differ = [
        ch for ch, reading in full.items() if homophones.readings(ch) != frozenset(map(homophones._fold, reading))
    ]
    assert differ == []


def test_the_lean_import_leaves_the_environment_as_it_was():
    code = (
        "import os, sys\n"
        "os.environ['PYPINYIN_NO_DICT_COPY'] = 'mine'\n"
        "from pixiu_cli.market.names import homophones\n"
        "assert homophones.readings('迟') == homophones.readings('持') == {'ci'}  # chi, fuzzy-folded\n"
        "from pypinyin.constants import PHRASES_DICT\n"
        "print(len(PHRASES_DICT), os.environ.get('PYPINYIN_NO_PHRASES'), os.environ['PYPINYIN_NO_DICT_COPY'])\n"
    )
    assert fresh_python(code).split() == ["0", "None", "mine"]


@pytest.mark.slow  # every character pypinyin knows, read once (~1 s)
def test_the_shipped_sound_table_is_what_pypinyin_reads():
    shipped = (data_dir() / "selection" / homophones.SOUNDS_FILE).read_text(encoding="utf-8")
    built = homophones.sound_table()
    assert shipped == "".join(f"{ch}\t{alike}\n" for ch, alike in built.items()), (
        "run python scripts/build_homophones.py"
    )


def test_typos_are_fixed_without_importing_pypinyin(monkeypatch):
    homophones.readings.cache_clear()
    homophones._pinyin.cache_clear()
    monkeypatch.setitem(sys.modules, "pypinyin", None)  # an import of it now fails
    assert homophones.fix_homophones("我的藏位太重了") == "我的仓位太重了"
    assert homophones.fix_homophones("迟仓的股票") == "持仓的股票"
    assert homophones.fix_homophones("宁德时代能买吗") == "宁德时代能买吗"
