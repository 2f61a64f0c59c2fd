"""A user of the run's own, for the fallback sandbox when it runs as root: an unused uid (its
group the same number), given the run's folder and nothing else; the limit on tasks counts its
processes and threads alone, and at the end every process of it is killed, wherever it went,
and its files in the machine's shared temporary folders are removed."""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import random
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from sandbox import scratch

FIRST, LAST = 40_000, 59_999
"""Where the run's users are taken from: inside the 65,536 ids a container maps, below the
range systemd gives its dynamic users, above the ones people are given."""
SHARED_TEMP = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
"""Folders every user may write, where a run can leave files behind it (or memory, in a tmpfs)."""

_taken: set[int] = set()
_lock = threading.Lock()


class RunUser:
    """One run's user: taken with take(), given back with give_back() once nothing of it runs."""

    def __init__(self, uid: int):
        self.uid = uid

    @classmethod
    def take(cls) -> RunUser:
        """An id no account, group or process of this machine uses, nor another run of this
        process."""
        with _lock:
            running = _running_uids()
            for _ in range(1000):
                uid = random.randint(FIRST, LAST)
                if uid not in _taken and uid not in running and not _named(uid):
                    _taken.add(uid)
                    return cls(uid)
        raise OSError("no unused user id is left for the run")

    def give(self, folder: Path) -> None:
        """Make folder (and everything in it) the user's own, closed to every other user but
        root; the folders above it need only let it pass (x), which its caller sees to."""
        for path in [folder, *_tree(folder)]:
            os.lchown(path, self.uid, self.uid)
        folder.chmod(0o700)

    def take_back(self, folder: Path, owner: int, group: int) -> None:
        """Give owner what the user owns in folder again (never following a link)."""
        for path in [folder, *_tree(folder)]:
            with contextlib.suppress(OSError):
                if os.lstat(path).st_uid == self.uid:
                    os.lchown(path, owner, group)

    def kill_all(self) -> None:
        """SIGKILL every process of the user until none is left."""
        for _ in range(200):
            pids = [pid for pid, uid in _processes() if uid == self.uid]
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def held(self) -> int:
        """Bytes the user's files take in the shared folders that live in memory (tmpfs)."""
        total = 0
        for top in _in_memory():
            for path in self._left_in(top):
                for item in [path, *_tree(path)]:
                    with contextlib.suppress(OSError):
                        info = os.lstat(item)
                        total += info.st_blocks * 512
        return total

    def clean(self) -> None:
        """Remove what the user left in the shared temporary folders."""
        for top in SHARED_TEMP:
            for path in self._left_in(Path(top)):
                with contextlib.suppress(OSError):
                    scratch.remove(path)  # however deep, never through a link

    def give_back(self) -> None:
        """Let another run take this id (once none of its processes and files is left)."""
        with _lock:
            _taken.discard(self.uid)

    def _left_in(self, top: Path) -> Iterator[Path]:
        try:
            entries = list(os.scandir(top))
        except OSError:
            return
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid == self.uid:
                    yield Path(entry.path)


def reachable(path: Path) -> Path | None:
    """The first folder on the way to path (path included) that a user of no group of its
    owner may not pass (no x for others), or None when every one lets it through."""
    real = Path(os.path.realpath(path))
    for folder in [*reversed(real.parents), real]:
        with contextlib.suppress(OSError):
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return folder
    return None


def _tree(folder: Path) -> Iterator[str]:
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            yield os.path.join(root, name)


def _processes() -> Iterator[tuple[int, int]]:
    """(pid, real uid) of every process but the dead ones not reaped yet."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            with (
                contextlib.suppress(OSError, ValueError, IndexError),
                open(f"/proc/{name}/status", "rb") as f,
            ):
                for line in f:
                    if line.startswith(b"State:") and line.split()[1] == b"Z":
                        break
                    if line.startswith(b"Uid:"):
                        yield int(name), int(line.split()[1])
                        break


def _running_uids() -> set[int]:
    return {uid for _, uid in _processes()}


def _named(uid: int) -> bool:
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return True
        except KeyError:
            pass
    return False


def _in_memory() -> list[Path]:
    """The shared temporary folders that are tmpfs mounts here."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return []
    tmpfs = {
        line.split()[1] for line in mounts if len(line.split()) > 2 and line.split()[2] == "tmpfs"
    }
    return [Path(p) for p in SHARED_TEMP if p in tmpfs]
