"""JSON documents that are valid but odd: a UTF-8 byte-order mark is read, a field named twice
in one object is refused in one line (never one of the two silently kept), and pixiu's own
export imported back adds no second computed profile or signal."""

from __future__ import annotations

import json

import pytest

from tests.helpers import HOLDING_600519, clean_env, in_process_clean


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home")


def test_reimporting_the_export_adds_no_computed_profile_or_signal(env, tmp_path):
    from tests.helpers import MARKET_FIXTURES

    in_process_clean(env, "import", str(MARKET_FIXTURES / "midea_holding.json"))
    csv_path, actions = MARKET_FIXTURES / "000333.csv", MARKET_FIXTURES / "000333_actions.csv"
    assert (
        in_process_clean(
            env, "data", "import", str(csv_path), "--symbol", "000333", "--actions", str(actions)
        ).returncode
        == 0
    )
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    in_process_clean(env, "export", "-o", str(first))
    exported = json.loads(first.read_text(encoding="utf-8"))
    assert exported["profiles"] and exported["signals"]
    assert in_process_clean(env, "import", str(first)).returncode == 0
    in_process_clean(env, "export", "-o", str(second))
    again = json.loads(second.read_text(encoding="utf-8"))
    assert (len(again["profiles"]), len(again["signals"])) == (len(exported["profiles"]), len(exported["signals"]))


def test_a_json_file_with_a_utf8_bom_is_read(env, tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"holdings": [HOLDING_600519]}, ensure_ascii=False).encode("utf-8"))
    assert in_process_clean(env, "import", str(path)).returncode == 0
    assert json.loads(in_process_clean(env, "export").stdout)["holdings"][0]["name"] == "贵州茅台"


def test_a_json_object_naming_a_field_twice_is_refused_in_one_line(env, tmp_path):
    path = tmp_path / "twice.json"
    path.write_text(
        '{"holdings": [{"symbol": "600519", "name": "贵州茅台", "shares": 100, "shares": 9000, '
        '"cost": 1500, "role": "core"}]}',
        encoding="utf-8",
    )
    done = in_process_clean(env, "import", str(path))
    assert done.returncode == 1 and "shares" in done.stderr and "重复" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert json.loads(in_process_clean(env, "export").stdout)["holdings"] == []
