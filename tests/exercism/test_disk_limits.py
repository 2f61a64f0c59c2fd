"""A run's writes are bounded in bytes and in files, in its folder, its /tmp and /dev/shm
together: a solution that writes as fast as it can is stopped for the limit it passed (its
failure, said in its output), or finds the place full. Runs the real benchmark runner on an
exercise that ships with the tests, in each sandbox this machine can make."""

from __future__ import annotations

from pathlib import Path

import pytest

from exercism import load, run_tests, testrun
from sandbox import Limits, SandboxError, get_sandbox
from tests.harness_faults import fallback_kind

PRACTICE = Path(__file__).resolve().parent / "practice"
LIMITS = Limits(seconds=90, disk=64 * 1024**2, files=2000)
FLOOD = """
import os, tempfile

where = {where!r}.replace("TMPDIR", tempfile.gettempdir())
written = 0
try:
    for n in range(10**9):
        with open(os.path.join(where, f"f{{n}}"), "wb") as f:
            written += f.write(b"x" * {size})
except OSError as exc:
    print("wrote", written, "bytes:", exc)
"""
"""A solution that writes files of size bytes into where as fast as it can, at import."""


def _kinds() -> list:
    try:
        get_sandbox("bwrap")
        return ["bwrap", fallback_kind()]
    except SandboxError as exc:
        return [pytest.param("bwrap", marks=pytest.mark.skip(reason=str(exc))), fallback_kind()]


def flood(kind: str, where: str, size: int) -> testrun.TestRun:
    exercise = load(PRACTICE / "initials")
    setup = testrun.TestSetup(sandbox=get_sandbox(kind), limits=LIMITS)
    return run_tests(exercise, {"initials.py": FLOOD.format(where=where, size=size)}, setup)


@pytest.mark.parametrize("kind", _kinds())
@pytest.mark.parametrize("where", [".", "TMPDIR", "/dev/shm"])
def test_a_flood_of_files_is_stopped(kind: str, where: str) -> None:
    if kind == "rlimit" and where == "/dev/shm":
        pytest.skip("without namespaces /dev/shm is the host's, and not watched (README)")
    run = flood(kind, where, 0)
    assert run.exceeded == "files" and not run.passed, run.output
    assert "passed the limit on the number of files it makes" in run.output


@pytest.mark.parametrize("kind", _kinds())
def test_a_flood_of_bytes_in_the_runs_folder_is_stopped(kind: str) -> None:
    run = flood(kind, ".", 4 * 1024**2)
    assert run.exceeded == "disk" and not run.passed, run.output
    assert "passed the limit on the space its files take" in run.output


@pytest.mark.parametrize("where", ["/tmp", "/dev/shm"])
def test_tmp_and_shm_are_bounded_in_bwrap(where: str) -> None:
    try:
        get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))
    run = flood("bwrap", where, 4 * 1024**2)
    assert not run.passed
    wrote = [line for line in run.output.splitlines() if line.startswith("wrote ")]
    if run.exceeded is None:  # the tmpfs was full before the watch saw it over the limit
        # pytest may fail to write its own capture to the full /tmp before printing it.
        full = "No space left on device" in run.output
        assert full or (wrote and int(wrote[0].split()[1]) <= LIMITS.disk), run.output
    else:
        assert run.exceeded in ("disk", "files"), run.output
