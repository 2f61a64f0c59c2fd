"""One exercise against one model: the model edits the stubs through the chat's own turn
loop, the tests run, and one retry (by default) gets the test errors."""

from __future__ import annotations

import io
import re
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.hashing import RecordingModel
from benchmark.result import ExerciseResult, cause, passes
from coder.chat.session import Session, SessionConfig
from coder.edits.workspace import Workspace
from coder.seams.model import Model, transcript
from coder.terminal import Terminal
from coder.trust import rtc
from coder.trust.rtc import Change, RtcSettings
from coder.trust.selection.candidates import files_after
from editformats import get_format
from exercism import (
    Exercise,
    HarnessError,
    TestRun,
    TestSetup,
    copy_to,
    get_language,
    pytest_command,
    run_tests,
    solution_of,
)

INSTRUCTIONS = """\
{instructions}

Implement the stubs in {files} so that they solve the exercise described above. Use only the
{library}. Keep the names of the functions and classes in the stubs: they are
what the unit tests call."""

RETRY = (
    "The tests printed this (their output, quoted):\n\n{output}\n\n"
    "See the testing errors above. The tests are correct. "
    "Fix the code in {files} to resolve the errors."
)
CANDIDATE_TESTS = "exec " + shlex.join(pytest_command("-c", "/dev/null", "--rootdir", "."))
"""How candidates are tested with --candidate-tests (in the sandbox, on a copy of the work
folder), saying when pytest is ready; the model's own conftest.py and pytest settings files
are ignored (a bad one would stop pytest before it is ready: the model's doing, which must not
pass for the harness's)."""
OUTPUT_LINES = 50
"""Lines of the cleaned test output the retry message shows, at most."""
OUTPUT_CHARS = 6_000
"""Characters of it in all, at most: a solution may print one line of a megabyte."""
LINE_CHARS = 500
"""Characters of each of its lines, at most."""


def retry_message(output: str, files: str) -> str:
    """The retry's request: the first of the test output, bounded in lines and characters,
    quoted in a fence no line of it can close (what a solution printed is output, never
    instructions), then what to do."""
    lines = []
    for line in output.splitlines()[:OUTPUT_LINES]:
        over = len(line) - LINE_CHARS
        lines.append(f"{line[:LINE_CHARS]} [... {over:,} more characters]" if over > 0 else line)
    text = "\n".join(lines)
    if len(text) > OUTPUT_CHARS:
        text = text[:OUTPUT_CHARS] + "\n[... the rest of the output is left out]"
    fence = "```"
    while fence in text:
        fence += "`"
    return RETRY.format(output=f"{fence}text\n{text}\n{fence}", files=files)


Tester = Callable[[Exercise, Mapping[str, str], TestSetup], TestRun]
"""Runs an exercise's tests on a solution (its solution files, path -> text)."""


@dataclass(frozen=True)
class RunSettings:
    """How every exercise of a run is attempted."""

    edit_format: str = "diff"
    tries: int = 2
    """Attempts per exercise: the first, then retries with the test errors."""
    max_reflections: int = 3
    """Malformed replies sent back to the model within one attempt, as in the chat."""
    tests: TestSetup = field(default_factory=TestSetup)
    """The sandbox the tests run in, its limits (the test timeout among them), the secrets
    to redact from their output."""
    candidates: int = 1
    """Candidate replies per request, chosen between by the rules of coder/trust/selection."""
    candidate_tests: bool = False
    """Test the candidates with the exercise's own tests (in the sandbox) before choosing, and
    refine failing ones: the grading tests then steer the first try, as they steer the retry."""
    refine: int = 1
    plan: bool = False
    diverse: bool = False
    rtc: bool = False
    """Check the round trip of each exercise's final edit."""
    rtc_reference: bool = False
    """Check the round trip of each exercise's reference solution (the change from the stub to
    .meta/example.py), whatever the model's own attempt did."""
    rtc_settings: RtcSettings = field(default_factory=RtcSettings)
    consistency_prompt: bool = False
    """Put the consistency instruction before the system prompt (Patched RTC)."""
    tester: Tester = run_tests
    """What runs an exercise's tests on a solution: exercism's run_tests (a test's fake judge
    stands here)."""

    @property
    def attempts(self) -> bool:
        """Whether the model is asked to solve the exercises: not for --rtc-reference alone."""
        return self.rtc or not self.rtc_reference


def run_exercise(
    exercise: Exercise,
    make_model: Callable[[Path], Model],
    settings: RunSettings,
    workdir: Path,
    model_name: str = "",
) -> ExerciseResult:
    """Attempt one exercise in workdir (which must not exist yet); never raises: whatever
    fails, the model not starting included, is the result's error."""
    began = time.perf_counter()
    result = ExerciseResult(exercise.name, settings.edit_format, model_name, exercise.language)
    session = model = None
    try:
        _work_folder(exercise, workdir)
        model = RecordingModel(make_model(workdir))
        result.model = model.name
        session = _session(exercise, model, settings, workdir)
        _attempt(result, session, model, exercise, settings)
    except Exception as exc:  # the one place a run records any failure instead of stopping
        result.error = f"{type(exc).__name__}: {exc}"
        result.error_cause = cause(exc)
    _fill(result, session, model, time.perf_counter() - began)
    return result


def _work_folder(exercise: Exercise, workdir: Path) -> None:
    """The exercise's stubs copied to workdir; HarnessError when the disk refuses."""
    try:
        copy_to(exercise, workdir)
    except OSError as exc:
        raise HarnessError(f"the work folder of {exercise.name} could not be made: {exc}") from None


def _session(
    exercise: Exercise, model: RecordingModel, settings: RunSettings, workdir: Path
) -> Session:
    """The chat's session on the exercise's work folder, as the benchmark configures it."""
    return Session(
        model=model,
        fmt=get_format(settings.edit_format),
        ws=Workspace(workdir),
        repo=None,
        terminal=Terminal(out=io.StringIO(), err=io.StringIO()),
        config=SessionConfig(
            max_reflections=settings.max_reflections,
            auto_commits=False,
            candidates=settings.candidates,
            test_cmd=CANDIDATE_TESTS if settings.candidate_tests else None,
            candidate_tests=settings.candidate_tests,
            sandbox=settings.tests.sandbox,
            test_ready=True,
            test_pristine=_pristine(exercise),
            refine=settings.refine,
            plan=settings.plan,
            diverse=settings.diverse,
            consistency_prompt=settings.consistency_prompt,
            # The benchmark's own tests judge each try; a syntax check in between would add
            # requests that the 2023 study's figures do not have.
            check_syntax=False,
            # Each exercise is its stub alone, as in the 2023 study: a map of the folder would
            # show the model the exercise's tests.
            map_tokens=0,
        ),
        files=list(exercise.solution_files),
    )


def _pristine(exercise: Exercise) -> tuple[Path, tuple[str, ...], tuple[str, ...]]:
    """The pristine exercise, as --candidate-tests copies it: its files (those copy_to takes)
    from its own folder, the solution files the only ones a candidate writes over them."""
    folder = exercise.folder
    files = tuple(
        p.relative_to(folder).as_posix()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )
    return folder, files, tuple(exercise.solution_files)


def _attempt(
    result: ExerciseResult,
    session: Session,
    model: RecordingModel,
    exercise: Exercise,
    settings: RunSettings,
) -> None:
    """The tries: the request, then each retry with the test errors, until a pass or a run
    caught tampering; then the round trips."""
    files = ", ".join(exercise.solution_files)
    library = get_language(exercise.language).library
    request = INSTRUCTIONS.format(instructions=exercise.instructions, files=files, library=library)
    message = request
    stubs = {p: session.ws.read(p).text for p in exercise.solution_files}
    for attempt in range(1, settings.tries + 1 if settings.attempts else 1):
        model.attempt = attempt
        session.turn(message)
        _judge_candidates(result, session, exercise, settings, attempt)
        # A fresh copy of the pristine exercise with only the solution files: nothing else
        # the model wrote (a conftest.py, a changed test) reaches the tests.
        solution = solution_of(exercise, session.ws.root)
        run = settings.tester(exercise, solution, settings.tests)
        _count_test_run(result, run, get_language(exercise.language).compile_error)
        if run.tampering is not None:
            # Its own outcome: the output is what the solution made of the tests, no failure
            # for the model to fix, so no retry and no round trip of the edit.
            result.tampering, result.tampering_try = run.tampering, attempt
            break
        if run.passed:
            break
        message = retry_message(run.output, files)
    _round_trips(result, session, exercise, settings, stubs, request)


def _judge_candidates(
    result: ExerciseResult, session: Session, exercise: Exercise, settings: RunSettings, n: int
) -> None:
    """Run the exercise's tests on every distinct candidate of this try, each in a fresh
    pristine copy, to learn whether the choice passed when another candidate would have."""
    made = session.selection
    if made is None or made.choice is None:
        return
    passed = {}
    for c in made.distinct:
        files = files_after(c)
        solution = {p: t for p, t in files.items() if p in exercise.solution_files}
        passed[c.label] = passes(settings.tester(exercise, solution, settings.tests))
    chosen = passed[made.choice.label]
    result.selections.append(
        {
            "try": n,
            "rule": made.choice.rule,
            "votes": {c.label: c.votes for c in made.distinct},
            "passed": passed,
            "chosen": made.choice.label,
            "best_available": chosen or not any(passed.values()),
            "refined": sum(c.refines is not None for c in made.candidates),
            "fallback": made.choice.fallback,
        }
    )


def _round_trips(result, session, exercise, settings, stubs, request) -> None:
    """The round trips asked for: of the final edit (not of one caught tampering: the
    exercise ended there), of the reference solution."""
    if settings.rtc and result.tampering is None:
        after = {p: session.ws.read(p).text for p in stubs}
        result.rtc = _round_trip(session, _change(stubs, after, request), exercise, settings)
    if settings.rtc_reference:
        change = _change(stubs, exercise.example_solution(), request)
        result.rtc_reference = _round_trip(session, change, exercise, settings)


def _change(stubs: dict[str, str], after: dict[str, str], request: str) -> Change:
    """The change of the solution files that changed, the others as context."""
    changed = {p: t for p, t in after.items() if stubs.get(p) != t}
    before = {p: stubs[p] for p in changed if p in stubs}
    context = {p: t for p, t in stubs.items() if p not in changed}
    return Change(before, changed, context, request)


def _round_trip(
    session: Session, change: Change, exercise: Exercise, settings: RunSettings
) -> dict:
    """RTC of one change of the solution files, every re-make run on the exercise's tests."""

    def behaviour(files: dict[str, str]) -> dict[str, bool]:
        solution = change.context | change.before | files
        solution = {p: t for p, t in solution.items() if p in exercise.solution_files}
        return {"the exercise's tests": passes(settings.tester(exercise, solution, settings.tests))}

    report = rtc.check(session.model, session.fmt, change, settings.rtc_settings, behaviour)
    blind = report.baseline
    return {
        "verdict": report.verdict,
        "score": round(report.score, 3),
        "lift": round(report.lift, 3),
        "blind": blind.tier if blind else None,
        "reason": report.reason,
        "tiers": [s.tier for s in report.samples],
        "tests": [s.tests for s in report.samples],
        "original_tests": report.original_tests,
        "similarity": [round(s.similarity, 3) for s in report.samples],
        "descriptions": [s.description for s in report.samples],
        "leaked": sum(s.leaked for s in report.samples),
        "prompt_tokens": report.usage.prompt_tokens,
        "completion_tokens": report.usage.completion_tokens,
        "cost": report.usage.cost,
    }


def _count_test_run(result: ExerciseResult, run: TestRun, compile_error: str) -> None:
    """The try's outcome and counters; a syntax or compile error is the language's own
    (compile_error), an indentation error Python's."""
    result.tests_outcomes.append(passes(run))
    result.test_seconds += run.seconds
    result.test_timeouts += run.timed_out
    indented = "IndentationError" in run.output
    result.indentation_errors += indented
    result.syntax_errors += bool(re.search(compile_error, run.output)) and not indented


def _fill(
    result: ExerciseResult,
    session: Session | None,
    model: RecordingModel | None,
    seconds: float,
) -> None:
    result.seconds = seconds
    if model is not None:
        result.model_seconds = round(model.seconds, 3)
        result.requests = list(model.records)
    if session is None:
        return
    result.prompt_tokens = session.usage.prompt_tokens
    result.completion_tokens = session.usage.completion_tokens
    result.cost = session.usage.cost
    result.no_edits = session.counts["no_edits"]
    result.parse_errors = session.counts["parse_errors"]
    result.apply_failures = session.counts["apply_failures"]
    result.reflections = session.counts["reflections"]
    result.lazy_comments = session.counts["lazy"]
    result.chat = transcript(session.history)
