"""app.py is the only wiring: outside store/, app.py and the areas' handles (each builds its own
stores, and is handed the other areas' handles by app.py) no module builds a store, no service takes an untyped
database, the product hands every store and builder the app's clock, and sqlite-utils is
imported at run time only behind pixiu_cli.kernel.store (which hides numpy and pandas from it)."""

from __future__ import annotations

import ast

from tests.helpers import USE_CASE_MODULES, is_store_module, package_syntax_trees, walked

WIRING = "app.py"
# The areas' handles (ws.account, ws.home, ...): each builds its area's stores over the
# workspace's database, once per workspace (app.py hands one handle to another).
HANDLES = {
    "account/books.py",
    "account/handle.py",
    "brief/handle.py",
    "home/handle.py",
    "market/handle.py",
    "memory/handle.py",
}
# Where a store is still built outside the wiring, and why.
OWN_STORE = {
    # the explaining worker thread's own connection per database, and one turn of a stored brief
    # read back (the conversations' store needs a clock; neither stamps anything)
    "conversation/handle.py",
    "evals/contexts.py",  # each case's own database, clock and limits
    "evals/answers.py",  # the runs kept in the home's database: the evals' own store
    "mcp/reads.py",  # the MCP surface's own log of calls (no area's handle hands it out)
}


def _store_classes() -> set[str]:
    """Every class in store/ whose constructor takes the database."""
    names = set()
    for path, tree in package_syntax_trees():
        if not is_store_module(path):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                if init and [a.arg for a in init.args.args[1:2]] == ["db"]:
                    names.add(node.name)
    return names


def _calls(tree: ast.Module, names: set[str]) -> list[ast.Call]:
    return [
        node
        for node in walked(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
    ]


def store_constructions() -> dict[str, int]:
    """Module -> how many stores it builds (outside store/)."""
    classes = _store_classes()
    found = {}
    for path, tree in package_syntax_trees():
        if not is_store_module(path) and (calls := _calls(tree, classes)):
            found[path] = len(calls)
    return found


def test_the_scan_knows_the_stores():
    assert {"InvestorStore", "MarketStore", "SecurityMaster", "ConversationStore", "PushLog"} <= _store_classes()


def test_no_module_but_the_wiring_builds_a_store():
    """Stores were built ad hoc 130 times in 43 modules besides app.py (each throwing away, for one, the
    InvestorStore's memo of the portfolio)."""
    built = store_constructions()
    assert set(built) - {WIRING} - HANDLES == OWN_STORE, sorted(set(built) - {WIRING} - HANDLES - OWN_STORE)
    assert sum(built[path] for path in OWN_STORE) == 6


def test_the_workspace_hands_one_home_and_one_market_to_every_handle(tmp_path, monkeypatch):
    """One InvestorStore per workspace (it keeps its memo of the portfolio): the account and
    the brief read the home and the market the workspace hands out, not stores of their own."""
    from pixiu_cli.app import load_settings, open_workspace

    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    ws = open_workspace(load_settings(force_offline=True, home=tmp_path))
    try:
        assert ws.account.home is ws.home and ws.account.market is ws.market
        assert ws.brief.account is ws.account and ws.brief.home.investor is ws.home.investor
        assert ws.account.home.investor.db is ws.db
        assert ws.market.home is ws.home
        assert (ws.memory.home, ws.memory.market, ws.memory.account) == (ws.home, ws.market, ws.account)
    finally:
        ws.close()


def test_no_service_takes_an_untyped_database():
    """84 functions and methods of services/ took `db` with no type (a5b5ad5)."""
    untyped = [
        f"{path}:{node.name}"
        for path, tree in package_syntax_trees()
        if path in USE_CASE_MODULES
        for node in walked(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        if arg.arg == "db" and arg.annotation is None
    ]
    assert untyped == []


# Calls whose clock defaults to the machine's (for tests): the product always hands its own.
_CLOCKED = {"ConversationStore": "clock", "ContextBuilder": "clock", "import_csv": "today", "parse_bars": "today"}
_CLOCK_EXEMPT = {"conversation/handle.py"}  # a worker's store and one read: they stamp nothing


def test_the_product_hands_every_store_and_builder_the_apps_clock():
    missing = [
        f"{path}:{call.lineno}"
        for path, tree in package_syntax_trees()
        if path not in _CLOCK_EXEMPT
        for call in _calls(tree, set(_CLOCKED))
        if _CLOCKED[call.func.id] not in {k.arg for k in call.keywords} and len(call.args) < 2
    ]
    assert missing == []


def test_sqlite_utils_is_imported_at_run_time_only_behind_the_store_package():
    """Imported first, sqlite-utils imports numpy and pandas (kernel/store/__init__.py hides them):
    `pixiu data status` loaded 847 modules through market/data.py."""
    found = []
    for path, tree in package_syntax_trees():
        if path.startswith("kernel/store/"):
            continue
        guarded = {
            id(node)
            for block in walked(tree)
            if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
            for node in ast.walk(block)
        }
        found += [
            f"{path}:{node.lineno}"
            for node in walked(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            and id(node) not in guarded
            and any(
                (getattr(node, "module", None) or alias.name).split(".")[0] == "sqlite_utils" for alias in node.names
            )
        ]
    assert found == []


def test_the_agent_reads_one_home_market_and_account(tmp_path):
    """The context block, the tools and the app's handles share the agent's InvestorStore."""
    from tests.helpers import offline_repl

    with offline_repl(tmp_path) as (state, _):
        app = state.app
        tools = app.agent.tool_context
        assert app.home.investor is app.builder.domain and app.market.home is app.home
        assert tools.memory is app.memory and tools.account is app.account is app.builder.account
        assert (app.memory.home, app.memory.market) == (app.home, app.market)
