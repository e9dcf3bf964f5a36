"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

from pixiu_cli.conversation import commands_repl as repl_own

DECLARED = (*repl_own.DECLARED,)
