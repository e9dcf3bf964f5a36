"""Importing a third-party package without some optional module it would pull in.

A library may import an optional extra at import time that pixiu never uses (sqlite-utils:
numpy and pandas, to map their value types). Each such module not yet imported is made
unimportable while the library is imported, so the library takes the path it takes where the
extra is not installed, and is then put back."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from types import ModuleType


def import_hiding(module: str, hidden: Iterable[str]) -> ModuleType:
    """`import module`, with each of `hidden` that is not imported yet unimportable meanwhile."""
    if module in sys.modules:
        return sys.modules[module]
    blocked = [name for name in hidden if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` fails fast
    try:
        return importlib.import_module(module)
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
