"""The six-digit code check on the surfaces exists once: commands/values.py's StockCode (and
`spelled_code`, for a word that may be a code or something else) call normalise_code; no
other module of cli/, repl/ or commands/ calls it or spells a six-digit pattern."""

from __future__ import annotations

import ast
import re

from tests.helpers import REPO

SURFACES = ("cli", "repl", "commands")
THE_CHECK = "pixiu_cli/commands/values.py"
_SIX_DIGITS = re.compile(r"(\\d|\[0-9\])\{6\}")


def _findings(path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and getattr(node, "id", getattr(node, "attr", None)) == (
            "normalise_code"
        ):
            found.append(f"normalise_code at line {node.lineno}")
        if isinstance(node, ast.alias) and node.name == "normalise_code":
            found.append("imports normalise_code")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SIX_DIGITS.search(node.value):
            found.append(f"six-digit pattern at line {node.lineno}")
    return found


def test_no_surface_module_but_the_stock_code_type_checks_a_code():
    offenders = {}
    for surface in SURFACES:
        for path in sorted((REPO / "pixiu_cli" / surface).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative != THE_CHECK and (found := _findings(path)):
                offenders[relative] = found
    assert offenders == {}


def test_the_scan_sees_each_way_of_checking_a_code(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from pixiu_cli.kernel.vocabulary import normalise_code\n"
        "import re\nCODE = re.compile(r'[0-9]{6}')\nOTHER = r'\\d{6}'\n"
        "def f(x):\n    return codes.normalise_code(x)\n",
        encoding="utf-8",
    )
    found = _findings(sample)
    assert "imports normalise_code" in found and "normalise_code at line 6" in found
    assert "six-digit pattern at line 3" in found and "six-digit pattern at line 4" in found
    assert _findings(REPO / THE_CHECK)  # the one check is seen where it lives
