"""The test report is the run's data, read by the harness once the run is gone: a report turned
into a named pipe, a link, an entity bomb or a huge file fails the solution with a plain reason
and never hangs the harness or fills its memory. Runs on the exercises that ship with the tests,
in the strongest sandbox this machine has."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from exercism import load, run_tests, testrun

PRACTICE = Path(__file__).resolve().parent / "practice"
LEAVE = """
import atexit, os


def leave():
    os.remove(".coder-junit.xml")
{how}


atexit.register(leave)
"""
"""The example solution, and at exit (pytest has written its report) the report replaced."""


def run_leaving(how: str, seconds: float = 240) -> testrun.TestRun:
    """The tests of initials on a solution that replaces the report as how says; fails the test
    when the harness has not returned within seconds (it hangs)."""
    exercise = load(PRACTICE / "initials")
    code = exercise.example_solution()["initials.py"] + LEAVE.format(how=how)
    done: list[testrun.TestRun] = []
    worker = threading.Thread(
        target=lambda: done.append(run_tests(exercise, {"initials.py": code})), daemon=True
    )
    worker.start()
    worker.join(seconds)
    assert done, "the harness hangs on the report"
    return done[0]


def test_a_report_made_a_named_pipe_fails_without_blocking() -> None:
    run = run_leaving('    os.mkfifo(".coder-junit.xml")')
    assert not run.passed
    assert "The test report .coder-junit.xml is not a regular file" in run.output


def test_a_report_made_a_link_is_not_followed(tmp_path: Path) -> None:
    # A named pipe on the host stands for /dev/tty: following the link would block on it.
    pipe = tmp_path / "terminal"
    os.mkfifo(pipe)
    try:
        run = run_leaving(f'    os.symlink("{pipe}", ".coder-junit.xml")')
    finally:
        with open(os.open(pipe, os.O_RDWR | os.O_NONBLOCK), "wb"):
            pass  # frees a reader blocked on it
    assert not run.passed
    assert "The test report .coder-junit.xml could not be opened" in run.output


def test_a_report_with_entities_is_refused() -> None:
    entities = "".join(
        f'<!ENTITY e{n} "{f"&e{n - 1};" * 10 if n else "x" * 10}">' for n in range(5)
    )
    report = (
        f'<?xml version="1.0"?><!DOCTYPE t [{entities}]>'
        '<testsuite><testcase classname="initials_test.InitialsTest" name="test_two_words">'
        "<system-out>&e4;</system-out></testcase></testsuite>"
    )
    run = run_leaving(f"    open('.coder-junit.xml', 'w').write({report!r})")
    assert not run.passed
    assert "The test report .coder-junit.xml declares a DTD; it was not read." in run.output


@pytest.mark.parametrize("size", [17 * 1024**2], ids=["17MB"])
def test_a_report_over_the_cap_is_refused_unread(size: int) -> None:
    head = '<testsuite><testcase classname="initials_test.InitialsTest" name="test_two_words">'
    how = (
        "    with open('.coder-junit.xml', 'w') as f:\n"
        f"        f.write({head!r})\n"
        f"        f.write('<x/>' * {size // 4})\n"
        "        f.write('</testcase></testsuite>')"
    )
    run = run_leaving(how)
    assert not run.passed
    assert "The test report .coder-junit.xml is over 16 MB; it was not read." in run.output


def test_a_removed_report_is_a_plain_failure_and_a_real_one_passes() -> None:
    run = run_leaving("    pass")
    assert not run.passed
    assert "not read" not in run.output and "not a regular file" not in run.output
    exercise = load(PRACTICE / "initials")
    assert run_tests(exercise, exercise.example_solution()).passed
