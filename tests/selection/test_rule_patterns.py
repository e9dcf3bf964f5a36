"""No selection rule may hold an empty alternative: a pattern written in parts that ends one
part with `|` and the next with nothing (or `||`) matches the empty string, so its cue fires on
every message (a life domain that does would veto every stock name)."""

import tomllib
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "data" / "selection" / "rules"


def _patterns(value, path=""):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _patterns(inner, f"{path}.{key}")
    elif isinstance(value, list):
        if value and all(isinstance(part, str) for part in value) and path.endswith("pattern"):
            yield path, "".join(value)
        else:
            for index, inner in enumerate(value):
                yield from _patterns(inner, f"{path}[{index}]")
    elif isinstance(value, str) and path.endswith("pattern"):
        yield path, value


@pytest.mark.parametrize("rules_file", sorted(RULES.glob("*.toml")), ids=lambda p: p.name)
def test_no_pattern_has_an_empty_alternative(rules_file):
    table = tomllib.loads(rules_file.read_text(encoding="utf-8"))
    empty = [
        path
        for path, pattern in _patterns(table)
        if pattern.startswith("|") or pattern.endswith("|") or "||" in pattern or "(|" in pattern or "|)" in pattern
    ]
    assert empty == []
