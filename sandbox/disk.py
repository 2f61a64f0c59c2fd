"""How much a run has written: the bytes and the files in its writable places together, watched
while it runs. A folder of the host (the run's own) is walked without following links, at most
as often as keeps the walk a small share of the time; a file system of the sandbox's own (a
tmpfs at /tmp or /dev/shm) is asked for its usage, which costs nothing."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.base import Limits

SHARE = 0.1
"""The share of the time spent walking the run's folders, at most."""
BLOCK = 512
"""Bytes of the unit st_blocks counts in."""
MAX_DEPTH = 256
"""Folders nested deeper than this count as passing the limit on files: no build nests so deep,
and a path that long could no longer be opened from the top (PATH_MAX)."""
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class Written:
    """What lies in a run's writable places."""

    bytes: int
    """Bytes of disk (or memory) the files take, links and sparse holes not counted twice."""
    files: int
    """Files, folders, links and the like."""
    deep: bool = False
    """Whether a folder lies deeper than MAX_DEPTH."""

    def __add__(self, other: Written) -> Written:
        deep = self.deep or other.deep
        return Written(self.bytes + other.bytes, self.files + other.files, deep)

    def __sub__(self, other: Written) -> Written:
        return Written(self.bytes - other.bytes, self.files - other.files, self.deep)


def walked(folder: Path, most: Written | None = None) -> Written:
    """What lies under folder, walked one folder at a time, each opened from the top without
    following a link and checked to be the folder that was listed (the run may be moving
    them); the walk stops, with what it found so far, once it finds more than most, or a
    folder deeper than MAX_DEPTH."""
    try:
        top = os.open(folder, FOLDER)
    except OSError:
        return Written(0, 0)
    seen: set[tuple[int, int]] = set()
    total, files, deep = 0, 0, False
    todo = [("", _identity(top), 0)]
    while todo and not deep and not _over(total, files, most):
        name, identity, depth = todo.pop()
        try:
            fd = os.open(name, FOLDER, dir_fd=top) if name else top
        except OSError:
            continue
        try:
            if _identity(fd) != identity:
                continue
            with os.scandir(fd) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    files += 1
                    if (info.st_dev, info.st_ino) not in seen:
                        seen.add((info.st_dev, info.st_ino))
                        total += info.st_blocks * BLOCK
                    if stat.S_ISDIR(info.st_mode):
                        deep = depth >= MAX_DEPTH
                        below = os.path.join(name, entry.name)
                        todo.append((below, (info.st_dev, info.st_ino), depth + 1))
                    if deep or _over(total, files, most):
                        break
        except OSError:
            continue
        finally:
            if fd != top:
                os.close(fd)
    os.close(top)
    return Written(total, files, deep)


def _over(total: int, files: int, most: Written | None) -> bool:
    return most is not None and (total > most.bytes or files > most.files)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def mounted(path: str, size: int) -> Written | None:
    """What a file system of the sandbox's own holds (statvfs), if path is it: one of the size
    asked for (the path shows the host's own until the sandbox has mounted it); else None."""
    try:
        info = os.statvfs(path)
    except OSError:
        return None
    if info.f_blocks * info.f_frsize != size:
        return None
    used = (info.f_blocks - info.f_bfree) * info.f_frsize
    return Written(used, info.f_files - info.f_ffree)


class Watch:
    """A run's writes, checked against its limits on bytes and files: its folders walked, and
    the sandbox's own file systems (see mounted) asked, each time it is due."""

    def __init__(
        self,
        folders: Sequence[Path],
        limits: Limits,
        mounts: Callable[[int], list[Written]] = lambda pid: [],
    ):
        self.folders = list(folders)
        self.mounts = mounts
        self.most = Written(limits.disk, limits.files)
        self.before = self._walk(None)
        """What the folders held before the run (the harness's copy): not the run's."""
        self.due = 0.0

    def exceeded(self, pid: int) -> str | None:
        """ "disk" or "files" once the run (whose first process is pid) has written more than
        its limits allow, else None; walks the folders only when due."""
        now = time.monotonic()
        if now < self.due:
            return None
        mounts = sum(self.mounts(pid), Written(0, 0))
        room = self.most + self.before - mounts
        written = self._walk(room) + mounts - self.before
        self.due = time.monotonic() + (time.monotonic() - now) / SHARE
        if written.bytes > self.most.bytes:
            return "disk"
        if written.files > self.most.files or written.deep:
            return "files"
        return None

    def _walk(self, most: Written | None) -> Written:
        return sum((walked(folder, most) for folder in self.folders), Written(0, 0))
