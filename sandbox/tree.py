"""Watching one run's whole process tree: start it, read its output up to a cap, check the
limits on all its processes together every few milliseconds, and kill every one of them when a
limit is passed or the run is over."""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.base import MAX_OUTPUT, Limits, Outcome
from sandbox.cgroups import Group

INTERVAL = 0.05
"""Seconds between two checks of the limits (the end of the run is seen at once)."""
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Usage:
    """What a tree of processes holds now, or has used so far."""

    processes: int
    """Threads of all its processes (a process is one thread at least)."""
    memory: int
    """Resident bytes."""
    cpu_seconds: float


def table() -> dict[int, tuple[int, float, int, int]]:
    """Every process on the machine: pid -> (parent pid, processor seconds of it and its waited-for
    children, resident bytes, threads)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        # The command name, in parentheses, may hold spaces and parentheses of its own.
        fields = stat[stat.rfind(")") + 2 :].split()
        try:
            ticks = sum(int(fields[n]) for n in (11, 12, 13, 14))
            found[int(name)] = (
                int(fields[1]),
                ticks / TICKS,
                int(fields[21]) * PAGE,
                int(fields[17]),
            )
        except (IndexError, ValueError):
            continue
    return found


def descendants(root: int, processes: Mapping[int, tuple[int, float, int, int]]) -> list[int]:
    """root's descendants (not root), parents before children."""
    children: dict[int, list[int]] = {}
    for pid, (parent, *_) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, queue = [], list(children.get(root, []))
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def usage(root: int) -> Usage:
    """What root and its descendants hold and have used."""
    processes = table()
    tree = [root, *descendants(root, processes)]
    alive = [processes[p] for p in tree if p in processes]
    # Threads count as the kernel's limit on processes counts them (a control group's too).
    threads = sum(t for _, _, _, t in alive)
    return Usage(threads, sum(m for _, _, m, _ in alive), sum(c for _, c, _, _ in alive))


def kill_descendants(root: int) -> None:
    """SIGKILL root's descendants (children first is not needed: each is killed where it is)
    until none is left, so that a process forking as fast as it can is caught too."""
    for _ in range(200):
        pids = descendants(root, table())
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the process's descendants while they still are its descendants, then its
    process group, then any descendant started meanwhile."""
    kill_descendants(proc.pid)
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    kill_descendants(proc.pid)


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    limits: Limits,
    cgroups: bool,
    kill: Callable[[subprocess.Popen], None],
    cancel: threading.Event | None = None,
    pass_fds: Sequence[int] = (),
    started: Callable[[], None] | None = None,
    watch: Callable[[int], str | None] | None = None,
    held: Callable[[], int] | None = None,
) -> Outcome:
    """Run argv, its output captured and (with cgroups) in a control group of its own, until
    it ends, passes a limit or cancel is set; then kill (a function that ends the process and
    everything it started) and return how it went. pass_fds stay open in argv; started is
    called once argv runs (or failed to); watch, given argv's pid at each check, names a
    limit passed that the tree's processes do not show (disk.Watch), or None; held, without a
    control group (which charges them itself), gives the bytes the run holds outside its
    processes (files in a tmpfs), counted against the limit on memory."""
    group = Group.create(limits) if cgroups else None
    looks = _Watch(limits, group, held, watch)
    try:
        return _run(argv, cwd, env, group, kill, cancel, tuple(pass_fds), started, looks)
    finally:
        if group is not None:
            group.remove()


def _run(argv, cwd, env, group, kill, cancel, pass_fds, started, looks) -> Outcome:
    began = time.monotonic()
    launch, enter = _launcher(argv, group, looks.limits)
    try:
        proc = subprocess.Popen(
            launch,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=enter,
            pass_fds=pass_fds,
        )
    finally:
        if started is not None:
            started()
    assert proc.stdout is not None
    reader = _Reader(proc.stdout)
    reader.start()
    exceeded = None
    ended = _Exit(proc)
    try:
        while not ended.within(INTERVAL):
            exceeded = looks.check(proc, time.monotonic() - began)
            if cancel is not None and cancel.is_set():
                exceeded = "cancelled"
            if exceeded:
                break
    finally:
        ended.close()
        kill(proc)
        proc.wait()
        if group is not None:
            group.kill()
    exceeded = exceeded or (group.exceeded() if group is not None else None)
    peak = group.peak() if group is not None else None
    reader.join(1.0)
    with contextlib.suppress(OSError):
        proc.stdout.close()
    status = None if exceeded else proc.returncode
    return Outcome(status, reader.text(), exceeded, time.monotonic() - began, peak=peak)


def _limits(limits: Limits, whole_tree: bool) -> list[tuple[int, int]]:
    """The limits of each process of the run (inherited by what it starts): no core files, no
    file larger than limits.file_size, and, as a cap per process under the whole tree's, memory
    and processor time; none above what this process may itself raise to."""
    wanted = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, limits.file_size),
        (resource.RLIMIT_CPU, int(limits.cpu_seconds) + 1),
    ]
    if not whole_tree:
        # Without a control group the watch samples memory; this stops one fast allocation.
        wanted.append((resource.RLIMIT_AS, limits.memory))
    pairs = []
    for which, value in wanted:
        hard = resource.getrlimit(which)[1]
        pairs.append((which, value if hard == resource.RLIM_INFINITY else min(value, hard)))
    return pairs


PRLIMIT_OPTIONS = {
    resource.RLIMIT_CORE: "--core",
    resource.RLIMIT_FSIZE: "--fsize",
    resource.RLIMIT_CPU: "--cpu",
    resource.RLIMIT_AS: "--as",
}
JOIN = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"'
"""A shell script that writes its pid to each file before "--" (joining the control group)
and then becomes the command after it."""


def _launcher(argv, group: Group | None, limits: Limits):
    """The command that starts argv inside group with the limits set, and the function (if any)
    the new process must run before it.

    Where the shell and util-linux's prlimit are found, a small chain of programs does it, so
    that the new process is started without running Python code between fork and exec, which
    makes Python copy its whole memory map (a fork instead of a vfork: tens of milliseconds in
    a large process); elsewhere the new process joins and limits itself before exec."""
    pairs = _limits(limits, whole_tree=group is not None)
    joins = group.join_files() if group is not None else []
    prlimit, shell = _programs()
    if prlimit is None or (joins and shell is None):
        return list(argv), _entering(joins, pairs)
    launch = [prlimit, *(f"{PRLIMIT_OPTIONS[w]}={v}:{v}" for w, v in pairs), "--", *argv]
    if joins:
        launch = [shell, "-c", JOIN, "sh", *joins, "--", *launch]
    return launch, None


@functools.cache
def _programs() -> tuple[str | None, str | None]:
    return shutil.which("prlimit"), shutil.which("sh")


def _entering(joins: list[str], pairs: list[tuple[int, int]]):
    """What a new process runs before its command: it joins the control group, if any, and sets
    its own limits. It runs between fork and exec, so it imports nothing."""

    def enter() -> None:
        for path in joins:
            with open(path, "w") as f:
                f.write(str(os.getpid()))
        for which, value in pairs:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(which, (value, value))

    return enter


class _Exit:
    """Waits for the run's first process to end, woken the moment it does (a pidfd where the
    system has them; otherwise subprocess's own wait, which polls)."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.fd = None
        with contextlib.suppress(AttributeError, OSError):
            self.fd = os.pidfd_open(proc.pid)

    def within(self, seconds: float) -> bool:
        """Whether the process has ended, waiting up to seconds for it."""
        if self.fd is not None:
            readable, _, _ = select.select([self.fd], [], [], seconds)
            if not readable:
                return False
        try:
            self.proc.wait(None if self.fd is not None else seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass(frozen=True)
class _Watch:
    """What each look at a run checks."""

    limits: Limits
    group: Group | None
    held: Callable[[], int] | None
    watch: Callable[[int], str | None] | None
    """A limit the tree's processes do not show (disk.Watch), given argv's pid."""

    def check(self, proc: subprocess.Popen, elapsed: float) -> str | None:
        """The limit the run has passed, if any."""
        return self._processes(proc, elapsed) or (self.watch(proc.pid) if self.watch else None)

    def _processes(self, proc: subprocess.Popen, elapsed: float) -> str | None:
        limits = self.limits
        if elapsed > limits.seconds:
            return "time"
        if self.group is not None:
            cpu = self.group.cpu_seconds()
            if cpu is not None and cpu > limits.cpu_seconds:
                return "cpu"
            return self.group.exceeded()
        used = usage(proc.pid)
        if used.cpu_seconds > limits.cpu_seconds:
            return "cpu"
        if used.memory + (self.held() if self.held else 0) > limits.memory:
            return "memory"
        if used.processes > limits.processes:
            return "processes"
        return None


class _Reader(threading.Thread):
    """Reads a pipe to its end, keeping the first MAX_OUTPUT bytes."""

    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe = pipe
        self.kept = bytearray()
        self.dropped = 0

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.pipe.read1(65536):
                room = MAX_OUTPUT - len(self.kept)
                self.kept += chunk[:room]
                self.dropped += max(0, len(chunk) - room)

    def text(self) -> str:
        text = self.kept.decode(errors="replace")
        if self.dropped:
            text += f"\n[{self.dropped} more bytes of output dropped]"
        return text
