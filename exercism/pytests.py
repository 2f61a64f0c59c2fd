"""Python's tests: pytest in the sandbox, ready once its session starts, a pass judged by its
JUnit report against the tests that the pristine test files define."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox import READY_VARIABLE, Outcome, readback

if TYPE_CHECKING:
    from exercism.exercise import Exercise
    from exercism.language import Language

REPORT = ".coder-junit.xml"
"""The test report pytest writes in the run's folder, read once the sandbox is gone."""

PYTEST = f"""\
import os, sys
here = sys.path.pop(0)  # the run's folder: none of its files may load before pytest is ready
ready = os.environ.pop("{READY_VARIABLE}", None)
import pytest


class Ready:
    def pytest_sessionstart(self, session):
        if ready:
            os.write(int(ready), b"R")
            os.close(int(ready))
        sys.path.insert(0, here)


sys.exit(int(pytest.main(sys.argv[1:], plugins=[Ready()])))
"""
"""Runs pytest as `python -m pytest` would, saying it is ready once its session starts: its
options and settings read, its plugins loaded, before it collects anything (which imports the
solution). What fails before that is the harness's failure; what fails after it may be the
solution's. The run's folder leaves the import path until then, so that no file there (a
solution's `random.py`, say) is loaded by pytest's own imports."""


def pytest_command(*options: str) -> list[str]:
    """pytest run by this interpreter with options, as every test run of an exercise runs it
    (no conftest.py, no cache, no user site-packages), saying when it is ready (ready=True)."""
    command = [sys.executable, "-B", "-s", "-c", PYTEST, "-q", "-p", "no:cacheprovider"]
    return [*command, "--noconftest", *options]


class Pytest:
    """The runner of Python's tests."""

    def command(self, language: Language, exercise: Exercise, cache: Path) -> list[str]:
        """pytest on the exercise's test files, writing its report."""
        return pytest_command("--tb=short", f"--junitxml={REPORT}", *exercise.test_files)

    def passed(self, language: Language, exercise: Exercise, folder: Path, run: Outcome) -> bool:
        """Exit status 0, and the report shows every test of the pristine files passing."""
        outcomes = read_report(folder / REPORT)
        expected = expected_tests(exercise)
        return (
            run.status == 0
            and bool(outcomes)
            and FAILED not in outcomes.values()
            and all(outcomes.get(name) == PASSED for name in expected)
        )


def expected_tests(exercise: Exercise) -> set[str]:
    """The tests the pristine test files define and do not skip, as "Class.test_name" (or
    "test_name" at module level): every one must be in the report, and pass."""
    names = set()
    for name in exercise.test_files:
        try:
            tree = ast.parse((exercise.folder / name).read_text())
        except (OSError, SyntaxError, ValueError):
            continue
        for node in tree.body:
            if _is_test(node):
                names.add(node.name)
            elif isinstance(node, ast.ClassDef) and not _skipped(node):
                names.update(f"{node.name}.{item.name}" for item in node.body if _is_test(item))
    return names


def _is_test(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and node.name.startswith("test") and not _skipped(node)


def _skipped(node: ast.FunctionDef | ast.ClassDef) -> bool:
    """Whether a decorator of the pristine file skips it (unittest.skip, pytest.mark.skip...)."""
    return any("skip" in ast.unparse(d).lower() for d in node.decorator_list)


PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


def read_report(path: Path) -> dict[str, str]:
    """Test ("Class.test" or "test") -> passed, failed or skipped, from pytest's JUnit XML
    (read as the run's hostile data: see sandbox.readback); empty if there is none, Refused
    (with the reason, for the run's output) when it is not read."""
    outcomes = {}
    for case in readback.junit_cases(path.parent, path.name):
        owner = case.classname.rsplit(".", 1)[-1] if "." in case.classname else ""
        name = f"{owner}.{case.name}" if owner else case.name
        if outcomes.get(name) != FAILED:
            outcomes[name] = case.outcome
    return outcomes
