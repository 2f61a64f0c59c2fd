"""The containment for machines without user namespaces (macOS, some containers): a keeper
process that adopts everything the run starts, ends the run when the harness dies and kills
everything at the end; per-process resource limits, the whole tree watched, no new privileges,
and the parent made non-dumpable so that its environment and memory cannot be read through
/proc. As root, each run is a user of its own (sandbox/users.py): it owns its folder and
nothing else, cannot signal the keeper or write a file root owns, and every process of it is
killed at the end. It does not hide the file system: the run reads what every user may read
(as root) or what you may (as anyone else), and then writes what you may, too."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import disk, scratch, tree
from sandbox.base import Limits, Outcome
from sandbox.cgroups import Group
from sandbox.launch import Launch
from sandbox.redaction import host_places, unhosted
from sandbox.users import RunUser, reachable

PR_SET_DUMPABLE = 4
AS_ROOT = (
    "resource limits and a process keeper (no namespaces here), each run as a user of its own"
    " (an unused id): no secrets in the environment, the whole process tree limited and killed,"
    " root's files and the keeper out of its reach; but the file system is NOT hidden: the run"
    " can read whatever every user may read"
)
AS_USER = (
    "resource limits and a process keeper (no namespaces here), the run as YOU: no secrets in"
    " the environment and the process tree limited while the keeper lives, but the file system"
    " is NOT hidden (the run can read and write what you can), it can kill the keeper and"
    " leave processes running as you with no limit, and /dev/shm is not counted"
)


class Rlimits:
    """Each run under a keeper, with resource limits and the whole tree watched."""

    kind = "rlimit"

    def __init__(self) -> None:
        self.cgroups = Group.works()
        self.own_users = sys.platform.startswith("linux") and os.geteuid() == 0
        """Whether each run is a user of its own (this process is root)."""
        self.description = AS_ROOT if self.own_users else AS_USER
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
        """Run command in folder under the keeper (as a user of its own, as root)."""
        if not self.own_users:
            return self._run(command, folder, limits, env, cancel, ready, None)
        # A scratch folder of the harness's own holding the run's (mkdtemp makes them 0700) is
        # opened to passing through, not to listing, while the run lasts.
        parent, owner = os.stat(folder.parent), os.stat(folder)
        if parent.st_uid == os.geteuid():
            folder.parent.chmod(parent.st_mode & 0o7777 | 0o001)
        user = RunUser.take()
        try:
            closed = reachable(folder.parent)
            if closed is not None:
                return Outcome(
                    None,
                    "",
                    not_started=f"the run's folder {folder} lies in {closed}, which a user of"
                    " its own may not pass through (chmod o+x it, or run from a folder elsewhere)",
                )
            user.give(folder)
            return self._run(command, folder, limits, env, cancel, ready, user)
        finally:
            user.kill_all()
            user.take_back(folder, owner.st_uid, owner.st_gid)
            folder.chmod(owner.st_mode & 0o7777)
            folder.parent.chmod(parent.st_mode & 0o7777)
            user.clean()  # the run's folder is no longer the user's: it may lie in /tmp
            user.give_back()

    def _run(self, command, folder, limits, env, cancel, ready, user: RunUser | None) -> Outcome:
        settings = {"parent": os.getpid()}
        if user is not None:
            # The user is the run's alone, so the kernel's limit on its tasks is the run's.
            settings |= {"uid": user.uid, "tasks": limits.processes}

        def kill(proc: subprocess.Popen) -> None:
            tree.kill_tree(proc)
            if user is not None:
                user.kill_all()
            else:
                _kill_session(proc.pid)

        with Launch(ready, settings) as launch, scratch.folder("coder-sandbox-tmp-") as tmp:
            if user is not None:
                user.give(tmp)
            # The run's TMPDIR is watched with its folder; the host's /tmp and /dev/shm are
            # counted only for a user of the run's own (RunUser.held), and are not hidden.
            watch = disk.Watch([folder, tmp], limits)
            outcome = tree.run(
                launch.argv(command, "keep"),
                cwd=folder,
                env=launch.env(env) | {"HOME": str(folder), "TMPDIR": str(tmp)},
                limits=limits,
                cgroups=self.cgroups,
                # The keeper adopts every orphan, so the whole run stays its descendants.
                kill=kill,
                cancel=cancel,
                pass_fds=launch.fds,
                started=launch.handed_over,
                watch=watch.exceeded,
                held=user.held if user is not None else None,
            )
            return unhosted(launch.judged(outcome), host_places(folder, "."))


def _kill_session(session: int) -> None:
    """SIGKILL what is left of the keeper's session (a process that left its group but not the
    session); one that made a session of its own is out of reach without a user of its own."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read().decode(errors="replace")
                if int(stat[stat.rfind(")") + 2 :].split()[3]) == session:
                    os.kill(int(name), signal.SIGKILL)


def _make_undumpable() -> None:
    """Close this process's /proc/<pid>/environ and /proc/<pid>/mem to processes without
    CAP_SYS_PTRACE (the keeper drops it before the run starts)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
