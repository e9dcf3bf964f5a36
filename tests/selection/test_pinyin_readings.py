"""A character's reading as the homophone fixer takes it (selection/homophones.py), from the
compact table built once with pypinyin imported without its phrase dictionary: the same as
pypinyin's full import gives, for every character pypinyin knows; the table kept in the user
cache, read back without importing pypinyin, built again when damaged."""

from __future__ import annotations

import json
import os

import pytest

from pixiu_cli.selection import homophones
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


def test_the_lean_import_leaves_the_environment_as_it_was(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}  # no kept table: pypinyin builds it
    code = (
        "import os, sys\n"
        "os.environ['PYPINYIN_NO_DICT_COPY'] = 'mine'\n"
        "from pixiu_cli.selection import homophones\n"
        "assert homophones.readings('迟') == homophones.readings('持') == {'ci'}  # chi, fuzzy-folded\n"
        "from pypinyin.constants import PHRASES_DICT\n"
        "print(len(PHRASES_DICT), os.environ.get('PYPINYIN_NO_PHRASES'), os.environ['PYPINYIN_NO_DICT_COPY'])\n"
    )
    assert fresh_python(code, env).split() == ["0", "None", "mine"]


_READ_BACK = (
    "import sys\n"
    "from pixiu_cli.selection import homophones\n"
    "print(sorted(homophones.readings('藏')), sorted(homophones.readings('仓')), 'pypinyin' in sys.modules)\n"
)


@pytest.mark.slow  # two fresh interpreters per case
@pytest.mark.parametrize("damage", [None, b"", b"not marshal", b"\xe9\x03"], ids=["whole", "empty", "garbage", "shape"])
def test_the_kept_table_is_read_without_pypinyin_and_built_again_when_damaged(tmp_path, damage):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    assert fresh_python(_READ_BACK, env).split() == ["['can']", "['can']", "True"]  # built
    kept = tmp_path / "pixiu" / "pinyin_readings.marshal"
    assert kept.stat().st_mode & 0o777 == 0o600
    if damage is not None:
        kept.write_bytes(damage)
    expected_import = "False" if damage is None else "True"
    assert fresh_python(_READ_BACK, env).split() == ["['can']", "['can']", expected_import]
