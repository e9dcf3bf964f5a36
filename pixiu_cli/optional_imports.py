"""Importing a third-party package without some module it would pull in and pixiu never uses.

A library may import an optional extra at import time that pixiu never uses (sqlite-utils:
numpy and pandas, to map their value types; jieba: pkg_resources, to find one file). Each
such module not yet imported is made unimportable while the library is imported, so the
library takes the path it takes where the extra is not installed, and is then put back.

A library may also import, at its top, a module it uses only inside functions pixiu does not
call (sqlite-utils: click for its progress bars, dateutil's parser for its date recipes), or
one that only serves a feature pixiu turns off (sqlite-utils' plugin manager, which imports
pluggy and click; pixiu opens every Database with `execute_plugins=False`). Such a module is
given a stand-in while the library is imported: a `Deferred` one imports the real module on
first use and forwards to it, so it costs nothing until then and works as usual after.
Either stand-in is in sys.modules during that import only, so any later import of the name
gets the real module."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from types import ModuleType


class Deferred(ModuleType):
    """A stand-in for the module `name`: the real one is imported on the first attribute
    the stand-in lacks, and the attribute read from it."""

    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # what the import system probes (__spec__, __path__): absent
            raise AttributeError(attr)
        if sys.modules.get(self.__name__) is self:  # used while it still stands in
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


def import_hiding(module: str, hidden: Iterable[str], stand_ins: Mapping[str, ModuleType] | None = None) -> ModuleType:
    """`import module`, with each of `hidden` that is not imported yet unimportable meanwhile,
    and each of `stand_ins` (name → module) not imported yet in place of the real one."""
    if module in sys.modules:
        return sys.modules[module]
    blocked = [name for name in hidden if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` fails fast
    standing = {name: stand_in for name, stand_in in (stand_ins or {}).items() if name not in sys.modules}
    sys.modules.update(standing)
    try:
        return importlib.import_module(module)
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
        for name, stand_in in standing.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
