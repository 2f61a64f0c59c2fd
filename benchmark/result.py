"""What is recorded about one exercise of a run (saved as JSON), and whose failure an error
that ended it early is."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from coder.errors import ModelError, SandboxFailure
from exercism import HarnessError, TestRun
from sandbox import SandboxError


@dataclass
class ExerciseResult:
    """Everything recorded about one exercise; saved as JSON."""

    exercise: str
    edit_format: str
    model: str
    language: str = "python"
    tests_outcomes: list[bool] = field(default_factory=list)
    """Whether the tests passed after each try."""
    seconds: float = 0.0
    test_seconds: float = 0.0
    model_seconds: float = 0.0
    """Time spent waiting for the model, summed over calls."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    no_edits: int = 0
    """Replies with no edit at all (malformed, as in the 2023 study)."""
    parse_errors: int = 0
    apply_failures: int = 0
    reflections: int = 0
    lazy_comments: int = 0
    syntax_errors: int = 0
    indentation_errors: int = 0
    test_timeouts: int = 0
    requests: list[dict] = field(default_factory=list)
    """Every call to the model, as benchmark.hashing records it (kind, temperature, hashes)."""
    selections: list[dict] = field(default_factory=list)
    """Per try with candidates: the rule that chose, the distinct candidates' labels and votes,
    whether each passes the exercise's tests, the choice, and whether it was the best
    available (it passes, or none does)."""
    rtc: dict | None = None
    """The round trip of the final edit: verdict, score, the tier that decided each sample,
    each re-make's test outcome, the blind re-make, the lift."""
    rtc_reference: dict | None = None
    """The same for the reference solution's change."""
    tampering: str | None = None
    """What the tests' run was caught doing to its own tests (TestRun.tampering), at try
    tampering_try: the exercise ended there, failed, its output never sent to the model."""
    tampering_try: int | None = None
    error: str | None = None
    """A model or harness failure that ended the exercise early."""
    error_cause: str | None = None
    """Whose failure the error is (see CAUSES): "harness" when the tests could not run at all,
    which says nothing of the model."""
    chat: str = ""

    def to_json(self) -> dict:
        """The result as a JSON-ready dict."""
        return asdict(self)


def passes(run: TestRun) -> bool:
    """Whether a run of the tests is a pass: a run caught tampering never is, whatever it
    claims."""
    return run.passed and run.tampering is None


CAUSES = {
    "harness": "the tests could not run at all (the sandbox, the toolchain, the disk)",
    "request": "a request to the model failed (the provider refused it or did not answer)",
    "other": "anything else (an exercise that cannot be read, a bug)",
}
"""Whose failure an exercise's error is."""


def cause(exc: Exception) -> str:
    """The key of CAUSES that exc falls under."""
    if isinstance(exc, (HarnessError, SandboxError, SandboxFailure)):
        return "harness"
    if isinstance(exc, ModelError):
        return "request"
    return "other"
