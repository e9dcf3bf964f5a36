"""The segmenter (conversation/selection/words.py): jieba's word list in a compact form kept in pixiu's
user cache — the same frequencies jieba's own prefix dictionary holds, read back on the
next start, rebuilt when the kept file is damaged or was built from another word list —
and jieba's `cut(text, HMM=False)` over it, word for word, without importing jieba."""

from __future__ import annotations

import pytest

from pixiu_cli.market.names import words
from tests.helpers import fresh_python

jieba = pytest.importorskip("jieba")


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pixiu" / "segmenter.words"


@pytest.fixture
def word_list(tmp_path):
    path = tmp_path / "dict.txt"
    path.write_text(
        "核心仓 300 n\n仓位 200 n\n泸州老窖 50 nz\n其他 900 r\n他的 400 r\n的 9000 u\n票 80 n\n"
        "心灵 70 n\n心灵美 20 a\n美的 60 nz\n仓库 90 n\n我 5000 r\nETF 30 eng\n3D 10 eng\n",
        encoding="utf-8",
    )
    return path


def _jiebas_own(path):
    tokenizer = jieba.Tokenizer(str(path))
    tokenizer.initialize()
    return tokenizer


def _same_dictionary(ours, theirs) -> None:
    assert ours.total == theirs.total
    for key, freq in theirs.FREQ.items():
        assert ours.get(key) == freq, key
    for absent in ("核", "核心仓位", "老窖", "心灵美的", "", "x"):
        assert (ours.get(absent) is None) == (absent not in theirs.FREQ), absent


def test_the_first_start_builds_what_jieba_builds_and_keeps_it_private(kept, word_list):
    assert not kept.exists()
    _same_dictionary(words.load_dictionary(word_list), _jiebas_own(word_list))
    assert words.load_dictionary(word_list).get("泸州老") == 0  # the prefixes the cut looks up are there
    assert kept.stat().st_mode & 0o777 == 0o600


def test_a_later_start_maps_the_kept_dictionary_without_reading_the_list(kept, word_list, monkeypatch):
    words.load_dictionary(word_list)

    def no_build(source):
        raise AssertionError("built again")

    monkeypatch.setattr(words, "read_word_list", no_build)
    _same_dictionary(words.load_dictionary(word_list), _jiebas_own(word_list))


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[: len(blob) // 2],
        lambda blob: b"not ours at all",
        lambda blob: blob[:16] + b"{not json\n" + blob[blob.index(b"\n", 16) + 1 :],
        lambda blob: blob[:16] + b'{"stamp": 1, "total": "x", "groups": 3, "size": 0}\n',
        lambda blob: b"",
    ],
    ids=["truncated", "garbage", "header", "types", "empty"],
)
def test_a_damaged_kept_dictionary_is_built_again(kept, word_list, damage):
    words.load_dictionary(word_list)
    whole = kept.read_bytes()
    kept.write_bytes(damage(whole))
    _same_dictionary(words.load_dictionary(word_list), _jiebas_own(word_list))
    assert kept.read_bytes() == whole  # and kept whole again


def test_a_changed_word_list_is_built_again(kept, word_list):
    words.load_dictionary(word_list)
    word_list.write_text("美的集团 100 nt\n", encoding="utf-8")
    ours = words.load_dictionary(word_list)
    _same_dictionary(ours, _jiebas_own(word_list))
    assert ours.get("核心仓") is None


def test_an_unwritable_cache_folder_still_segments(tmp_path, monkeypatch, word_list):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    _same_dictionary(words.load_dictionary(word_list), _jiebas_own(word_list))


def test_added_words_and_the_cut_are_jiebas(kept, word_list):
    ours, theirs = words.Segmenter(words.load_dictionary(word_list)), _jiebas_own(word_list)
    for word, freq in (("持仓", 10_000), ("心灵美", 5_000), ("泸州老窖", 5_000), ("宁德时代", 5_000)):
        ours.add_word(word, freq)
        theirs.add_word(word, freq=freq)
    texts = (
        "其他的票都绿了，我该怎么办",
        "我家仓库里有心灵美的东西",
        "核心仓位 ETF 和3D打印\r\n宁德时代、泸州老窖",
        "abc123 x_y  %50.5 C++ #tag",
        "",
    )
    for text in texts:
        assert list(ours.cut(text)) == list(theirs.cut(text, HMM=False)), text
    _same_dictionary(ours, theirs)


def test_the_word_list_is_found_without_importing_jieba():
    code = (
        "import sys\n"
        "from pixiu_cli.market.names import words\n"
        "print(words.word_list_path().is_file(), 'jieba' in sys.modules)\n"
    )
    assert fresh_python(code).split() == ["True", "False"]


# Every question and earlier message of the selection corpus, with the position words and
# the shipped names added to both segmenters, as pixiu adds them.
_CORPUS_CUT = """
import sys, logging
from pathlib import Path
import jieba
from pixiu_cli.market.names import table as names, words
jieba.setLogLevel(logging.WARNING)
theirs = jieba.Tokenizer(); theirs.initialize()
for word in words.vocabulary(): theirs.add_word(word, freq=10_000)
table = [n for s in names.shipped_securities().values() for n in (s.name, *s.nicknames, *s.short_names) if len(n) >= 3]
words.add_names(table)
for name in dict.fromkeys(n for n in table if len(n) > 1): theirs.add_word(name, freq=5_000)
texts = []
for path in sorted(Path(sys.argv[1]).glob("*.txt")):
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", "@")):
            for field in line.split("\\t")[2:]:
                texts += field.split(" || ")
assert len(texts) > 1500, len(texts)
ours = words._segmenter()
for text in texts:
    assert words.segment(text).words == tuple(theirs.cut(text, HMM=False)), text
assert ours.total == theirs.total
print(len(texts))
"""


@pytest.mark.slow  # jieba's whole word list in a fresh interpreter (~3 s); CI runs it
def test_the_selection_corpus_is_cut_as_jieba_cuts_it(kept):
    from pixiu_cli.kernel.resources import data_dir

    corpus = str(data_dir() / "selection")
    for _ in range(2):  # built, then mapped back
        assert int(fresh_python(_CORPUS_CUT.replace("sys.argv[1]", repr(corpus)), timeout=120)) > 1500
    assert kept.exists()


def test_without_pread_the_kept_file_is_read_by_seeking(kept, word_list, monkeypatch):
    words.load_dictionary(word_list)
    monkeypatch.delattr(words.os, "pread")
    _same_dictionary(words.load_dictionary(word_list), _jiebas_own(word_list))
