"""The segmenter's prefix dictionary kept in pixiu's user cache (selection/words.py): the
same dictionary jieba builds itself, read back on the next start, rebuilt when the kept
file is damaged or was built from another word list; and jieba imported without
pkg_resources."""

from __future__ import annotations

import marshal

import pytest

from pixiu_cli.selection import words
from tests.helpers import fresh_python


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pixiu" / "segmenter.marshal"


@pytest.fixture
def word_list(tmp_path):
    path = tmp_path / "dict.txt"
    path.write_text("核心仓 300 n\n仓位 200 n\n泸州老窖 50 nz\n其他 900 r\n", encoding="utf-8")
    return path


def _jiebas_own(path) -> tuple[dict[str, int], int]:
    import jieba

    tokenizer = jieba.Tokenizer(str(path))
    tokenizer.initialize()
    return tokenizer.FREQ, tokenizer.total


def _ours(path, version="0.42.1") -> tuple[dict[str, int], int]:
    return words._prefix_dictionary(words._import_jieba().Tokenizer(), str(path), version)


def test_the_first_start_builds_what_jieba_builds_and_keeps_it_private(kept, word_list):
    assert not kept.exists()
    assert _ours(word_list) == _jiebas_own(word_list)
    assert _ours(word_list)[0]["泸州老"] == 0  # the prefixes jieba's cut looks up are there
    assert kept.stat().st_mode & 0o777 == 0o600


def test_a_later_start_reads_the_kept_dictionary_without_building(kept, word_list, monkeypatch):
    import jieba

    built = _ours(word_list)

    def no_build(self, f):
        raise AssertionError("built again")

    monkeypatch.setattr(jieba.Tokenizer, "gen_pfdict", no_build)
    assert _ours(word_list) == built


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[: len(blob) // 2],
        lambda blob: b"not marshal data",
        lambda blob: marshal.dumps(("another", "shape")),
        lambda blob: marshal.dumps((marshal.loads(blob)[0], ["not", "a", "dict"], 1)),
    ],
    ids=["truncated", "garbage", "shape", "types"],
)
def test_a_damaged_kept_dictionary_is_built_again(kept, word_list, damage):
    _ours(word_list)
    kept.write_bytes(damage(kept.read_bytes()))
    assert _ours(word_list) == _jiebas_own(word_list)
    assert marshal.loads(kept.read_bytes())[1] == _jiebas_own(word_list)[0]  # and kept whole again


def test_a_changed_word_list_or_jieba_version_is_built_again(kept, word_list):
    _ours(word_list)
    assert _ours(word_list, version="0.43")[0] == _jiebas_own(word_list)[0]
    word_list.write_text("美的集团 100 nt\n", encoding="utf-8")
    assert _ours(word_list) == _jiebas_own(word_list)
    assert "核心仓" not in _ours(word_list)[0]


def test_an_unwritable_cache_folder_still_segments(tmp_path, monkeypatch, word_list):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _ours(word_list) == _jiebas_own(word_list)


@pytest.mark.slow  # two loads of jieba's whole word list (~3 s); CI runs it
def test_the_segmenter_has_jiebas_own_dictionary_and_cuts_as_it_does(kept):
    code = (
        "import sys, jieba\n"
        "from pixiu_cli.selection import words\n"
        "ours = words._segmenter()\n"
        "theirs = jieba.Tokenizer(); theirs.initialize()\n"
        "for word in words.vocabulary(): theirs.add_word(word, freq=10_000)\n"
        "assert ours.FREQ == theirs.FREQ and ours.total == theirs.total\n"
        "for text in ('其他的股票怎么样', '我家仓库里有心灵美的东西', '核心仓该不该减仓', '泸州老窖跌停了'):\n"
        "    assert list(ours.cut(text, HMM=False)) == list(theirs.cut(text, HMM=False)), text\n"
        "print('pkg_resources' in sys.modules)\n"
    )
    for _ in range(2):  # built, then read back
        fresh_python(code, timeout=120)
    assert kept.exists()


def test_jieba_is_imported_without_pkg_resources_and_finds_its_word_list():
    code = (
        "import sys\n"
        "from pixiu_cli.selection import words\n"
        "jieba = words._import_jieba()\n"
        "assert 'pkg_resources' not in sys.modules, 'pkg_resources imported'\n"
        "import jieba._compat\n"
        "with jieba._compat.get_module_res('dict.txt') as f: assert f.readline().strip()\n"
    )
    fresh_python(code)
