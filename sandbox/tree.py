"""Watching one run's whole process tree: start it, read its output up to a cap, check the
limits on all its processes together every few milliseconds, and kill every one of them when a
limit is passed or the run is over."""

from __future__ import annotations

import contextlib
import os
import resource
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
    memory: int
    """Resident bytes."""
    cpu_seconds: float


def table() -> dict[int, tuple[int, float, int]]:
    """Every process on the machine: pid -> (parent pid, processor seconds of it and its waited-for
    children, resident bytes)."""
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
            found[int(name)] = (int(fields[1]), ticks / TICKS, int(fields[21]) * PAGE)
        except (IndexError, ValueError):
            continue
    return found


def descendants(root: int, processes: Mapping[int, tuple[int, float, int]]) -> list[int]:
    """root's descendants (not root), parents before children."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in processes.items():
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
    return Usage(len(alive), sum(m for _, _, m in alive), sum(c for _, c, _ in alive))


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


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    limits: Limits,
    cgroups: bool,
    kill: Callable[[subprocess.Popen], None],
) -> Outcome:
    """Run argv, its output captured and (with cgroups) in a control group of its own, until
    it ends or passes a limit; then kill (a function that ends the process and everything it
    started) and return how it went."""
    group = Group.create(limits) if cgroups else None
    try:
        return _run(argv, cwd, env, limits, group, kill)
    finally:
        if group is not None:
            group.remove()


def _run(argv, cwd, env, limits, group, kill) -> Outcome:
    began = time.monotonic()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_entering(group, limits),
    )
    assert proc.stdout is not None
    reader = _Reader(proc.stdout)
    reader.start()
    exceeded = None
    try:
        while not _ended(proc, INTERVAL):
            exceeded = _check(proc, limits, group, time.monotonic() - began)
            if exceeded:
                break
    finally:
        kill(proc)
        proc.wait()
        if group is not None:
            group.kill()
    exceeded = exceeded or (group.exceeded() if group is not None else None)
    reader.join(1.0)
    with contextlib.suppress(OSError):
        proc.stdout.close()
    status = None if exceeded else proc.returncode
    return Outcome(status, reader.text(), exceeded, time.monotonic() - began)


def set_limits(limits: Limits, whole_tree: bool) -> None:
    """This process's own limits (inherited by what it starts): no core files, no file larger
    than limits.file_size, and, as a cap per process under the whole tree's, memory and
    processor time. It runs between fork and exec, so it imports nothing."""
    pairs = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, limits.file_size),
        (resource.RLIMIT_CPU, int(limits.cpu_seconds) + 1),
    ]
    if not whole_tree:
        # Without a control group the watch samples memory; this stops one fast allocation.
        pairs.append((resource.RLIMIT_AS, limits.memory))
    for which, value in pairs:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))


def _entering(group: Group | None, limits: Limits):
    """The function a new process runs before its command: it joins group, if any, and sets
    its own limits."""
    join = group.join_files() if group is not None else []

    def enter() -> None:
        for path in join:
            with open(path, "w") as f:
                f.write(str(os.getpid()))
        set_limits(limits, whole_tree=group is not None)

    return enter


def _ended(proc: subprocess.Popen, seconds: float) -> bool:
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def _check(
    proc: subprocess.Popen, limits: Limits, group: Group | None, elapsed: float
) -> str | None:
    if elapsed > limits.seconds:
        return "time"
    if group is not None:
        cpu = group.cpu_seconds()
        if cpu is not None and cpu > limits.cpu_seconds:
            return "cpu"
        return group.exceeded()
    used = usage(proc.pid)
    if used.cpu_seconds > limits.cpu_seconds:
        return "cpu"
    if used.memory > limits.memory:
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
