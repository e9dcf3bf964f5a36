"""The only place SQL lives: the schema, the repositories and the one SQLite file.

sqlite-utils imports numpy and pandas at import time when they are installed, to map their
value types; pixiu never hands it either, and numpy alone would add a large share of every
pixiu process's start-up. So sqlite-utils is loaded here, before any store module needs it,
with both hidden; analytics imports numpy itself, later, only when it computes."""

from pixiu_cli.optional_imports import import_hiding as _import_hiding

_import_hiding("sqlite_utils", ("numpy", "pandas"))
