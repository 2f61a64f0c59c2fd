"""What the tests of the harness's honesty break it with: virtualenvs made where the sandbox
must still find them, a bubblewrap that starts but finds nothing to run, a sandbox whose runs
after the first few cannot execute their program."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import Limits, Outcome, Sandbox
from sandbox.bubblewrap import Bubblewrap

SITE = sysconfig.get_paths()["purelib"]
"""This interpreter's site-packages: pytest and every dependency of the project."""


def virtualenv(where: Path, site: bool = True) -> Path:
    """A virtualenv at where; with site, its site-packages is this interpreter's (through a
    symlink), so that it has what this one has without installing anything."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    if site:
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        packages = where / "lib" / version / "site-packages"
        shutil.rmtree(packages)
        packages.symlink_to(SITE)
    return where


def open_python() -> str | None:
    """An interpreter every user may run, with this one's packages: this one when it is (the
    fallback sandbox run as root runs the command as a user of its own), else a virtualenv of
    the system's Python of the same version made once in a folder every user may pass
    through; None when there is none."""
    from sandbox.users import reachable

    if os.geteuid() != 0 or reachable(Path(sys.executable)) is None:
        return sys.executable
    return _system_virtualenv()


def python_for(kind: str) -> str:
    """The interpreter a test's command runs in sandbox kind: for the fallback, one its own
    users may run (open_python); the test is skipped, saying why, where there is none."""
    if kind != "rlimit":
        return sys.executable
    python = open_python()
    if python is None:
        import pytest

        from sandbox.users import reachable

        closed = reachable(Path(sys.executable)) or reachable(Path(SITE))
        pytest.skip(
            "no interpreter here that every user may run (as root the fallback runs each"
            f" command as a user of its own, and {closed} is closed to other users)"
        )
    return python


@functools.cache
def _system_virtualenv() -> str | None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    from sandbox.users import reachable

    for base in (f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        if os.access(base, os.X_OK) and reachable(Path(base)) is None:
            where = Path(tempfile.mkdtemp(prefix="coder-open-python-"))
            atexit.register(shutil.rmtree, where, True)
            where.chmod(0o755)
            venv = where / "venv"
            subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
            packages = venv / "lib" / version / "site-packages"
            shutil.rmtree(packages)
            packages.symlink_to(SITE)
            if reachable(Path(SITE)) is None:
                return str(venv / "bin" / "python")
    return None


class Hollow(Bubblewrap):
    """bubblewrap that starts, mounts everything, then finds no interpreter: an empty folder
    hides the one the run would execute, as a bind gone wrong would."""

    def argv(self, command, folder, limits, env, launch=None, shared=()) -> list[str]:
        argv = super().argv(command, folder, limits, env, launch, shared)
        hidden = os.path.dirname(os.path.realpath(sys.executable))
        at = argv.index("--")
        return [*argv[:at], "--tmpfs", hidden, *argv[at:]]


class Unrunnable:
    """A real sandbox whose runs after the first `good` ones are asked to execute a program
    that is not there, as when a toolchain is gone."""

    def __init__(self, real: Sandbox, good: int = 0, missing: str = "/nonexistent/python3"):
        self.real, self.good, self.missing = real, good, missing
        self.kind, self.description = real.kind, real.description
        self.runs = 0

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
        self.runs += 1
        if self.runs > self.good:
            command = [self.missing, *command[1:]]
        return self.real.run(command, folder, limits, env, cancel, ready, shared)


def fallback_kind():
    """The fallback sandbox as a test parameter: skipped where, as root, its runs (each a user
    of its own) cannot execute this interpreter (it lies in a folder closed to other users), as
    run_tests would run it."""
    import pytest

    from sandbox.users import reachable

    closed = reachable(Path(sys.executable)) if os.geteuid() == 0 else None
    if closed is None:
        return "rlimit"
    reason = f"as root the fallback's runs cannot execute {sys.executable} ({closed} is closed)"
    return pytest.param("rlimit", marks=pytest.mark.skip(reason=reason))
