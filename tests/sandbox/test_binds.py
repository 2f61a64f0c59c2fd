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

from sandbox import Limits, SandboxError, get_sandbox
from tests.harness_faults import virtualenv

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, os, sys, tempfile
from pathlib import Path
from sandbox import Limits, get_sandbox
folder = Path(tempfile.mkdtemp())
sibling = Path(tempfile.mkdtemp())  # another run's folder, beside this one
(sibling / "answer.txt").write_text("the other run's answer")
inside = f"import os, sys, pytest; print(sys.prefix); print(os.listdir({tempfile.gettempdir()!r}))"
outcome = get_sandbox("bwrap").run(
    [sys.executable, "-c", inside], folder, Limits(), {"PATH": "/usr/bin:/bin"}, ready=False
)
print(json.dumps([outcome.status, outcome.output, outcome.not_started]))
"""
"""Run by the virtualenv's interpreter: the sandbox runs that same interpreter inside, which
imports pytest (from its site-packages), prints its prefix and what it sees of the temporary
folder its own folder and a sibling's were made in (nothing)."""


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


def probe(python: Path, tmpdir: Path | None = None) -> list:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
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
    # The run's own interpreter, named in its output as coder's Python installation is.
    assert output.splitlines()[0] == "<python>"


@pytest.mark.parametrize("base", ["/tmp"], indirect=True)
def test_an_interpreter_reached_through_a_symlink_runs_inside(bwrap, base: Path) -> None:
    virtualenv(base / "real" / "venv")
    (base / "link").symlink_to(base / "real")
    status, output, not_started = probe(base / "link" / "venv" / "bin" / "python")
    assert (status, not_started) == (0, None), output
    assert output.splitlines()[0] == "<python>"  # base/link/venv, as the run names it


@pytest.mark.parametrize("base", ["/tmp"], indirect=True)
def test_a_tmpdir_inside_the_virtualenv_is_bound_with_the_runs_folders_hidden(
    bwrap, base: Path
) -> None:
    venv = virtualenv(base / "venv")
    (venv / "tmp").mkdir()
    status, output, not_started = probe(venv / "bin" / "python", tmpdir=venv / "tmp")
    assert (status, not_started) == (0, None), output
    prefix, seen = output.splitlines()
    assert prefix == "<python>" and seen == "[]"


def test_no_bind_hides_a_mount_point_or_lies_in_the_runs_own_folders(tmp_path: Path) -> None:
    from sandbox.bubblewrap import needed

    private = tmp_path / "scratch" / "run"
    (private / "bin").mkdir(parents=True)
    path = os.pathsep.join(["/tmp", "/dev", "/", str(private), str(private / "bin")])
    targets = [target for _, target in needed([], {"PATH": path}, private=(private,))]
    assert not {"/", "/tmp", "/dev", str(private), str(private / "bin")} & set(targets)


def test_a_toolchain_in_a_home_folder_is_there_only_when_asked_for(
    bwrap, tmp_path: Path, monkeypatch
) -> None:
    """rustup's ~/.cargo/bin, say: the benchmark's language asks for it (shared), and its
    tests find it; a command that merely has it on its PATH does not."""
    home = tmp_path / "home"
    toolchain = home / ".toolchain"
    (toolchain / "bin").mkdir(parents=True)
    (toolchain / "bin" / "cargo-like").write_text("#!/bin/sh\necho toolchain ran\n")
    (toolchain / "bin" / "cargo-like").chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    folder = tmp_path / "run"
    folder.mkdir()
    env = {"PATH": f"{toolchain / 'bin'}:/usr/bin:/bin"}
    command = ["/bin/sh", "-c", "cargo-like"]
    sandbox = get_sandbox("bwrap")
    asked = sandbox.run(command, folder, Limits(), env, shared=(toolchain,))
    assert asked.output == "toolchain ran\n", asked
    merely = sandbox.run(command, folder, Limits(), env)
    assert "toolchain ran" not in merely.output and merely.status != 0, merely
