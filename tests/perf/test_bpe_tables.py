"""The tokenizer's compact tables (pixiu_cli/conversation/tokenizer/bpe.py): built once from a tokenizer.json, then
loaded from the cache without reading the JSON; rebuilt when the file changes or the cache
is damaged; a cache that cannot be written costs only the rebuilding. On a small
tokenizer.json of the same kind (byte symbols, a few merges, added tokens), so each build
takes microseconds."""

from __future__ import annotations

import json
import os
import stat

import pytest

from pixiu_cli.conversation.tokenizer import bpe

BYTES = bpe.gpt2_byte_chars()
MERGES = ["h e", "l l", "he ll", "hell o", "Ġ w", "Ġw o"]


def small_tokenizer_json() -> dict:
    vocab = {char: i for i, char in enumerate(BYTES)}
    for merge in MERGES:
        vocab["".join(merge.split(" "))] = len(vocab)
    split = {"type": "Split", "pattern": {"Regex": r" ?\p{L}+|\p{N}{1,3}|\s+"}, "behavior": "Isolated", "invert": False}
    return {
        "added_tokens": [
            {"id": 300, "content": "<|end|>", "normalized": False},
            {"id": 301, "content": "<|end|>>", "normalized": True},
        ],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [split, {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}],
        },
        "model": {"type": "BPE", "dropout": None, "vocab": vocab, "merges": MERGES},
    }


@pytest.fixture
def tokenizer_json(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(small_tokenizer_json()), encoding="utf-8")
    return path


def ids_of(*pieces: str) -> list[int]:
    vocab = small_tokenizer_json()["model"]["vocab"]
    return [vocab[piece] for piece in pieces]


def test_the_small_file_encodes_by_merge_rank_with_its_added_tokens(tokenizer_json, tmp_path):
    encoder = bpe.ByteLevelBPE(bpe.load_tables(tokenizer_json, tmp_path / "cache"))
    assert encoder.encode("hello world") == ids_of("hello", "Ġwo", "r", "l", "d")
    # The unnormalized token is cut out first, so the longer normalized one never matches.
    assert encoder.encode("hell<|end|>>") == [*ids_of("hell"), 300, *ids_of(">")]


def test_built_once_then_loaded_without_reading_the_json(tokenizer_json, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    built = bpe.load_tables(tokenizer_json, cache)
    saved = cache / "deepseek_bpe.marshal"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    monkeypatch.setattr(bpe.json, "load", lambda f: pytest.fail("the JSON was read again"))
    again = bpe.load_tables(tokenizer_json, cache)
    assert (again.pairs, again.merged, again.added) == (built.pairs, built.merged, built.added)


def test_rebuilt_when_the_file_changes_or_the_cache_is_damaged(tokenizer_json, tmp_path):
    cache = tmp_path / "cache"
    bpe.load_tables(tokenizer_json, cache)
    data = small_tokenizer_json()
    data["model"]["merges"] = MERGES[:1]
    tokenizer_json.write_text(json.dumps(data), encoding="utf-8")
    info = tokenizer_json.stat()
    os.utime(tokenizer_json, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
    assert bpe.ByteLevelBPE(bpe.load_tables(tokenizer_json, cache)).encode("hello") == ids_of("he", "l", "l", "o")
    (cache / "deepseek_bpe.marshal").write_bytes(b"\x00not marshal")
    assert bpe.ByteLevelBPE(bpe.load_tables(tokenizer_json, cache)).encode("hello") == ids_of("he", "l", "l", "o")


def test_a_cache_that_cannot_be_written_costs_only_the_rebuilding(tokenizer_json, tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("x")
    assert bpe.ByteLevelBPE(bpe.load_tables(tokenizer_json, blocked)).encode("hello") == ids_of("hello")


def test_another_kind_of_tokenizer_is_refused_not_miscounted(tmp_path):
    data = small_tokenizer_json()
    data["model"]["continuing_subword_prefix"] = "##"
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="byte-level BPE"):
        bpe.load_tables(path, None)


def test_the_cache_lives_under_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert bpe.default_cache_dir() == tmp_path / "pixiu"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert bpe.default_cache_dir() == tmp_path / ".cache" / "pixiu"
