"""The tags of the repository's files, kept between runs in a sqlite file at its root.

Each file's tags are valid while its path, modification time and size are unchanged. The cache
is only ever a shortcut: a file that is not a database, is damaged, was written under other
queries or by another version of coder is replaced by an empty cache; a database another coder
holds locked is left alone and the tags are not saved this time. A cache that is a symlink
or not a regular file is left alone and not used: sqlite would write through a symlink, to
wherever a cloned repository points it. It never raises.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from coder.repomap import queries
from coder.repomap.tags import FileTags, dumps, loads

CACHE_NAME = ".coder.tags.cache"
"""The cache's file name at the repository root."""
CACHE_FILES = (CACHE_NAME, f"{CACHE_NAME}-journal")
"""The cache and the journal sqlite keeps beside it while it writes."""

FORMAT = 2
"""The layout of the tables and of what tags.extract records; raise it when either changes
(a change of the queries changes VERSION by itself)."""
VERSION = f"{FORMAT}:{queries.VERSION}"

Stamp = tuple[int, int]
"""A file's modification time in nanoseconds and its size in bytes."""
Entry = tuple[Stamp, FileTags]

_WAIT = 0.5
"""Seconds to wait for another coder's lock on the cache before giving up on it."""


class TagsCache:
    """The tags cache in the file at path; opened at first use."""

    def __init__(self, path: Path):
        self.path = path
        self._db: sqlite3.Connection | None = None

    def load(self) -> dict[str, Entry]:
        """Every file's cached stamp and tags; empty when there is no usable cache."""
        db = self._open()
        if db is None:
            return {}
        try:
            rows = db.execute("SELECT path, mtime, size, data FROM tags").fetchall()
        except sqlite3.OperationalError:  # locked, most likely: do without it this time
            return {}
        except sqlite3.DatabaseError:
            self._reset()
            return {}
        found = {}
        # A row that is not what dumps wrote is left out; a file in a cloned repository can
        # hold anything (JSON nested past the recursion limit, a number too large for int).
        damaged = (ValueError, TypeError, KeyError, AttributeError, ArithmeticError, RecursionError)
        for path, mtime, size, data in rows:
            with contextlib.suppress(*damaged):
                found[path] = ((mtime, size), loads(data))
        return found

    def save(self, entries: Mapping[str, Entry], gone: Iterable[str] = ()) -> None:
        """Store the tags of entries and forget the files in gone; nothing when it cannot."""
        db = self._open()
        if db is None:
            return
        rows = [(p, s[0], s[1], dumps(t)) for p, (s, t) in entries.items()]
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO tags VALUES (?, ?, ?, ?)", rows)
                db.executemany("DELETE FROM tags WHERE path = ?", [(p,) for p in gone])
        except sqlite3.OperationalError:  # locked by another coder, or the disk is full
            return
        except sqlite3.DatabaseError:
            self._reset()

    def close(self) -> None:
        """Close the database (it is opened again when next used)."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def _open(self) -> sqlite3.Connection | None:
        """The open database with the current tables, or None when it cannot be used now."""
        if self._db is not None:
            return self._db
        if not _plain_or_missing(self.path):
            return None
        try:
            db = sqlite3.connect(self.path, timeout=_WAIT)
        except (sqlite3.Error, OSError):
            return None
        try:
            if _version(db) != VERSION:
                _create(db)
        except sqlite3.OperationalError:  # locked, or the folder cannot be written
            db.close()
            return None
        except sqlite3.DatabaseError:  # not a database, or a damaged one
            db.close()
            return self._reset()
        self._db = db
        return db

    def _reset(self) -> sqlite3.Connection | None:
        """Replace the file with an empty cache; None when that fails too."""
        self.close()
        try:
            for name in CACHE_FILES:
                self.path.with_name(name).unlink(missing_ok=True)
            db = sqlite3.connect(self.path, timeout=_WAIT)
        except (sqlite3.Error, OSError):
            return None
        try:
            _create(db)
        except sqlite3.Error:
            db.close()
            return None
        self._db = db
        return db


def _plain_or_missing(path: Path) -> bool:
    """True when path is a regular file (not a symlink to one) or nothing at all."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _version(db: sqlite3.Connection) -> str | None:
    """The version the cache was written under; None for an empty or foreign database."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return row[0] if row else None


def _create(db: sqlite3.Connection) -> None:
    """Empty tables for this version, replacing whatever the database held."""
    with db:
        db.execute("DROP TABLE IF EXISTS tags")
        db.execute("DROP TABLE IF EXISTS meta")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute(
            "CREATE TABLE tags (path TEXT PRIMARY KEY, mtime INTEGER, size INTEGER, data TEXT)"
        )
        db.execute("INSERT INTO meta VALUES ('version', ?)", (VERSION,))
