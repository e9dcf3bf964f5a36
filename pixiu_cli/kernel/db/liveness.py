"""Which process owns a pending turn, and whether it is still running.

A turn stays 'pending' while its process streams the reply. When a conversation is
reopened (`--continue`, `--resume`, `/resume`), only the pending turns of processes that
are gone were cut off; a turn another pixiu process is still answering must be left alone.
WAL needs every process on the same host, so a process id (with its start time where
/proc has it, against pid reuse) identifies the owner.
"""

from __future__ import annotations

import os
from pathlib import Path

_PROC = Path("/proc")


def process_start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot; None if it is gone, a zombie,
    or there is no /proc."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state is field 3, starttime 22
    if not fields or fields[0] in ("Z", "X"):
        return None
    return fields[19] if len(fields) > 19 else None


def this_process() -> str:
    pid = os.getpid()
    return f"{pid}:{process_start_time(pid) or ''}"


def owned_by_another_live_process(owner: str | None) -> bool:
    """False for no owner (rows from before owners were recorded), for this process (it
    asks only about a turn it has abandoned itself) and for a process that has exited."""
    if not owner or os.name == "nt":  # os.kill(pid, 0) would terminate the process on Windows
        return False
    pid_text, _, started = owner.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, belongs to someone else
    except OSError:
        return False
    if _PROC.is_dir():
        current = process_start_time(pid)
        return current is not None and (not started or current == started)
    return True
