"""A service is a use case, not a second name for a store method: no public function in
the use-case modules (`USE_CASE_MODULES`) only passes its arguments on (`return NewsStore(db).listing(symbol, limit)`).
An adapter whose use case is one store or core call makes that call itself; a service
that is called does something of its own (checks, combines, decides)."""

from __future__ import annotations

import ast

from tests.helpers import USE_CASE_MODULES, package_syntax_trees

# A forwarder kept because its name is the use case other code is written against: none.
ALLOWED: dict[str, str] = {}


def _passes_on(node: ast.AST, params: set[str]) -> bool:
    """An argument that is only what came in: a parameter, a part of one, a literal, or a
    store built from parameters (`MarketStore(db)`)."""
    if isinstance(node, ast.Starred):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id in params
    if isinstance(node, ast.Attribute):
        return _passes_on(node.value, params)
    if isinstance(node, ast.Constant):
        return True
    return _builds_from(node, params)


def _builds_from(node: ast.AST, params: set[str]) -> bool:
    """`Store(db, …)`: a class (CapWords) called with only what came in."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id[:1].isupper()
        and all(_passes_on(a, params) for a in [*node.args, *(k.value for k in node.keywords)])
    )


def _receiver(node: ast.AST, params: set[str]) -> bool:
    """What a method is called on, made only of what came in: a name, an attribute of one,
    or a call with only what came in (`MarketStore(db)`, `Market(db).bars`)."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _receiver(node.value, params)
    return _forwards(node, params)


def _forwards(node: ast.AST, params: set[str]) -> bool:
    """A call of a function, or of a method of what came in, with only what came in (a method
    called on what such a call returns forwards too: `….bars()`)."""
    if not isinstance(node, ast.Call):
        return False
    callee_ok = isinstance(node.func, ast.Name) or (
        isinstance(node.func, ast.Attribute) and _receiver(node.func.value, params)
    )
    return callee_ok and all(_passes_on(a, params) for a in [*node.args, *(k.value for k in node.keywords)])


def forwarders(tree: ast.Module) -> list[str]:
    """The public module-level functions whose whole body (a docstring aside) returns a
    forwarding call."""
    found = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name.startswith("_"):
            continue
        body = node.body[1:] if ast.get_docstring(node) is not None else node.body
        args = node.args
        params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        if len(body) == 1 and isinstance(body[0], ast.Return) and _forwards(body[0].value, params):
            found.append(node.name)
    return found


def test_no_service_only_forwards():
    services = [(path, tree) for path, tree in package_syntax_trees() if path in USE_CASE_MODULES]
    assert len(services) > 20  # the walk reached the services
    found = [f"{path}::{name}" for path, tree in services for name in forwarders(tree)]
    assert [f for f in found if f not in ALLOWED] == []


def test_a_forwarder_is_told_from_a_use_case():
    source = '''
def stored_news(db, symbol, limit=20):
    """a docstring does not make it more"""
    return NewsStore(db).listing(symbol, limit)
def bars(db, symbol, adjust):
    return MarketData(db).bars(symbol, adjust, None).bars()
def describe_rule(rule):
    return describe(rule.kind, rule.threshold, rule.symbol)
def fundamentals(db, symbol):
    return read_fundamentals(FundamentalsStore(db), symbol)
def everything(*args, **kwargs):
    return other(*args, **kwargs)
def rules(db):
    return Market(db).analytics.rules()
def watch(db, symbol, now):
    return MarketStore(db).watch(symbol, _stamp(now))
def recent(store, limit, text):
    return store.list_conversations(limit, text or None)
def names(db):
    return sorted({h.symbol for h in InvestorStore(db).holdings()})
def checked(db, symbol):
    if not symbol:
        raise RequestError("空")
    return NewsStore(db).listing(symbol)
def _private(db):
    return NewsStore(db).listing()
'''
    assert forwarders(ast.parse(source)) == [
        "stored_news",
        "bars",
        "describe_rule",
        "fundamentals",
        "everything",
        "rules",
    ]
