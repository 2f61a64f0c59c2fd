"""The containment for machines without user namespaces (macOS, some containers): a keeper
process that adopts everything the run starts and kills it at the end, per-process resource
limits, the whole tree watched, no new privileges, no capabilities, and the parent made
non-dumpable so that its environment and memory cannot be read through /proc. It does not hide
the file system: the run can read and write what the user can."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import tree
from sandbox.base import Limits, Outcome
from sandbox.cgroups import Group
from sandbox.launch import Launch
from sandbox.redaction import host_places, unhosted

PR_SET_DUMPABLE = 4


class Rlimits:
    """Each run under a keeper, with resource limits and the whole tree watched."""

    kind = "rlimit"
    description = (
        "resource limits and a process keeper (no namespaces here): no secrets in the"
        " environment and the whole process tree limited and killed, but the file system is"
        " NOT hidden: the run can read and write what you can"
    )

    def __init__(self) -> None:
        self.cgroups = Group.works()
        _make_undumpable()

    def run(
        self,
        command: Sequence[str],
        folder: Path,
        limits: Limits,
        env: Mapping[str, str],
        cancel: threading.Event | None = None,
        ready: bool = False,
        shared: Sequence[Path] = (),
    ) -> Outcome:
        """Run command in folder under the keeper."""
        with Launch(ready) as launch:
            outcome = tree.run(
                launch.argv(command, "keep"),
                cwd=folder,
                env=launch.env(env) | {"HOME": str(folder)},
                limits=limits,
                cgroups=self.cgroups,
                # The keeper adopts every orphan, so the whole run stays its descendants.
                kill=tree.kill_tree,
                cancel=cancel,
                pass_fds=launch.fds,
                started=launch.handed_over,
            )
            return unhosted(launch.judged(outcome), host_places(folder, "."))


def _make_undumpable() -> None:
    """Close this process's /proc/<pid>/environ and /proc/<pid>/mem to processes without
    CAP_SYS_PTRACE (the keeper drops it before the run starts)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
