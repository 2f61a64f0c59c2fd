"""A run's scratch folders, made fresh and removed after it whatever it left there: a tree
nested thousands deep, folders it made unreadable or unwritable, links to files outside. The
removal goes down and up the tree one folder at a time (no recursion, one descriptor open at
a time), never follows a link, never leaves the tree's file system, and changes permissions
only of folders inside the tree that this user owns, never through a link."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""How every folder of the tree is opened: never through a link, never waiting."""


@contextlib.contextmanager
def folder(prefix: str) -> Iterator[Path]:
    """A fresh, private temporary folder, removed (see remove) when the block ends."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        remove(path)


def remove(path: Path | str) -> None:
    """Remove path (a link itself, not what it points to) and everything under it; OSError
    naming the first thing that could not be removed, once all the rest is gone."""
    head, name = os.path.split(os.path.abspath(path))
    parent = os.open(head, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _Removal(parent).remove(name)
    finally:
        os.close(parent)


@dataclass
class _Folder:
    """A folder on the way down: its name in its parent, its identity, its folders left."""

    name: str
    identity: tuple[int, int]
    left: list[str] = field(default_factory=list)


class _Removal:
    """One removal under a parent folder: the first error kept, the rest carried on."""

    def __init__(self, parent: int):
        self.parent = parent
        self.error: OSError | None = None

    def remove(self, name: str) -> None:
        try:
            info = os.stat(name, dir_fd=self.parent, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(info.st_mode):
            self._tree(name, info.st_dev)
        else:
            self._unlink(self.parent, name)
        if self.error is not None:
            raise self.error

    def _tree(self, name: str, device: int) -> None:
        """Empty the folder name, deepest folders first, then remove it."""
        fd = self._open(self.parent, name)
        if fd is None:
            return
        path = [_Folder(name, _identity(fd), self._empty(fd))]
        try:
            while True:
                here = path[-1]
                if here.left:
                    below = here.left.pop()
                    child = self._open(fd, below)
                    if child is None:
                        continue
                    identity = _identity(child)
                    if identity[0] != device:  # a mount point: never cross it
                        os.close(child)
                        self._keep(OSError(f"a mount point lies inside {name}"))
                        continue
                    os.close(fd)
                    fd = child
                    path.append(_Folder(below, identity, self._empty(fd)))
                    continue
                path.pop()
                if not path:
                    break
                up = os.open("..", FOLDER, dir_fd=fd)
                if _identity(up) != path[-1].identity:
                    os.close(up)
                    raise OSError(f"{name} changed while it was being removed")
                os.close(fd)
                fd = up
                self._rmdir(fd, here.name)
        finally:
            os.close(fd)
        self._rmdir(self.parent, name)

    def _empty(self, fd: int) -> list[str]:
        """Remove every entry of the folder that is not a folder; the names of its folders."""
        folders = []
        try:
            _owned(fd)
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.name)
                    else:
                        self._unlink(fd, entry.name)
        except OSError as exc:
            self._keep(exc)
        return folders

    def _open(self, parent: int, name: str) -> int | None:
        """The folder name in parent, opened (made readable first if it is ours)."""
        try:
            return os.open(name, FOLDER, dir_fd=parent)
        except PermissionError:
            with contextlib.suppress(OSError):
                _chmod_folder(parent, name)
        except OSError as exc:
            self._keep(exc)
            return None
        try:
            return os.open(name, FOLDER, dir_fd=parent)
        except OSError as exc:
            self._keep(exc)
            return None

    def _unlink(self, parent: int, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            try:
                os.unlink(name, dir_fd=parent)
            except OSError as exc:
                self._keep(exc)

    def _rmdir(self, parent: int, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            try:
                os.rmdir(name, dir_fd=parent)
            except OSError as exc:
                self._keep(exc)

    def _keep(self, exc: OSError) -> None:
        self.error = self.error or exc


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _owned(fd: int) -> None:
    """Give an open folder of ours its owner's full permissions, so that its entries can be
    listed and removed (a folder is changed through its own descriptor, never a path)."""
    info = os.fstat(fd)
    if info.st_uid == os.geteuid() and info.st_mode & 0o700 != 0o700:
        os.fchmod(fd, stat.S_IMODE(info.st_mode) | 0o700)


def _chmod_folder(parent: int, name: str) -> None:
    """Make the folder name in parent (ours, and not a link) openable: through a descriptor
    that does not follow links where the system has one (O_PATH), else by name without
    following one."""
    if not hasattr(os, "O_PATH"):
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            os.chmod(name, 0o700, dir_fd=parent, follow_symlinks=False)
        return
    fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(info.st_mode) | 0o700)
    finally:
        os.close(fd)
