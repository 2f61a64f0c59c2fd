"""bubblewrap binds what a run needs wherever it lies: an interpreter under the sandbox's own
mount points (/tmp, /dev/shm), one reached through a symlink, one whose site-packages lies
elsewhere. Each case runs the real sandbox from a virtualenv made there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import SandboxError, get_sandbox
from tests.harness_faults import virtualenv

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys, tempfile
from pathlib import Path
from sandbox import Limits, get_sandbox
folder = Path(tempfile.mkdtemp())
inside = "import sys, pytest; print(sys.prefix)"
outcome = get_sandbox("bwrap").run(
    [sys.executable, "-c", inside], folder, Limits(), {"PATH": "/usr/bin:/bin"}, ready=False
)
print(json.dumps([outcome.status, outcome.output, outcome.not_started]))
"""
"""Run by the virtualenv's interpreter: the sandbox runs that same interpreter inside, which
imports pytest (from its site-packages) and prints its prefix."""


@pytest.fixture(scope="module")
def bwrap() -> None:
    try:
        get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))


def _places() -> list[str]:
    places = ["/tmp"]
    if os.access("/dev/shm", os.W_OK):
        places.append("/dev/shm")
    return places


@pytest.fixture
def base(request) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="coder-binds-", dir=request.param))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def probe(python: Path) -> list:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(python), "-c", PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("base", _places(), indirect=True)
def test_an_interpreter_under_a_mount_point_runs_inside(bwrap, base: Path) -> None:
    venv = virtualenv(base / "venv")
    status, output, not_started = probe(venv / "bin" / "python")
    assert (status, not_started) == (0, None), output
    assert output.strip() == str(venv)


@pytest.mark.parametrize("base", ["/tmp"], indirect=True)
def test_an_interpreter_reached_through_a_symlink_runs_inside(bwrap, base: Path) -> None:
    virtualenv(base / "real" / "venv")
    (base / "link").symlink_to(base / "real")
    status, output, not_started = probe(base / "link" / "venv" / "bin" / "python")
    assert (status, not_started) == (0, None), output
    assert output.strip() == str(base / "link" / "venv")


def test_no_bind_hides_a_mount_point_or_shows_the_runs_private_folders(tmp_path: Path) -> None:
    from sandbox.bubblewrap import needed

    private = tmp_path / "scratch" / "run"
    private.mkdir(parents=True)
    path = os.pathsep.join(["/tmp", "/dev", "/", str(tmp_path), str(tmp_path / "scratch")])
    targets = [target for _, target in needed([], {"PATH": path}, private=(private,))]
    assert not {"/", "/tmp", "/dev", str(tmp_path), str(tmp_path / "scratch")} & set(targets)
