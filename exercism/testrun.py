"""Running an exercise's tests on a model's solution, contained: a fresh copy of the pristine
exercise plus only the solution files, in a sandbox with limits on the whole process tree and
an allow-listed environment. Pass or fail is decided here, from the exit status and the test
report, after the sandbox is gone; the output is cleaned so that identical results print
identical text, and any secret of this process in it is redacted."""

from __future__ import annotations

import ast
import contextlib
import functools
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from exercism.exercise import Exercise, copy_to
from sandbox import READY_VARIABLE, Limits, Sandbox, get_sandbox, redact

REPORT = ".coder-junit.xml"
"""The test report pytest writes in the run's folder, read once the sandbox is gone."""
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    # The user's pytest plugins would slow every run by a second or more, and change it.
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
}
"""The whole environment of the tests (an allow-list: no key of the user's reaches them)."""


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


class HarnessError(Exception):
    """The tests could not run, for a reason of the harness and not of the solution: the
    sandbox did not start, the test runner could not be executed or stopped before it was
    ready, the scratch folder could not be made. The message says which, with the sandbox's or
    the toolchain's own words."""


@dataclass(frozen=True)
class TestSetup:
    """How tests run: the sandbox, its limits, the secrets to redact from what they print."""

    sandbox: Sandbox | None = None
    """None: the strongest sandbox this machine allows, chosen once."""
    limits: Limits = field(default_factory=Limits)
    secrets: tuple[str, ...] = ()


@dataclass(frozen=True)
class TestRun:
    """The outcome of one run of an exercise's tests."""

    passed: bool
    output: str
    """pytest's output, cleaned of timings and temporary paths, secrets redacted."""
    timed_out: bool = False
    seconds: float = 0.0
    exceeded: str | None = None
    """The limit that stopped the tests, if one did: time, cpu, memory or processes."""


def solution_of(exercise: Exercise, workdir: Path) -> dict[str, str]:
    """The solution files as the model left them in workdir (a symlink or a file that is not
    text counts as missing: the tests then fail to import it)."""
    found = {}
    for name in exercise.solution_files:
        path = workdir / name
        if path.is_file() and not path.is_symlink():
            try:
                found[name] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
    return found


def run_tests(
    exercise: Exercise, solution: Mapping[str, str], setup: TestSetup | None = None
) -> TestRun:
    """Run the exercise's tests on solution (solution file -> text) in the sandbox;
    HarnessError when they could not run for a reason that is not the solution's."""
    setup = setup or TestSetup()
    sandbox = setup.sandbox or default_sandbox()
    with _scratch() as scratch:
        folder = _prepared(exercise, solution, scratch)
        options = ["--tb=short", f"--junitxml={REPORT}", *exercise.test_files]
        command = pytest_command(*options)
        outcome = sandbox.run(command, folder, setup.limits, ENV, ready=True)
        if outcome.not_started is not None:
            raise HarnessError(
                f"the tests of {exercise.name} could not run ({sandbox.kind} sandbox):"
                f" {redact(outcome.not_started, setup.secrets)}"
            )
        outcomes = read_report(folder / REPORT)
    expected = expected_tests(exercise)
    passed = (
        outcome.status == 0
        and bool(outcomes)
        and FAILED not in outcomes.values()
        and all(outcomes.get(name) == PASSED for name in expected)
    )
    text = clean(outcome.output, folder, "/sandbox")
    if outcome.exceeded:
        text += f"\nThe tests were stopped: they passed the {_LIMITS[outcome.exceeded]}."
    elif outcome.status == 0 and not passed:
        text += (
            "\nThe tests exited with status 0 but their report does not show every test passing."
        )
    timed_out = outcome.exceeded in ("time", "cpu")
    return TestRun(
        passed,
        redact(text.strip(), setup.secrets),
        timed_out,
        outcome.seconds,
        outcome.exceeded,
    )


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    """A temporary folder for one test run, removed after it; HarnessError if none can be made."""
    try:
        scratch = tempfile.TemporaryDirectory(prefix="coder-tests-")
    except OSError as exc:
        raise HarnessError(f"no scratch folder for the tests: {exc}") from None
    with scratch as path:
        yield Path(path)


def _prepared(exercise: Exercise, solution: Mapping[str, str], scratch: Path) -> Path:
    """A fresh copy of the pristine exercise in scratch with the solution files written over
    the stubs; HarnessError when the disk refuses."""
    try:
        folder = copy_to(exercise, scratch / exercise.name)
        for name in exercise.solution_files:
            (folder / name).unlink(missing_ok=True)
            if name in solution:
                (folder / name).write_text(solution[name], encoding="utf-8")
    except OSError as exc:
        raise HarnessError(
            f"the scratch copy of {exercise.name} could not be made: {exc}"
        ) from None
    return folder


_LIMITS = {
    "time": "limit on wall time",
    "cpu": "limit on processor time",
    "memory": "limit on memory",
    "processes": "limit on the number of processes",
}


@functools.cache
def default_sandbox() -> Sandbox:
    """The strongest sandbox this machine allows, chosen once per process."""
    return get_sandbox("auto")


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
    """Test ("Class.test" or "test") -> passed, failed or skipped, from pytest's JUnit XML;
    empty if unreadable."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return {}
    outcomes = {}
    for case in tree.iter("testcase"):
        module_and_class = case.get("classname", "")
        owner = module_and_class.rsplit(".", 1)[-1] if "." in module_and_class else ""
        name = f"{owner}.{case.get('name', '')}" if owner else case.get("name", "")
        if any(case.find(tag) is not None for tag in ("failure", "error")):
            outcomes[name] = FAILED
        elif outcomes.get(name) != FAILED:
            outcomes[name] = SKIPPED if case.find("skipped") is not None else PASSED
    return outcomes


def clean(output: str, *workdirs: Path | str) -> str:
    """The output without the parts that change from run to run: timings, paths, addresses."""
    text = output
    for workdir in workdirs:
        text = text.replace(str(workdir), ".")
    text = re.sub(r" in \d+(\.\d+)?s( \([0-9:]+\))?", "", text)
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", text)
    text = re.sub(r"/tmp/[^\s:'\"]+", "<tmp>", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())
