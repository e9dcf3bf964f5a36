"""Names a newcomer can read the house by: at most 3 modules beside the packages (the
package's face, its entry point and the composition root), no two modules whose names are one
letter apart (`model` / `models`), and no module named after an area it is not in
(`memory/market.py` beside `market/`): a module that serves another area lives in that area.
The surfaces (cli, repl, mcp) may name a module after the area whose commands it serves."""

from __future__ import annotations

import itertools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pixiu_cli"
MAX_TOP_LEVEL = 3
SURFACES = {"cli", "repl", "mcp"}
# The parts every area has: its commands, its views, its store.
PER_AREA = {"commands", "views", "store"}
# One letter apart but different words, which no reader takes for each other.
DIFFERENT_WORDS = {
    frozenset({"chart", "chat"}),
    frozenset({"block", "clock"}),
    frozenset({"preview", "review"}),
    frozenset({"reader", "render"}),
}


def modules(root: Path = PACKAGE) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts and p.stem != "__init__")


def one_letter_apart(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def top_level(root: Path = PACKAGE) -> list[str]:
    return sorted(p.name for p in root.glob("*.py"))


def confusable_pairs(paths: list[Path]) -> list[tuple[str, str]]:
    stems = sorted({p.stem for p in paths})
    return [
        (a, b)
        for a, b in itertools.combinations(stems, 2)
        if one_letter_apart(a, b) and frozenset({a, b}) not in DIFFERENT_WORDS
    ]


def named_after_a_package(paths: list[Path], root: Path = PACKAGE) -> list[str]:
    packages = {p.name for p in root.iterdir() if (p / "__init__.py").exists()}
    found = []
    for path in paths:
        where = path.relative_to(root).parts
        home = where[0] if len(where) > 1 else None
        if path.stem in packages - PER_AREA and path.stem != home and home not in SURFACES:
            found.append(str(path.relative_to(root)))
    return found


def test_at_most_three_top_level_modules():
    assert len(top_level()) <= MAX_TOP_LEVEL, top_level()


def test_no_two_modules_are_one_letter_apart():
    assert confusable_pairs(modules()) == []


def test_no_module_is_named_after_a_package_it_does_not_serve():
    assert named_after_a_package(modules()) == []


def test_the_checks_see_what_they_forbid(tmp_path):
    for name in (
        "conversation/llm/model.py",
        "llm/models.py",
        "memory/market.py",
        "kernel/vocabulary.py",
        "market/bars.py",
        "cli/market.py",
        "market/commands.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).parent.joinpath("__init__.py").touch()
        (tmp_path / name).touch()
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "__init__.py").touch()
    paths = modules(tmp_path)
    assert confusable_pairs(paths) == [("model", "models")]
    assert named_after_a_package(paths, tmp_path) == ["memory/market.py"]
    assert one_letter_apart("signal", "signals") and not one_letter_apart("brief", "briefing")
