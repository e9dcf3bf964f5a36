"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

DECLARED = ()
