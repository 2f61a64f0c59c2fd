"""Candidate patches for one request: validated in memory, grouped by the change they make (the
equivalence judge of coder/trust/equivalence.py) with vote counts, and labelled. Nothing here writes
to the working tree."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace

from coder.edits import editing
from coder.edits.workspace import Workspace
from coder.seams.model import Completion, Message
from coder.trust import equivalence
from editformats import EditFormat, ReplyError

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_CANDIDATES = len(LABELS)


@dataclass(frozen=True)
class TestEvidence:
    """How a candidate did under the test command, next to the unedited code."""

    passed: bool
    """The test command exited with status 0."""
    fixed: int = 0
    """Tests that fail on the unedited code and pass with the candidate."""
    broken: int = 0
    """Tests that pass on the unedited code and fail with the candidate."""
    passing: int = 0
    """Tests that pass with the candidate (0 when per-test results are unknown)."""
    failing: int = 0
    """Tests that fail with the candidate; when per-test results are unknown, 1 for a failed
    run and 0 for a passed one."""
    output: str = ""
    """What the test command printed (capped, secrets redacted): shown to the model when the
    candidate is refined."""

    def summary(self) -> str:
        """A short cell for the table and the selector's prompt."""
        verdict = "pass" if self.passed else "fail"
        if not (self.fixed or self.broken or self.passing):
            return verdict
        counts = f"{self.passing} passing, {self.failing} failing"
        return f"{verdict}: {counts}, {self.fixed} fixed, {self.broken} broken"


@dataclass(frozen=True)
class Candidate:
    """One generated reply, what it does to the files, and the evidence about it."""

    index: int
    """Generation order; candidate 0 is the one at temperature 0."""
    temperature: float
    completion: Completion | None
    """None when the model call failed."""
    proposal: editing.Proposal | None = None
    problem: str | None = None
    """Why the candidate is invalid; None when it is valid."""
    votes: int = 1
    """How many first-round candidates made the same change (this one included when it is
    one): independent samples only, so a refinement adds no vote."""
    tests: TestEvidence | None = None
    label: str = ""
    variant: str = ""
    """The prompt variant it was asked with ("" for the plain request)."""
    refines: int | None = None
    """The index of the candidate this one corrects after its tests failed; None for a
    candidate of the first round."""
    base: Mapping[str, str] | None = None
    """For a refinement: the files as the corrected candidate left them (path -> text), which
    this reply's edits apply to."""
    asked: tuple[Message, ...] = ()
    """The messages of the request it answers, as sent (with its angle or plan instruction);
    empty when they are the plain request's."""
    exchange: tuple[Message, ...] = ()
    """The messages after those and before this reply: a plan and the request to go on, or,
    for a refinement, the corrected candidate's reply, the answers to its calls and the test
    output."""

    @property
    def valid(self) -> bool:
        """It parses, applies, changes something, compiles and touches only allowed files."""
        return self.problem is None

    @property
    def size(self) -> int:
        """Lines added and removed."""
        if self.proposal is None:
            return 0
        return sum(
            1
            for line in self.proposal.diff().splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        )


def validate(
    fmt: EditFormat,
    answers: list[tuple[Candidate, Completion | Exception]],
    ws: Workspace,
    files: list[str],
    read_only: list[str],
) -> list[Candidate]:
    """Each answer, given with the candidate it completes (index, temperature, variant and,
    for a refinement, what it corrects), applied in memory and checked."""
    candidates = []
    for candidate, answer in answers:
        if isinstance(answer, Exception):
            candidates.append(replace(candidate, problem=f"model error: {answer}"))
            continue
        proposal, problem = _check(fmt, answer, ws, files, read_only, candidate.base)
        candidates.append(replace(candidate, completion=answer, proposal=proposal, problem=problem))
    return candidates


def _check(
    fmt: EditFormat,
    completion: Completion,
    ws: Workspace,
    files: list[str],
    read_only: list[str],
    base: Mapping[str, str] | None,
) -> tuple[editing.Proposal | None, str | None]:
    if completion.interrupted:
        return None, "interrupted"
    if completion.truncated:
        return None, "cut off at the model's length limit"
    try:
        proposal = editing.propose(fmt, completion.reply, ws, files, base=base)
    except ReplyError as exc:
        return None, f"does not parse: {_first_line(str(exc))}"
    result = proposal.result
    if result.failures:
        return proposal, f"an edit failed: {_first_line(result.failures[0].reason)}"
    if result.deleted:
        return proposal, "deletes or renames a file, which candidates are not compared on"
    changed = [p for p, text in result.files.items() if text != proposal.originals[p].text]
    if not changed:
        return proposal, "changes nothing"
    if base is not None:
        own = [p for p, t in result.files.items() if t != base.get(p, proposal.originals[p].text)]
        if not own:
            return proposal, "changes nothing over the candidate it corrects"
    for path in changed:
        if path in read_only:
            return proposal, f"edits {path}, which is read-only"
        if path not in files and proposal.originals[path].exists:
            return proposal, f"edits {path}, which is not in the chat"
    for path in changed:
        broken = _compile_error(path, proposal.originals[path].text, result.files[path])
        if broken:
            return proposal, broken
    return proposal, None


def _compile_error(path: str, old: str, new: str) -> str | None:
    """Why a Python file that compiled (or is new) no longer compiles; None otherwise."""
    if not path.endswith(".py"):
        return None
    if old and _compiles(old) is not None:
        return None
    error = _compiles(new)
    return f"{path} no longer compiles: {error}" if error else None


def _compiles(text: str) -> str | None:
    try:
        compile(text, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        return f"{type(exc).__name__} on line {line}" if line else type(exc).__name__
    return None


def group(candidates: list[Candidate]) -> list[Candidate]:
    """The valid candidates with distinct changes, each with the votes of the first-round
    candidates that make the same change (by the equivalence judge), in generation order."""
    groups: dict[tuple, list[Candidate]] = {}
    for c in candidates:
        if c.valid and c.proposal is not None:
            groups.setdefault(change_key(c.proposal), []).append(c)
    return [
        replace(group[0], votes=sum(c.refines is None for c in group)) for group in groups.values()
    ]


def change_key(proposal: editing.Proposal) -> tuple:
    """What a proposal changes, equal for two proposals exactly when the equivalence judge
    finds every changed file the same."""
    return tuple(
        (path, equivalence.key(path, text))
        for path, text in sorted(proposal.result.files.items())
        if text != proposal.originals[path].text
    )


def files_after(candidate: Candidate) -> dict[str, str]:
    """Every file the candidate's proposal read or wrote, as the candidate leaves it."""
    proposal = candidate.proposal
    assert proposal is not None
    texts = {p: f.text for p, f in proposal.originals.items() if f.exists}
    return texts | dict(proposal.result.files)


def label(candidates: list[Candidate], distinct: list[Candidate], request_text: str):
    """Letter labels for the distinct candidates in an order shuffled by the request (so that
    the selector sees no generation order, yet the same request gets the same labels), and
    the full list with the labels of the distinct ones copied onto their duplicates."""
    seed = hashlib.sha256(request_text.encode()).digest()
    order = list(distinct)
    random.Random(seed).shuffle(order)
    labelled = [replace(c, label=_label(n)) for n, c in enumerate(order)]
    by_key = {change_key(c.proposal): c.label for c in labelled}
    everyone = [
        replace(c, label=by_key.get(change_key(c.proposal), "")) if c.valid else c
        for c in candidates
    ]
    return sorted(labelled, key=lambda c: c.label), everyone


def _label(n: int) -> str:
    """A, B, ... Z, then A2, B2, ... (refinements can make more groups than letters)."""
    return LABELS[n % len(LABELS)] + (str(n // len(LABELS) + 1) if n >= len(LABELS) else "")


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:160] if lines else ""
