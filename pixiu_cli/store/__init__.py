"""The only place SQL lives: the schema, the repositories and the one SQLite file.

sqlite-utils imports numpy and pandas at import time when they are installed, to map their
value types; pixiu never hands it either, and numpy alone would add a large share of every
pixiu process's start-up. So sqlite-utils is loaded here, before any store module needs it,
with both hidden; analytics imports numpy itself, later, only when it computes."""

import sys as _sys


def _load_sqlite_utils_without_dataframes() -> None:
    if "sqlite_utils" in _sys.modules:
        return
    hidden = [name for name in ("numpy", "pandas") if name not in _sys.modules]
    for name in hidden:
        _sys.modules[name] = None  # makes `import numpy` fail fast inside sqlite-utils
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            if name in _sys.modules and _sys.modules[name] is None:
                del _sys.modules[name]


_load_sqlite_utils_without_dataframes()
