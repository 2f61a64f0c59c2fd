"""The containment for machines without user namespaces (macOS, some containers): a keeper
process that adopts everything the run starts and kills it at the end, per-process resource
limits, the whole tree watched, no new privileges, no capabilities, and the parent made
non-dumpable so that its environment and memory cannot be read through /proc. It does not hide
the file system: the run can read and write what the user can."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import tree
from sandbox.base import Limits, Outcome
from sandbox.cgroups import Group

KEEPER = Path(__file__).with_name("keeper.py")
PR_SET_DUMPABLE = 4


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


class Rlimits:
    """Each run under a keeper, with resource limits and the whole tree watched."""

    kind = "rlimit"
    description = (
        "resource limits and a process keeper (no namespaces here): no secrets in the"
        " environment and the whole process tree limited and killed, but the file system is"
        " NOT hidden: the run can read and write what you can"
    )

    def __init__(self) -> None:
        self.cgroups = Group.create(Limits())
        if self.cgroups is not None:
            self.cgroups.remove()
        _make_undumpable()

    def run(
        self, command: Sequence[str], folder: Path, limits: Limits, env: Mapping[str, str]
    ) -> Outcome:
        """Run command in folder under the keeper."""
        group = Group.create(limits) if self.cgroups is not None else None
        argv = [sys.executable, "-I", "-B", str(KEEPER), *command]
        inside = dict(env) | {"HOME": str(folder)}
        try:
            return tree.run(
                argv,
                cwd=folder,
                env=inside,
                limits=limits,
                group=group,
                kill=_kill,
                preexec=entering(group, limits),
            )
        finally:
            if group is not None:
                group.remove()


def entering(group: Group | None, limits: Limits):
    """The function a new process runs before its command: it joins group, if any, and sets
    its own limits."""
    join = group.join_files() if group is not None else []

    def enter() -> None:
        for path in join:
            with open(path, "w") as f:
                f.write(str(os.getpid()))
        set_limits(limits, whole_tree=group is not None)

    return enter


def _kill(proc: subprocess.Popen) -> None:
    # Everything the run started is the keeper's descendant (it adopts orphans): kill those
    # first, while they are still its descendants, then the keeper's own process group.
    tree.kill_descendants(proc.pid)
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    tree.kill_descendants(proc.pid)


def _make_undumpable() -> None:
    """Close this process's /proc/<pid>/environ and /proc/<pid>/mem to processes without
    CAP_SYS_PTRACE (the keeper drops it before the run starts)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
