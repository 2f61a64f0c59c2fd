"""What varies by language in running an exercise's tests, as data: one frozen Language per
language (exercism/languages/ holds the rows), and the procedure in exercism/testrun.py."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sandbox import Limits, Outcome

if TYPE_CHECKING:
    from exercism.exercise import Exercise

NO_NEEDS = Limits(**{f.name: 0 for f in dataclasses.fields(Limits)})


class Runner(Protocol):
    """How a language's tests are run in the sandbox and judged once it is gone."""

    def command(self, language: Language, exercise: Exercise, cache: Path) -> list[str]:
        """The command run in the run's folder; it says when it is ready (see Sandbox.run)."""
        ...

    def judge(
        self, language: Language, exercise: Exercise, folder: Path, run: Outcome, expected: Expected
    ) -> Verdict:
        """Whether the run shows every test expected passing, and if not, why (when that is not
        plain from the output) and whether it tampered with its tests."""
        ...


@dataclass(frozen=True)
class Verdict:
    """Whether a test run is a pass, and why not when that is not plain from its exit status."""

    passed: bool
    reason: str | None = None
    """Why the run is no pass when its output may not say it ("the tests' own checks were
    disabled"); None: the output says it."""
    tampering: str | None = None
    """What the run was seen doing to its own tests, when it was (see TestRun.tampering)."""


@dataclass(frozen=True)
class Expected:
    """The test cases a language's runner reports for the reference solution: what every run
    of the exercise must report passing, each as often."""

    passed: Mapping[str, int] = field(default_factory=dict)
    """Test -> how many times it passed (a name may stand in two test files)."""
    skipped: frozenset[str] = frozenset()
    """Tests the runner skips even for the reference solution."""


@dataclass(frozen=True)
class Report:
    """How a language's test runner reports each test as it ends: on a pipe of the step's own
    ($CODER_REPORT_FD; {report} in its command is the pipe's path), which the driver relays on
    the run's report (exercism/driver.py), read by exercism/results.py."""

    step: int = -1
    """The step that runs the tests, as an index of Language.steps (-1: the last)."""
    form: str = "lines"
    """"lines": `case passed|failed|skipped|aborted NAME`, `error WHAT`, `tamper WHAT` and
    `done` (the harness's own reporters); "libtest": Rust's log lines (`ok NAME`)."""
    events: bool = False
    """The step's standard output is `go test -json`'s events, which the driver turns into
    lines, printing the output of the tests that fail."""
    files: Mapping[str, str] = field(default_factory=dict)
    """The harness's reporters: files written into the run's copy (relative path -> text)."""
    append: tuple[str, str] | None = None
    """(glob of test files, code) appended to each of them: a reporter in the tests' own
    program (Catch's listener)."""


@dataclass(frozen=True)
class Refusal:
    """Why a solution may not run the exercise's tests, in a sentence."""

    why: str
    tampering: bool = True
    """What the solution tampers with; False: it cannot be checked (a manifest the harness
    cannot read), an ordinary failure."""


Refuse = Callable[["Exercise", Mapping[str, str]], "Refusal | None"]
"""Why a solution (file -> text) may not run the exercise's tests; None when it may: a static
check of what it would tamper with (exercism/refusals.py)."""


Prepare = Callable[[Path, Sequence["Exercise"], Callable[[str], None]], None]
"""Fetches what a language's tests need into a folder (made, empty), given the exercises of
the language that were found and a function to say what it does."""


@dataclass(frozen=True)
class Language:
    """One language of the benchmark: its files, its test commands, its toolchain, what the
    tests need from the registries, and how a pass shows."""

    name: str
    """As --languages takes it, and the folder of aider's layout (`go/exercises/practice`)."""
    title: str
    """As people write it, for the model's instructions and the reports."""
    library: str
    """What a solution may use, for the instructions ("Use only the Go standard library")."""
    fence: str
    """The language's tag on a fenced code block."""
    programs: tuple[str, ...]
    """The toolchain's programs, found on this machine's PATH at start."""
    install: str
    """How to install the toolchain, for the refusal when one of its programs is missing."""
    files: tuple[str, ...] = ()
    """Files the tests need from the system (headers), checked with the programs."""
    root: tuple[str, ...] = ()
    """A command printing the toolchain's own folder, when it lies outside the system folders:
    its bin goes first on the tests' PATH and it is bound read-only in the sandbox."""
    system: tuple[str, ...] = ()
    """Globs of system folders outside those every sandbox binds that the toolchain reads
    (the JDK's settings under /etc), bound read-only."""
    runner: Runner | None = None
    """None: the driver of exercism/driver.py runs the probe and the steps."""
    probe: tuple[str, ...] = ()
    """Run in the sandbox before the tests: the toolchain ran at all there. Its failure is the
    harness's, and the tests run only after it ("ready"); {cache} is the prepared cache."""
    steps: tuple[tuple[str, ...], ...] = ()
    """The test commands, in order, each run when the one before passed; a word `glob:PATTERN`
    is a glob in the run's folder; {cache}, {here} (the run's folder) and, in the reporting
    step, {report} (its report pipe's path) are filled in."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Added to the tests' environment, {cache} and {here} filled in."""
    links: Mapping[str, str] = field(default_factory=dict)
    """Symlinks made in the run's folder to the prepared cache (`node_modules`)."""
    unskip: tuple[tuple[str, str], ...] = ()
    """(pattern, replacement) applied to the test files, so that every test runs."""
    report: Report | None = None
    """How the tests report each test case; None: the runner watches them itself (Python)."""
    refuse: Refuse | None = None
    """Why a solution is refused before any test runs (it declares a test framework's package,
    changes the build); None: every solution runs."""
    compile_error: str = r"SyntaxError"
    """A pattern of the output of a solution that does not parse or compile, counted apart."""
    noise: tuple[str, ...] = ()
    """Patterns taken out of the output beside the common ones (exercism.clean): the runner's
    timings, so that identical results print identical text."""
    nested: bool = False
    """The run's folder holds a folder named for the exercise, where the commands run (cmake
    names the project for the folder it is in)."""
    extra_files: tuple[str, ...] = ()
    """Globs of files a solution may add beside its stubs (a Java helper class)."""
    needs: Limits = NO_NEEDS
    """The least a test run is given whatever the run's limits say: a compile takes its time,
    a JVM its threads."""
    prepare: Prepare | None = None
    """What `benchmark --prepare` does for it, into the cache's folder named for it; None when
    its tests need nothing from the registries."""

    def report_step(self) -> int:
        """The index of the step that runs the tests and reports them (see Report.step)."""
        return self.report.step % len(self.steps) if self.report and self.steps else -1

    def unskipped(self, text: str) -> str:
        """A test file's text with every skip taken out."""
        for pattern, replacement in self.unskip:
            text = re.sub(pattern, replacement, text)
        return text

    def limits(self, given: Limits) -> Limits:
        """The given limits raised to what this language needs at least."""
        return Limits(
            **{
                f.name: max(getattr(given, f.name), getattr(self.needs, f.name))
                for f in dataclasses.fields(Limits)
            }
        )
