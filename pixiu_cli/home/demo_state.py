"""What the demo database looked like after its last refresh, kept in a small file in the
pixiu home, so a later start can tell that refreshing again would change nothing.

A refresh re-dates the shipped demo document to today and recomputes the profiles and
signals of the holdings with shipped bars (which imports numpy and the analytics: most of
a demo start). Its result depends only on the document, the shipped bars, the day, the
pixiu version and what the database held before it. So the refresh is skipped when all of
those are as they were right after the last one: same document and bars (a digest of the
files), same day, same version, and a database whose demo tables hold exactly the rows that
refresh left (a digest of their contents). Anything written since (a note or a trade made in
conversation, an import, an alert rule) changes the digest, and the next start refreshes."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli import __version__
from pixiu_cli.kernel.resources import data_dir, write_private
from pixiu_cli.kernel.store.database import content_digest

if TYPE_CHECKING:
    from sqlite_utils import Database


def shipped_digest(folder: Path) -> str:
    """The demo's shipped files (the document and the bars), by name and content."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\n" + path.read_bytes())
    return digest.hexdigest()


class DemoState:
    def __init__(self, path: Path, db: Database, now: datetime):
        self.path, self.db = path, db

        self.inputs = {
            "version": __version__,
            "day": now.date().isoformat(),
            "shipped": shipped_digest(data_dir() / "demo"),
        }

    def unchanged(self) -> bool:
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if not isinstance(saved, dict) or saved.get("inputs") != self.inputs:
            return False
        return saved.get("tables") == content_digest(self.db)

    def save(self) -> None:
        state = {"inputs": self.inputs, "tables": content_digest(self.db)}
        try:
            write_private(self.path, json.dumps(state).encode("utf-8"))
        except OSError:
            pass  # e.g. a read-only home: the next start simply refreshes again
