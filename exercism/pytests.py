"""Python's tests: pytest in the sandbox, ready once its session starts, a pass judged by its
JUnit report against the tests that the pristine test files define."""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from exercism.language import Verdict
from sandbox import READY_VARIABLE, Outcome, readback

if TYPE_CHECKING:
    from exercism.exercise import Exercise
    from exercism.language import Expected, Language

REPORT = ".coder-junit.xml"
"""The test report pytest writes in the run's folder, read once the sandbox is gone."""

PYTEST = """\
import linecache, os, sys, unittest
here = sys.path.pop(0)  # the run's folder: none of its files may load before pytest is ready
ready = os.environ.pop("@READY@", None)
import pytest
from _pytest.runner import runtestprotocol
from _pytest.unittest import TestCaseFunction

# The real ones, taken before anything of the run loads and could replace them.
fd, write, urandom, root = int(ready or -1), os.write, os.urandom, os.getcwd()
plain_equal = unittest.TestCase.assertEqual
VALUES = (str, bytes, int, float, complex, list, tuple, dict, set, frozenset)


def say(line):
    if fd >= 0:
        try:
            write(fd, line.encode(errors="replace") + b"\\n")
        except OSError:
            pass


def own_equality(value):
    # A value of a built-in kind whose == is the solution's own (a str equal to everything).
    kind = type(value)
    if kind in VALUES or not isinstance(value, VALUES):
        return False
    owner = next((k for k in kind.__mro__ if "__eq__" in vars(k)), object)
    top = (owner.__module__ or "").partition(".")[0]
    return top not in sys.stdlib_module_names and top != "builtins"


def assertEqual(self, first, second, msg=None):
    __tracebackhide__ = True
    for value in (first, second):
        if own_equality(value):
            raise self.failureException(f"{type(value).__name__} defines its own ==")
    return plain_equal(self, first, second, msg)


unittest.TestCase.assertEqual = assertEqual


class Hide:
    # At the first import of a module of the run's folder while one of its modules (the
    # test module) is being imported: that module's file is emptied, its lines kept for
    # tracebacks (linecache keeps lines with no time), so that the solution cannot read it
    # there.
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if os.path.exists(os.path.join(root, top + ".py")) or os.path.isdir(top):
            for module in list(sys.modules.values()):
                file = getattr(module, "__file__", None) or ""
                if file.startswith(root + os.sep) and os.path.isfile(file):
                    hide(file)
        return None


def hide(file):
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines(keepends=True)
        linecache.cache[file] = (sum(map(len, lines)), None, lines, file)
        # Emptied, not removed (pytest checks the module came from that file); a copy made
        # read-only (a candidate's) is the run's own to make writable.
        os.chmod(file, os.stat(file).st_mode | 0o200)
        open(file, "w").close()
    except OSError:
        pass


def canary(item, fails):
    token = urandom(6).hex()
    left, right = "a" + token, ("b" if fails else "a") + token
    if isinstance(item, TestCaseFunction):
        def test(self):
            self.assertEqual(left, right)
        setattr(item.parent.obj, "test_" + token, test)
        return TestCaseFunction.from_parent(item.parent, name="test_" + token)
    def test():
        assert left == right
    return pytest.Function.from_parent(item.parent, name="test_" + token, callobj=test)


class Watch:
    # Each test's outcome on the report pipe as it ends; around the tests, a test that must
    # fail and one that must pass beside the first test of each class or module, run by
    # pytest's own runner but not logged, with names nobody knows before.
    def pytest_sessionstart(self, session):
        if fd >= 0:
            write(fd, b"R")
        sys.path.insert(0, here)

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or not report.passed:
            say(f"test {report.outcome} {'.'.join(report.nodeid.split('::')[1:])}")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session):
        self.check(session)
        result = yield
        self.check(session)
        return result

    def check(self, session):
        firsts = {id(item.parent): item for item in reversed(session.items)}
        for item in firsts.values():
            for fails in (True, False):
                reports = runtestprotocol(canary(item, fails), log=False, nextitem=None)
                failed, passed = any(r.failed for r in reports), all(r.passed for r in reports)
                outcome = "failed" if failed else "passed" if passed else "skipped"
                say(f"canary {'fail' if fails else 'pass'} {outcome}")

    def pytest_sessionfinish(self, session, exitstatus):
        say(f"done {int(exitstatus)}")


sys.meta_path.insert(0, Hide())
sys.exit(int(pytest.main(sys.argv[1:], plugins=[Watch()])))
""".replace("@READY@", READY_VARIABLE)
"""Runs pytest as `python -m pytest` would, saying it is ready once its session starts: its
options and settings read, its plugins loaded, before it collects anything (which imports the
solution). What fails before that is the harness's failure; what fails after it may be the
solution's. The run's folder leaves the import path until then, so that no file there (a
solution's `random.py`, say) is loaded by pytest's own imports. After ready it streams each
test's outcome and the canaries' (see read_stream) on the same pipe, takes the test module's file
off the disk once the solution starts to load, and fails an assertEqual on a value whose ==
the solution wrote."""


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

    def judge(
        self, language: Language, exercise: Exercise, folder: Path, run: Outcome, expected: Expected
    ) -> Verdict:
        """Exit status 0, the canaries as they must be, and every test of the pristine files
        passing in each account of the run: the stream, the report and the output. A run that
        exited 0 without all that tampered with its tests."""
        if run.status != 0:
            return Verdict(False)
        expected = expected_tests(exercise)
        reason = doubt(read_stream(run.stream), expected) or _in_output(run.output)
        if reason is None:
            outcomes = read_report(folder / REPORT)
            shown = bool(outcomes) and FAILED not in outcomes.values()
            if not (shown and all(outcomes.get(name) == PASSED for name in expected)):
                reason = "its report does not show every test passing"
        return Verdict(reason is None, reason, tampering=reason)


@dataclass(frozen=True)
class Stream:
    """What the runner said on the report pipe after it was ready (see PYTEST): every line
    counts, so that a line the solution adds can only make it worse."""

    tests: dict[str, str]
    """Test -> failed if any of its reports failed, else its call's outcome."""
    canaries: tuple[tuple[str, str], ...]
    """(must "fail" or "pass", what it did), in the order they ran."""
    ends: tuple[str, ...]
    """The status pytest's session ended with, each time it said so."""


def read_stream(text: str) -> Stream:
    """The stream's lines, read as PYTEST writes them; lines it does not write are left out."""
    tests: dict[str, str] = {}
    canaries, ends = [], []
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "test":
            outcome, _, name = rest.partition(" ")
            if tests.get(name) != FAILED:
                tests[name] = outcome
        elif kind == "canary":
            must, _, did = rest.partition(" ")
            canaries.append((must, did))
        elif kind == "done":
            ends.append(rest)
    return Stream(tests, tuple(canaries), tuple(ends))


def doubt(stream: Stream, expected: set[str]) -> str | None:
    """Why the stream of a run that exited 0 shows no pass; None when it shows one."""
    if not stream.canaries:
        return "the tests' own checks could not be checked (the harness's canary tests never ran)"
    if any(must == "fail" and did != FAILED for must, did in stream.canaries):
        return "the tests' own checks were disabled (a test that must fail passed)"
    if any(must == "pass" and did != PASSED for must, did in stream.canaries):
        return "the tests' own checks were broken (a test that must pass did not)"
    if not stream.ends or any(end != "0" for end in stream.ends):
        return "pytest's session did not end with every test passing"
    failing = sorted(name for name, outcome in stream.tests.items() if outcome == FAILED)
    missing = sorted(name for name in expected if stream.tests.get(name) != PASSED)
    if failing or missing:
        return f"these tests did not pass as they ran: {', '.join((failing or missing)[:5])}"
    return None


SUMMARY = re.compile(r"(?m)^=*\s*(\d+ [a-z]+(, )?)*\d+ (failed|errors?)\b")
"""A pytest summary line that counts failures or errors."""


def _in_output(output: str) -> str | None:
    if SUMMARY.search(output):
        return "its output counts failing tests"
    return None


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
