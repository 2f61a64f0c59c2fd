"""File names on a git command line: in groups short enough for it, or in a file git reads
them from; and a few of them named in a commit message."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

ARGS_LIMIT = 60_000
"""Bytes of paths put on one git command line (systems allow 128 KB per argument list or more)."""


def listed(names: list[str], most: int = 4) -> str:
    """Names for a commit message: the first few, and how many more."""
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


@contextlib.contextmanager
def pathspec(paths: list[str]) -> Iterator[list[str]]:
    """The arguments that give git these paths: on the command line, or, when they are too
    many or too long for it, in a NUL-separated file (--pathspec-from-file)."""
    if sum(len(p) + 1 for p in paths) < ARGS_LIMIT:
        yield ["--", *paths]
        return
    with tempfile.NamedTemporaryFile("wb", prefix="coder-paths-", delete=False) as handle:
        handle.write(b"".join(os.fsencode(p) + b"\0" for p in paths))
    try:
        yield [f"--pathspec-from-file={handle.name}", "--pathspec-file-nul"]
    finally:
        os.unlink(handle.name)


def chunks(paths: list[str]) -> Iterator[list[str]]:
    """paths in groups short enough for one command line."""
    group: list[str] = []
    size = 0
    for path in paths:
        if group and size + len(path) + 1 > ARGS_LIMIT:
            yield group
            group, size = [], 0
        group.append(path)
        size += len(path) + 1
    if group:
        yield group
