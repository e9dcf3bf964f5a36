"""The lines the user reads are written in views modules: a use case (`USE_CASE_MODULES`) returns what happened (a
data class, a kind) and a view says it. A service function that builds Chinese text and
returns text is found here; the few that remain say why below (text the model reads, an
import's error line, the model's own tool confirmations)."""

from __future__ import annotations

import ast
import re

from tests.helpers import USE_CASE_MODULES, package_syntax_trees

_CHINESE = re.compile(r"[\u4e00-\u9fff]")

# module (or module::function) → why its Chinese text is made outside the views
ALLOWED = {
    "brief/daily_brief.py": "the brief's facts: the prompt the model reads, not a screen",
    "conversation/grounding.py": "a refused tool call's reason: a tool result the model reads",
    "account/statement_import.py::closed_problem": "why a statement's row is refused: an error line of the import",
    # The model's tools confirm a note or a trade in the turn (ToolOutcome.notice, `ask --json`
    # notices), outside the views; `/remember`, `/memory accept` and `pixiu trade` show the same line.
    "memory/notes.py::accept_notice": "the tool's note confirmation (shared)",
    "memory/notes.py::note_notice": "the tool's note confirmation",
    "memory/notes.py::_offer_text": "part of the tool's note confirmation",
    "account/trades.py::RecordedTrade.notice": "the tool's trade confirmation",
    "account/trades.py::RecordedTrade.holding_line": "the tool's trade result (holding_after)",
    "account/trades.py::RecordedTrade.fee_words": "part of the tool's trade confirmation",
    "account/overview.py::Held.line": "part of the tool's trade confirmation",
    "memory/alerts.py::AddedAlert.notice": "the tool's alert confirmation (shared with /memory accept)",
    "memory/proposals.py::change_notice": "the tool's proposal line (a tool notice, like note_notice)",
}


def _returns_text(fn: ast.FunctionDef) -> bool:
    annotation = ast.unparse(fn.returns) if fn.returns is not None else ""
    return annotation in {"str", "str | None"}


def _chinese_outside_raise(fn: ast.FunctionDef) -> bool:
    """A Chinese literal in the function's own body, an error it raises and its docstring aside."""
    skipped: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Raise):
            skipped.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda) and node is not fn:
            skipped.update(id(n) for n in ast.walk(node))  # a nested function is looked at on its own
    if ast.get_docstring(fn) is not None:
        skipped.add(id(fn.body[0].value))
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and _CHINESE.search(n.value) and id(n) not in skipped
        for n in ast.walk(fn)
    )


def text_builders(tree: ast.Module) -> list[str]:
    """Qualified names of the functions that return text built with Chinese words."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                if _returns_text(child) and _chinese_outside_raise(child):
                    found.append(prefix + child.name)
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return found


def test_services_return_data_and_views_say_it():
    services = [(path, tree) for path, tree in package_syntax_trees() if path in USE_CASE_MODULES]
    assert len(services) > 20  # the walk reached the services
    found = [f"{path}::{name}" for path, tree in services for name in text_builders(tree)]
    assert [f for f in found if f not in ALLOWED and f.split("::")[0] not in ALLOWED] == []
    # every exception still exists: an allowance outlives nothing it was written for
    assert {k for k in ALLOWED if "::" in k} <= set(found)


def test_a_line_for_the_user_is_told_from_an_error_and_a_lookup():
    source = '''
def notice(p) -> str:
    """已置顶 in a docstring is prose"""
    return f"已置顶 #{p.ref}：{p.text}"
def checked(x) -> str:
    if not x:
        raise RequestError("要记住的内容为空")
    return x.strip()
def kind(x) -> str | None:
    return {"a": "甲"}.get(x)
class Held:
    def line(self, prefix: str = "持仓") -> str:
        return f"{prefix} 100 股"
def data(x) -> dict:
    return {"来源": x}
'''
    assert text_builders(ast.parse(source)) == ["notice", "kind", "Held.line"]
