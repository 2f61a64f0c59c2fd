"""The sandbox of choice on Linux: bubblewrap (`bwrap`) gives the run new user, PID, IPC, UTS,
network and cgroup namespaces, a root file system of read-only system folders plus the one
writable folder, no capabilities, and death with its parent."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import tree
from sandbox.base import Limits, Outcome, SandboxError
from sandbox.cgroups import Group

INSIDE = "/sandbox"
"""Where the run's folder appears inside the sandbox, and its working directory."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Folders bound read-only (missing ones skipped); on merged-/usr systems most are symlinks."""
ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/mime.types",
)
"""The few files of /etc programs need: never all of /etc, which holds secrets of its own."""


class Bubblewrap:
    """Each run in a fresh bubblewrap sandbox; with a control group where one can be made."""

    kind = "bwrap"

    def __init__(self, program: str):
        self.program = program
        self.cgroups = Group.works()
        self.description = (
            "bubblewrap: new user, PID, network and IPC namespaces, read-only system folders,"
            " only the run's own folder writable; limits on the whole process tree"
            + (" (cgroups)" if self.cgroups else " (watched every 50 ms)")
        )

    @classmethod
    def find(cls) -> Bubblewrap:
        """The sandbox, once bwrap is shown to work here; SandboxError with the reason if not."""
        program = shutil.which("bwrap")
        if program is None:
            raise SandboxError("bubblewrap is not installed (apt-get install bubblewrap)")
        probe = [program, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"]
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxError(f"bubblewrap cannot run here: {exc}") from None
        if done.returncode != 0:
            reason = done.stderr.strip() or f"exit status {done.returncode}"
            raise SandboxError(f"bubblewrap cannot make namespaces here: {reason}")
        return cls(program)

    def run(
        self,
        command: Sequence[str],
        folder: Path,
        limits: Limits,
        env: Mapping[str, str],
        cancel: threading.Event | None = None,
    ) -> Outcome:
        """Run command in the sandbox with folder bound writable at /sandbox."""
        with tempfile.TemporaryDirectory(prefix="coder-sandbox-tmp-") as tmp:
            argv = self.argv(command, folder, Path(tmp), env)
            inside = dict(env) | {"HOME": INSIDE, "TMPDIR": "/tmp"}
            return tree.run(
                argv,
                cwd=folder,
                env=inside,
                limits=limits,
                cgroups=self.cgroups,
                kill=_kill,
                cancel=cancel,
            )

    def argv(self, command: Sequence[str], folder: Path, tmp: Path, env: Mapping[str, str]):
        """The bwrap command line: namespaces, the read-only binds, the writable folder."""
        argv = [self.program, "--unshare-all", "--die-with-parent", "--new-session"]
        argv += ["--cap-drop", "ALL", "--hostname", "sandbox"]
        for path in SYSTEM + ETC:
            argv += ["--ro-bind-try", path, path]
        for path in _readable(command, env):
            argv += ["--ro-bind", path, path]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        argv += ["--bind", str(tmp), "/tmp", "--bind", str(folder), INSIDE, "--chdir", INSIDE]
        argv += ["--remount-ro", "/"]
        return [*argv, "--", *command]


def _readable(command: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """Folders outside the system ones that the command needs to read: the Python installation
    running coder (the tests run with it) and the folders on the run's PATH."""
    wanted = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    if command and os.path.isabs(command[0]):
        wanted.add(os.path.dirname(os.path.realpath(command[0])))
    wanted.update(p for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p))
    found = []
    for path in sorted(wanted):
        real = os.path.realpath(path)
        inside_system = any(real == s or real.startswith(s + "/") for s in SYSTEM)
        if os.path.isdir(real) and not inside_system and real != "/":
            found.append(real)
    # A folder inside another bound one is bound already.
    return [p for p in found if not any(p.startswith(q + "/") for q in found)]


def _kill(proc: subprocess.Popen) -> None:
    # bwrap's own process and its init inside are the session's first two; when the init dies
    # (--die-with-parent) the kernel kills every process of the PID namespace.
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
