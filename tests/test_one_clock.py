"""One wall clock: nothing in the product reads the time but pixiu_cli/kernel/clock.py, so PIXIU_NOW
(read by the settings only, turned into the app's clock by app.clock_of) reaches every
surface. A sixth clock — datetime.now(), date.today(), time.time(), SQLite's 'now' —
anywhere else fails here; time.monotonic (durations, deadlines) is no wall clock."""

from __future__ import annotations

import ast
import re

from tests.helpers import package_syntax_trees, walked

CLOCK_MODULE = "kernel/clock.py"
SETTINGS_MODULE = "kernel/settings.py"
_MOMENT_METHODS = {"now", "utcnow", "today"}
_MOMENT_CLASSES = {"datetime", "date", "Timestamp"}
_TIME_READS = {"time", "time_ns", "localtime", "gmtime", "ctime", "asctime", "strftime", "clock_gettime"}
_EMAIL_READS = {"formatdate", "localtime"}
_PARSED_MOMENTS = {"datetime64", "Timestamp", "to_datetime"}  # numpy and pandas read "now" and "today"
_SQL_CLOCK = re.compile(r"'now'|\bcurrent_(?:timestamp|date|time)\b", re.IGNORECASE)


def _aliases(tree: ast.Module) -> tuple[set[str], set[str], set[str]]:
    """The local names of the datetime classes, of the time module and of time's readers."""
    classes, time_modules, readers = set(_MOMENT_CLASSES), {"time"}, set()
    for node in walked(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("datetime", "pandas"):
            classes |= {a.asname or a.name for a in node.names if a.name in _MOMENT_CLASSES}
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            readers |= {a.asname or a.name for a in node.names if a.name in _TIME_READS}
        elif isinstance(node, ast.Import):
            time_modules |= {a.asname for a in node.names if a.name == "time" and a.asname}
    return classes, time_modules, readers


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _reads_the_clock(node: ast.AST, classes: set[str], time_modules: set[str], readers: set[str]) -> bool:
    if isinstance(node, ast.Attribute):
        owner = _last_name(node.value)
        if node.attr in _MOMENT_METHODS and owner in classes:
            return True  # datetime.now, date.today, datetime.datetime.utcnow, pd.Timestamp.now
        if node.attr in _TIME_READS and isinstance(node.value, ast.Name) and node.value.id in time_modules:
            return True  # time.time, also passed uncalled (a default clock=time.time)
        if node.attr in _EMAIL_READS and owner == "utils":
            return True  # email.utils.formatdate() / localtime(): the machine's time
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in readers:
        return True  # `from time import time` then time()
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL_CLOCK.search(node.value):
        return True  # SQLite's clock: strftime('%s', 'now'), CURRENT_TIMESTAMP
    if isinstance(node, ast.Call) and _last_name(node.func) in _PARSED_MOMENTS:
        said = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        return any(text.strip().lower() in ("now", "today") for text in said)  # np.datetime64("now")
    return False


def wall_clock_reads(tree: ast.Module) -> list[int]:
    """Line numbers where `tree` reads the wall clock itself."""
    classes, time_modules, readers = _aliases(tree)
    return sorted({node.lineno for node in walked(tree) if _reads_the_clock(node, classes, time_modules, readers)})


def test_only_the_clock_module_reads_the_wall_clock():
    found = {
        path: lines
        for path, tree in package_syntax_trees()
        if path != CLOCK_MODULE and (lines := wall_clock_reads(tree))
    }
    assert found == {}, f"wall-clock reads outside pixiu_cli/{CLOCK_MODULE} (take the app's clock): {found}"


def test_the_clock_module_is_where_the_time_is_read():
    trees = dict(package_syntax_trees())
    assert wall_clock_reads(trees[CLOCK_MODULE])  # the scan sees the real reads it allows


def test_only_the_settings_read_pixiu_now():
    readers = {
        path
        for path, tree in package_syntax_trees()
        for node in walked(tree)
        if isinstance(node, ast.Constant) and node.value == "PIXIU_NOW"
    }
    assert readers == {SETTINGS_MODULE}


def test_the_scan_catches_each_way_of_reading_the_clock():
    caught = [
        "from datetime import datetime\nx = datetime.now()",
        "import datetime\nx = datetime.datetime.utcnow()",
        "from datetime import date as d\nx = d.today()",
        "import time\nx = time.time()",
        "import time as t\nx = t.time_ns()",
        "import time\nclock = time.time",
        "from time import time\nx = time()",
        "from time import strftime\nx = strftime('%Y')",
        "import time\nname = time.strftime('%Y%m%d')",
        "import email.utils\nx = email.utils.formatdate()",
        "db.execute(\"select strftime('%s', 'now')\")",
        "db.execute('insert into t values (CURRENT_TIMESTAMP)')",
        "import numpy as np\nx = np.datetime64('now')",
        "import pandas as pd\nx = pd.Timestamp.now()",
    ]
    missed = [source for source in caught if not wall_clock_reads(ast.parse(source))]
    assert missed == []
    allowed = [
        "import time\nstart = time.monotonic()\ntime.sleep(1)\nx = time.perf_counter()",
        "x = ctx.now()\ny = self.clock()\nz = state.clock().date()",
        "from datetime import datetime\nx = datetime.fromisoformat('2026-03-02T10:00')",
        "text = '现在 now 几点'",
        "x = raw['now']\ntotals = {'today': 1}",
    ]
    assert [source for source in allowed if wall_clock_reads(ast.parse(source))] == []
