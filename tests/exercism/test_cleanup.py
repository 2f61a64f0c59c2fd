"""What a run leaves in its scratch folder is removed after it, whatever it is: a folder nested
3,000 deep, folders it made unreadable, links to the user's files (whose permissions stay as
they were). Runs the real benchmark runner on an exercise that ships with the tests."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from exercism import load, run_tests

PRACTICE = Path(__file__).resolve().parent / "practice"
LEAVE = """
import atexit, os


def leave():
    os.mkdir("locked")
    os.symlink({target!r}, "locked/link")
    os.chmod("locked", 0o500)
    os.mkdir("closed")
    os.chmod("closed", 0)
    for _ in range(3000):
        os.mkdir("a")
        os.chdir("a")


atexit.register(leave)
"""
"""The example solution, leaving at exit a deep tree, a locked folder with a link out, and a
folder closed to everyone."""


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch) -> Path:
    """The temporary folder the harness makes its scratch folders in, for this test alone."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_deep_locked_tree_is_removed_and_the_solution_judged(
    scratch: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "key"
    mine.write_text("a file of the user's, outside the run\n")
    mine.chmod(0o600)
    exercise = load(PRACTICE / "initials")
    code = exercise.example_solution()["initials.py"] + LEAVE.format(target=str(mine))
    run = run_tests(exercise, {"initials.py": code})
    # Judged, not an error: passed, or (the watch saw the tree nest over 256 deep before the
    # run ended) stopped for the limit on files.
    assert run.passed or run.exceeded == "files", run.output
    assert os.listdir(scratch) == []
    assert stat.S_IMODE(mine.stat().st_mode) == 0o600
