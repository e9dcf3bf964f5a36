"""The only place SQL lives: the schema, the repositories and the one SQLite file.

sqlite-utils imports numpy and pandas at import time when they are installed, to map their
value types; pixiu never hands it either, and numpy alone would add a large share of every
pixiu process's start-up. So sqlite-utils is loaded here, before any store module needs it,
with both hidden; analytics imports numpy itself, later, only when it computes.

It also imports click (its progress bars) and dateutil's parser (its date recipes), which
it uses only in functions pixiu does not call, and its plugin manager (pluggy, and click
again), which pixiu never runs: every Database is opened with `execute_plugins=False`
(store/database.py). The first two are deferred until used; the manager is a stand-in that
loads no plugin, for a Database opened with plugins on too; and the four patterns it
compiles at its top are compiled when first used (one takes ~10 ms). Together about a
third of importing sqlite-utils."""

import importlib
from types import ModuleType, SimpleNamespace

from pixiu_cli.kernel.resources import Deferred as _Deferred
from pixiu_cli.kernel.resources import import_hiding as _import_hiding


def _no_plugins() -> dict[str, ModuleType]:
    """Stand-ins for sqlite-utils' plugin modules: a manager that loads no plugin, and its
    hook markers (for plugins, which pixiu has none of) taken from the real module if called."""
    plugins = ModuleType("sqlite_utils.plugins", "sqlite-utils' plugin manager, with no plugin loaded")
    plugins.pm = SimpleNamespace(hook=SimpleNamespace(prepare_connection=lambda conn: []))
    plugins.ensure_plugins_loaded = lambda: None
    hookspecs = ModuleType("sqlite_utils.hookspecs", "sqlite-utils' hook markers, read when first called")
    for name in ("hookimpl", "hookspec"):
        setattr(hookspecs, name, _marker(name))
    return {"sqlite_utils.plugins": plugins, "sqlite_utils.hookspecs": hookspecs}


def _marker(name: str):
    def mark(*args, **kwargs):

        return getattr(importlib.import_module("sqlite_utils.hookspecs"), name)(*args, **kwargs)

    return mark


_import_hiding(
    "sqlite_utils",
    ("numpy", "pandas"),
    {"click": _Deferred("click"), "dateutil.parser": _Deferred("dateutil.parser"), **_no_plugins()},
    lazy_patterns=True,
)
