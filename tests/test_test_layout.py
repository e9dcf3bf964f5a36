"""Test modules share code only through tests/helpers.py (and the fake servers next to it):
a test module never imports another test module or a conftest. A test module is named after
the behaviour it checks, never after the campaign that wrote it (a round of attacks, a wave,
an issue, a batch of defects)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SHARED = {"tests.helpers", "tests.bad_server", "tests.push_receivers", "tests.commands.requests"}


def _may_import_a_test_module(source: str) -> bool:
    """An import of `tests.x` spells `tests.x` in the source: a module whose only such
    spellings are the shared modules cannot import another, and is not parsed."""
    return any(m.group(0) not in SHARED for m in re.finditer(r"tests\.[\w.]*\w", source))


def test_no_test_module_imports_another_test_module_or_a_conftest():
    offenders = []
    for path in TESTS.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if not _may_import_a_test_module(source):
            continue
        for node in ast.walk(ast.parse(source)):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            offenders += [
                f"{path.relative_to(TESTS)}: {name}"
                for name in names
                if name.startswith("tests.") and name not in SHARED
            ]
    assert offenders == []


def test_the_prefilter_parses_every_module_that_names_another_test_module():
    assert _may_import_a_test_module("from tests.market.test_chart import bars")
    assert _may_import_a_test_module("import tests.conftest")
    assert _may_import_a_test_module("from tests.helpers import x\nfrom tests.helpers_two import y")
    assert not _may_import_a_test_module("from tests.helpers import build_app\nimport tests.bad_server\n")


CAMPAIGN_WORDS = frozenset(
    {"round", "rounds", "attack", "attacks", "wave", "waves", "issue", "issues", "defect", "defects", "campaign"}
)


def campaign_words(file_name: str) -> set[str]:
    """The words of a test module's name that name a campaign, not a behaviour: whole words
    only (`test_grounding.py` is about grounding, not a round)."""
    return set(Path(file_name).stem.lower().split("_")) & CAMPAIGN_WORDS


def test_no_test_module_is_named_after_a_campaign():
    named = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py") if campaign_words(p.name))
    assert named == []


def test_campaign_names_are_caught_and_behaviour_names_pass():
    for campaign in (
        "test_attack_round_three.py",
        "test_notebook_defects.py",
        "test_small_defects_pty.py",
        "test_wave_two.py",
        "test_issue_25.py",
        "test_second_round.py",
    ):
        assert campaign_words(campaign), campaign
    for behaviour in ("test_grounding.py", "test_background_sync_report.py", "test_forged_labels.py"):
        assert not campaign_words(behaviour), behaviour
