"""The test cases every run of an exercise must report passing: those that its reference
solution's run reports, counted once per exercise and harness (by `benchmark --prepare` or on
first use) and kept in the prepared cache, keyed by the exercise's files and the language's
test commands, so that a changed exercise or harness counts them anew."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from exercism.exercise import Exercise
from exercism.language import Expected, Language

VERSION = 1
"""Raised when what the runners report changes: every count is then made anew."""
FOLDER = "expected"
"""Under the prepared cache, a folder per language."""

_memory: dict[str, Expected] = {}
_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def expected(
    exercise: Exercise, language: Language, cache: Path, count: Callable[[], Expected]
) -> Expected:
    """The exercise's expected tests: kept in cache, else counted by count() (a run of the
    reference solution, which raises when it does not pass) and kept, in memory at least."""
    key = _key(exercise, language)
    path = cache / FOLDER / language.name / f"{exercise.name}-{key[:16]}.json"
    with _lock(key):
        found = _memory.get(key) or _load(path)
        if found is None:
            found = count()
            _store(path, found)
        _memory[key] = found
        return found


def _key(exercise: Exercise, language: Language) -> str:
    """A hash of the exercise's files (its reference solution among them) and of how the
    language runs and reports its tests."""
    digest = hashlib.sha256(f"{VERSION}\n{language.name}\n".encode())
    digest.update(repr((language.steps, language.env, language.report)).encode())
    for path in sorted(exercise.folder.rglob("*")):
        relative = path.relative_to(exercise.folder).as_posix()
        if relative.startswith(".docs") or not path.is_file():
            continue
        digest.update(f"\0{relative}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@contextlib.contextmanager
def _lock(key: str):
    """One count of an exercise at a time in this process (threads run exercises at once)."""
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        yield


def _load(path: Path) -> Expected | None:
    """The count kept at path; None when there is none or it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        passed, skipped = data["passed"], data["skipped"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    counts_ok = isinstance(passed, dict) and all(
        isinstance(k, str) and isinstance(v, int) and v > 0 for k, v in passed.items()
    )
    if not counts_ok or not isinstance(skipped, list):
        return None
    return Expected(dict(passed), frozenset(str(name) for name in skipped))


def _store(path: Path, found: Expected) -> None:
    """Kept at path, written whole or not at all; a cache that cannot be written keeps it in
    memory only (it is counted again by the next process)."""
    data = {"passed": dict(found.passed), "skipped": sorted(found.skipped)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".part-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(part, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(part)
