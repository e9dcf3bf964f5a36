"""sqlite-utils is imported without what pixiu never uses at start-up (kernel/store/__init__.py):
click and dateutil's parser load when first used, the plugin manager is a stand-in that loads
no plugin, its patterns compile when first used, and every feature still works; a later
import of any of them gets the real one."""

from __future__ import annotations

import re
import subprocess
import sys
from types import ModuleType

import pytest

from pixiu_cli.kernel.resources import Deferred, LazyPattern, import_hiding

PROBE = """\
import sys
import pixiu_cli.kernel.store
from pixiu_cli.kernel.store.database import open_database
from pathlib import Path
db = open_database(Path(sys.argv[1]))
db["t"].insert({"a": 1})
print("LOADED", *[m for m in ("click", "dateutil.parser", "pluggy", "sqlite_utils.plugins", "numpy") if m in sys.modules])
import sqlite_utils.recipes, sqlite_utils.utils
assert sqlite_utils.recipes.parsedate("2024-01-02") == "2024-01-02"
assert callable(sqlite_utils.utils.click.progressbar)
import sqlite_utils.plugins
assert type(sqlite_utils.plugins.pm).__name__ == "PluginManager"
import re, sqlite_utils.db
assert type(sqlite_utils.db._virtual_table_using_re).__name__ == "LazyPattern"
assert re.compile("a").__class__ is re.Pattern  # re.compile is itself again
db.execute("create virtual table f using fts5(x)")
assert db["f"].virtual_table_using == "FTS5"
print("USED", *[m for m in ("click", "dateutil.parser", "pluggy") if m in sys.modules])
"""


@pytest.mark.slow  # a fresh interpreter is what is checked: whole suite only
def test_opening_a_database_loads_no_click_dateutil_or_plugins_and_each_works_when_used(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "pixiu.db")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    loaded, used = (line.split()[1:] for line in done.stdout.splitlines())
    assert loaded == []
    assert used == ["click", "dateutil.parser", "pluggy"]


def test_a_deferred_module_is_imported_on_first_use_and_a_stand_in_only_for_the_import(monkeypatch, tmp_path):
    package = tmp_path / "lean_probe"
    package.mkdir()
    (package / "__init__.py").write_text("import lean_probe_dep\nfrom lean_probe_extra import value\n")
    (tmp_path / "lean_probe_dep.py").write_text("LOADED = True\ndef answer():\n    return 42\n")
    (tmp_path / "lean_probe_extra.py").write_text("raise ImportError('the real one is not wanted here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("lean_probe", "lean_probe_dep", "lean_probe_extra"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    extra = ModuleType("lean_probe_extra")
    extra.value = 7
    module = import_hiding("lean_probe", (), {"lean_probe_dep": Deferred("lean_probe_dep"), "lean_probe_extra": extra})
    assert "lean_probe_dep" not in sys.modules and "lean_probe_extra" not in sys.modules
    assert module.lean_probe_dep.answer() == 42  # imported now, and read through the stand-in
    assert sys.modules["lean_probe_dep"].LOADED
    with pytest.raises(ImportError, match="not wanted"):  # after the import: the real module
        __import__("lean_probe_extra")


def test_a_lazy_pattern_compiles_on_first_use_and_matches_as_the_pattern_would():
    lazy = LazyPattern(r"create\s+virtual", re.IGNORECASE)
    assert lazy._compiled is None
    assert lazy.match("CREATE  VIRTUAL table").group() == "CREATE  VIRTUAL"
    assert lazy.pattern == r"create\s+virtual" and lazy.flags & re.IGNORECASE
