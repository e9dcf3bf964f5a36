"""The selection rules' compiled patterns kept between processes (conversation/selection/rules.py, `compiled`):
a pattern handed back from the kept opcodes is the pattern `re.compile` makes (`==` on a
`re.Pattern` compares its opcodes), and a process that finds them kept compiles none."""

from __future__ import annotations

import marshal
import re

import pytest

from pixiu_cli.conversation.selection import follow_up, intent, select, targets, topics, windows
from pixiu_cli.market.names import codes
from pixiu_cli.market.names import rules as patterns

BUILDERS = (
    intent.cues,
    intent._context,
    targets.rules,
    topics._rules,
    windows._rules,
    select._mention_rules,
    codes._rules,
    follow_up._rules,
)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A new process's state: nothing loaded, nothing compiled, the cache under tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(patterns, "_stored", None)
    monkeypatch.setattr(patterns, "_used", {})
    monkeypatch.setattr(patterns, "_dirty", False)
    return tmp_path


def _every_rule_pattern() -> dict[tuple[str, int], re.Pattern[str]]:
    """Build each rule table again (not the process's cached one), recording its patterns."""
    made = {}
    real = patterns.compiled

    def recording(source, flags=0):
        made[(source, int(flags))] = real(source, flags)
        return made[(source, int(flags))]

    for module in (intent, targets, topics, windows, select, codes, follow_up):
        module.compiled = recording
    try:
        for build in BUILDERS:
            build.__wrapped__()
    finally:
        for module in (intent, targets, topics, windows, select, codes, follow_up):
            module.compiled = real
    return made


def _restart(monkeypatch) -> None:
    monkeypatch.setattr(patterns, "_stored", None)
    monkeypatch.setattr(patterns, "_used", {})
    monkeypatch.setattr(patterns, "_dirty", False)


def test_kept_patterns_are_the_patterns_re_compiles(fresh, monkeypatch):
    first = _every_rule_pattern()
    assert len(first) > 100  # the walk reached the rule files
    patterns.save()
    assert patterns.cache_path().is_file()
    _restart(monkeypatch)
    compiled_again = []
    monkeypatch.setattr(patterns, "_entry", lambda *a: compiled_again.append(a) or pytest.fail("compiled"))
    second = _every_rule_pattern()
    assert compiled_again == []
    assert second.keys() == first.keys()
    for (source, flags), pattern in second.items():
        assert pattern == re.compile(source, flags), source
        assert (pattern.groups, pattern.groupindex) == (re.compile(source, flags).groups, pattern.groupindex)


def test_kept_pattern_matches_as_compiled(fresh, monkeypatch):
    source = r"(?P<code>[036]\d{5})|(?<![a-z])买(?:入|进)?|Kelvin"
    patterns.compiled(source, re.IGNORECASE)
    patterns.save()
    _restart(monkeypatch)
    kept = patterns.compiled(source, re.IGNORECASE)
    assert patterns._dirty is False  # nothing new to keep
    text = "买进 600519 和 KELVIN，再买"
    plain = re.compile(source, re.IGNORECASE)
    assert [m.span() for m in kept.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert kept.search(text).groupdict() == plain.search(text).groupdict()


@pytest.mark.parametrize(
    "content",
    [b"", b"\x00garbage", marshal.dumps(((0, 0, 0), {})), marshal.dumps("not a pair")],
    ids=["empty", "garbage", "another engine", "wrong shape"],
)
def test_an_unusable_cache_file_is_compiled_again(fresh, content):
    path = patterns.cache_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert patterns.compiled("宁德|茅台") == re.compile("宁德|茅台")
    patterns.save()
    engine, kept = marshal.loads(path.read_bytes())
    assert ("宁德|茅台", 0) in kept


def test_a_damaged_entry_is_compiled_again(fresh, monkeypatch):
    patterns.compiled("宁德|茅台")
    patterns.save()
    _restart(monkeypatch)
    patterns._load()[("宁德|茅台", 0)] = (0, [1, 2, 3], 0, {}, (None,))
    assert patterns.compiled("宁德|茅台") == re.compile("宁德|茅台")
