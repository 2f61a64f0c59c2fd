"""Running an exercise's tests on a model's solution, contained: a fresh copy of the pristine
exercise plus only the solution files, every test switched on, in a sandbox with limits on the
whole process tree and an allow-listed environment; what varies by language comes from its row
(exercism/languages/). Pass or fail is decided here, after the sandbox is gone; the output is
cleaned so that identical results print identical text, and any secret of this process in it
is redacted."""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import glob
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from exercism import results
from exercism.driver import Steps
from exercism.exercise import Exercise, copy_to
from exercism.expected import expected
from exercism.language import Expected, Language, Report, Verdict
from exercism.languages import get_language
from exercism.prepare import default_cache, is_prepared
from exercism.toolchain import ToolchainMissing, locate
from sandbox import Limits, Outcome, Refused, Sandbox, get_sandbox, redact, scratch

ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    # The user's pytest plugins would slow every run by a second or more, and change it.
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
}
"""The whole environment of the tests (an allow-list: no key of the user's reaches them),
before the language's own settings and its toolchain's PATH."""


STEPS = Steps()
"""The runner of every language without one of its own."""


class HarnessError(Exception):
    """The tests could not run, for a reason of the harness and not of the solution: the
    sandbox did not start, the test runner or the toolchain could not be executed or stopped
    before it was ready, the scratch folder could not be made, what the tests need was not
    prepared. The message says which, with the sandbox's or the toolchain's own words."""


@dataclass(frozen=True)
class TestSetup:
    """How tests run: the sandbox, its limits, the secrets to redact from what they print,
    the prepared cache."""

    sandbox: Sandbox | None = None
    """None: the strongest sandbox this machine allows, chosen once."""
    limits: Limits = field(default_factory=Limits)
    """Raised, for a language that needs more (a compile), to what it needs."""
    secrets: tuple[str, ...] = ()
    cache: Path | None = None
    """What `benchmark --prepare` fetched; None: the default place (exercism/prepare.py)."""


@dataclass(frozen=True)
class TestRun:
    """The outcome of one run of an exercise's tests."""

    passed: bool
    output: str
    """The test runner's output, cleaned of timings and temporary paths, secrets redacted."""
    timed_out: bool = False
    seconds: float = 0.0
    exceeded: str | None = None
    """The limit that stopped the tests, if one did: time, cpu, memory or processes."""
    tampering: str | None = None
    """What the run was caught doing to its own tests, in a sentence (tests skipped, filtered
    out or added; a status written after the last test; a test framework, the harness or the
    build changed); None when nothing was. Such a run is no pass, and its output is not the
    model's to fix."""


def solution_of(exercise: Exercise, workdir: Path) -> dict[str, str]:
    """The solution files as the model left them in workdir, with the files its language lets
    a solution add (a symlink or a file that is not text counts as missing: the tests then
    fail to build or import it)."""
    found = {}
    added = [
        str(Path(p).relative_to(workdir))
        for pattern in get_language(exercise.language).extra_files
        for p in sorted(glob.glob(str(workdir / pattern), recursive=True))
    ]
    for name in dict.fromkeys([*exercise.solution_files, *added]):
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
    HarnessError when they could not run for a reason that is not the solution's (the
    reference solution, run once to count the tests, not passing among them)."""
    setup = setup or TestSetup()
    language = get_language(exercise.language)
    refused = language.refuse(exercise, solution) if language.refuse else None
    if refused is not None:
        seen = refused.why if refused.tampering else None
        return TestRun(False, f"The tests did not run: {refused.why}.", tampering=seen)
    return _run(exercise, language, solution, setup, count_tests(exercise, setup))[0]


def count_tests(exercise: Exercise, setup: TestSetup | None = None) -> Expected:
    """The tests every run of the exercise must report passing, counted from its reference
    solution's run once per exercise and harness, then kept (exercism/expected.py); empty for
    a language whose runner judges by other means (Python); HarnessError when the reference
    solution does not pass in this harness."""
    setup = setup or TestSetup()
    language = get_language(exercise.language)
    if language.report is None:
        return Expected()
    count = functools.partial(_count, exercise, language, setup)
    return expected(exercise, language, _cache(setup), count)


def _count(exercise: Exercise, language: Language, setup: TestSetup) -> Expected:
    """The tests the reference solution's run reports; HarnessError when it does not pass."""
    assert language.report is not None
    run, outcome = _run(exercise, language, exercise.example_solution(), setup, None)
    found = results.read(outcome.stream, language.report.form, language.report_step())
    counted = results.expected_of(found, outcome.status)
    if counted is not None:
        return counted
    raise HarnessError(
        f"the reference solution of {exercise.name} ({language.title}) does not pass in this"
        f" harness, so no try of it can be judged: {run.output[-3000:]}"
    )


def _run(
    exercise: Exercise,
    language: Language,
    solution: Mapping[str, str],
    setup: TestSetup,
    against: Expected | None,
) -> tuple[TestRun, Outcome]:
    """One contained run of the tests, judged against the expected tests (None: not judged,
    the run of the reference solution that counts them), and how it ended."""
    sandbox = setup.sandbox or default_sandbox()
    cache = _cache(setup)
    env, shared = _environment(language, cache)
    with _scratch() as scratch:
        folder = _prepared(exercise, language, solution, scratch, cache)
        runner = language.runner or STEPS
        command = runner.command(language, exercise, cache)
        limits = language.limits(setup.limits)
        outcome = sandbox.run(command, folder, limits, env, ready=True, shared=shared)
        if outcome.not_started is not None:
            raise HarnessError(
                f"the tests of {exercise.name} ({language.title}) could not run"
                f" ({sandbox.kind} sandbox): {redact(outcome.not_started, setup.secrets)}"
            )
        verdict, refused = Verdict(outcome.status == 0), None
        try:
            if against is not None:
                verdict = runner.judge(language, exercise, folder, outcome, against)
        except Refused as exc:
            verdict, refused = Verdict(False), str(exc)
    text = redact(_output(outcome, folder, language, verdict, refused), setup.secrets)
    timed_out = outcome.exceeded in ("time", "cpu")
    return (
        TestRun(
            verdict.passed, text, timed_out, outcome.seconds, outcome.exceeded, verdict.tampering
        ),
        outcome,
    )


def _cache(setup: TestSetup) -> Path:
    """The prepared cache the tests read: the setup's, else the default place."""
    return (setup.cache or default_cache({})).resolve()


def _output(
    outcome: Outcome, folder: Path, language: Language, verdict: Verdict, refused: str | None
) -> str:
    """The run's output, cleaned, with what the judge saw that the output may not say."""
    text = clean(outcome.output, folder, "/sandbox")
    for pattern in language.noise:
        text = re.sub(pattern, "", text)
    if outcome.exceeded:
        text += f"\nThe tests were stopped: they passed the {_LIMITS[outcome.exceeded]}."
    elif refused:
        text += f"\n{refused}"
    elif verdict.tampering:
        text += f"\nThe results do not count: {verdict.reason}."
    elif outcome.status == 0 and not verdict.passed:
        why = verdict.reason or "their report does not show every test passing"
        text += f"\nThe tests exited with status 0 but {why}."
    elif verdict.reason and not verdict.passed:
        text += f"\nThe tests did not pass: {verdict.reason}."
    return text.strip()


def _environment(language: Language, cache: Path) -> tuple[dict[str, str], tuple[Path, ...]]:
    """The tests' environment and the folders they read besides the system's: the toolchain's
    and the prepared cache's; HarnessError when either is missing."""
    if not language.programs and language.prepare is None:
        return dict(ENV), ()
    try:
        toolchain = locate(language)
    except ToolchainMissing as exc:
        raise HarnessError(str(exc)) from None
    if not is_prepared(language, cache):
        raise HarnessError(
            f"{language.title}'s tests need what `benchmark --prepare {language.name}` fetches"
            f" into {cache / language.name}, which is not there"
        )
    env = ENV | {"PATH": ":".join(toolchain.path)}
    env |= {key: value.replace("{cache}", str(cache)) for key, value in language.env.items()}
    shared = toolchain.folders + ((cache / language.name,) if language.prepare else ())
    return env, shared


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    """A temporary folder for one test run, removed after it whatever the run left there
    (sandbox.scratch); HarnessError if it cannot be made or removed."""
    try:
        path = Path(tempfile.mkdtemp(prefix="coder-tests-"))
    except OSError as exc:
        raise HarnessError(f"no scratch folder for the tests: {exc}") from None
    try:
        yield path
    finally:
        try:
            scratch.remove(path)
        except OSError as exc:
            raise HarnessError(f"the tests' scratch folder could not be removed: {exc}") from None


def _prepared(
    exercise: Exercise,
    language: Language,
    solution: Mapping[str, str],
    scratch: Path,
    cache: Path,
) -> Path:
    """The run's folder: a fresh copy of the pristine exercise in scratch (in a folder named
    for it, for a nested language), every test switched on, the links to the prepared cache,
    the solution files written over the stubs; HarnessError when the disk refuses."""
    run_folder = scratch / exercise.name
    try:
        copy = copy_to(exercise, run_folder / exercise.name if language.nested else run_folder)
        for name in exercise.test_files:
            if language.unskip and (copy / name).is_file():
                (copy / name).write_text(language.unskipped((copy / name).read_text()))
        for name, target in language.links.items():
            (copy / name).symlink_to(target.replace("{cache}", str(cache)))
        allowed = _allowed(exercise, language, solution)
        for name in exercise.solution_files:
            (copy / name).unlink(missing_ok=True)
        for name in allowed:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_text(solution[name], encoding="utf-8")
        if language.report is not None:
            _plant(language.report, copy)
    except OSError as exc:
        raise HarnessError(
            f"the scratch copy of {exercise.name} could not be made: {exc}"
        ) from None
    return run_folder


def _plant(report: Report, copy: Path) -> None:
    """The harness's reporters added to the run's copy: its files, and its code at the end
    of the test files it goes in."""
    for name, text in report.files.items():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_text(text, encoding="utf-8")
    if report.append is not None:
        pattern, code = report.append
        for name in sorted(glob.glob(pattern, root_dir=copy)):
            with open(copy / name, "a", encoding="utf-8") as f:
                f.write(code)


def _allowed(exercise: Exercise, language: Language, solution: Mapping[str, str]) -> list[str]:
    """The files of solution written to the run: the solution files, and the files its
    language lets a solution add that are none of the exercise's other files."""
    names = []
    for name in solution:
        added = any(fnmatch.fnmatch(name, p) for p in language.extra_files)
        safe = ".." not in Path(name).parts and not Path(name).is_absolute()
        if name in exercise.solution_files or (added and safe and name not in exercise.test_files):
            names.append(name)
    return names


_LIMITS = {
    "time": "limit on wall time",
    "cpu": "limit on processor time",
    "memory": "limit on memory",
    "processes": "limit on the number of processes",
    "disk": "limit on the space its files take (in its folder, /tmp and /dev/shm)",
    "files": "limit on the number of files it makes (in its folder, /tmp and /dev/shm)",
}


@functools.cache
def default_sandbox() -> Sandbox:
    """The strongest sandbox this machine allows, chosen once per process."""
    return get_sandbox("auto")


def clean(output: str, *workdirs: Path | str) -> str:
    """The output without the parts that change from run to run: timings, paths, addresses."""
    text = output
    for workdir in workdirs:
        text = text.replace(str(workdir), ".")
    text = re.sub(r" in \d+(\.\d+)?s( \([0-9:]+\))?", "", text)
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", text)
    text = re.sub(r"/tmp/[^\s:'\"]+", "<tmp>", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())
