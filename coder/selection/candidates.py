"""Several candidate patches for one request: generated as independent parallel calls at spread
temperatures, validated in memory, deduplicated with vote counts, then chosen between by the
LLM selector (coder/selector.py). Nothing here writes to the working tree."""

from __future__ import annotations

import ast
import hashlib
import random
from dataclasses import dataclass, replace

from coder import editing
from coder.model import Completion, Model, Request, Usage, complete_all, usage_of
from coder.workspace import Workspace
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

    def summary(self) -> str:
        """A short cell for the table and the selector's prompt."""
        if not (self.fixed or self.broken or self.passing):
            return "pass" if self.passed else "fail"
        verdict = "pass" if self.passed else "fail"
        return f"{verdict}: {self.passing} passing, {self.fixed} fixed, {self.broken} broken"


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
    """How many candidates made the same change (this one included)."""
    tests: TestEvidence | None = None
    label: str = ""

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


def temperatures(n: int) -> list[float]:
    """The first at 0, the others spread evenly from 0.4 to 1.0."""
    if n <= 1:
        return [0.0][:n]
    if n == 2:
        return [0.0, 0.7]
    return [0.0] + [round(0.4 + 0.6 * i / (n - 2), 2) for i in range(n - 1)]


def generate(model: Model, request: Request, n: int) -> tuple[list[Completion | Exception], Usage]:
    """n answers to request as independent calls, each at its own temperature and seed."""
    requests = [
        replace(request, temperature=t, seed=None if i == 0 else i)
        for i, t in enumerate(temperatures(n))
    ]
    answers = complete_all(model, requests)
    return answers, usage_of(answers)


def validate(
    fmt: EditFormat,
    answers: list[Completion | Exception],
    ws: Workspace,
    files: list[str],
    read_only: list[str],
) -> list[Candidate]:
    """Each answer as a candidate, applied in memory and checked."""
    candidates = []
    spread = temperatures(len(answers))
    for index, (answer, temperature) in enumerate(zip(answers, spread, strict=True)):
        if isinstance(answer, Exception):
            candidates.append(Candidate(index, temperature, None, problem=f"model error: {answer}"))
            continue
        proposal, problem = _check(fmt, answer, ws, files, read_only)
        candidates.append(Candidate(index, temperature, answer, proposal, problem))
    return candidates


def _check(
    fmt: EditFormat, completion: Completion, ws: Workspace, files: list[str], read_only: list[str]
) -> tuple[editing.Proposal | None, str | None]:
    if completion.interrupted:
        return None, "interrupted"
    try:
        proposal = editing.propose(fmt, completion.reply, ws, files)
    except ReplyError as exc:
        return None, f"does not parse: {_first_line(str(exc))}"
    result = proposal.result
    if result.failures:
        return proposal, f"an edit failed: {_first_line(result.failures[0].reason)}"
    changed = [p for p, text in result.files.items() if text != proposal.originals[p].text]
    if not changed:
        return proposal, "changes nothing"
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


def dedupe(candidates: list[Candidate]) -> list[Candidate]:
    """The valid candidates with distinct changes, each with the votes of its duplicates, in
    generation order. Changes are compared after normalising whitespace, and for Python by
    their syntax trees (so comments and layout do not count)."""
    groups: dict[tuple, list[Candidate]] = {}
    for c in candidates:
        if c.valid and c.proposal is not None:
            groups.setdefault(change_key(c.proposal), []).append(c)
    return [replace(group[0], votes=len(group)) for group in groups.values()]


def change_key(proposal: editing.Proposal) -> tuple:
    """What a proposal changes, normalised."""
    return tuple(
        (path, normalise(path, text))
        for path, text in sorted(proposal.result.files.items())
        if text != proposal.originals[path].text
    )


def normalise(path: str, text: str) -> str:
    """The text with layout removed: a Python syntax tree when it parses, else the words."""
    if path.endswith(".py"):
        try:
            return ast.dump(ast.parse(text))
        except (SyntaxError, ValueError):
            pass
    return " ".join(text.split())


def label(candidates: list[Candidate], distinct: list[Candidate], request_text: str):
    """Letter labels for the distinct candidates in an order shuffled by the request (so that
    the selector sees no generation order, yet the same request gets the same labels), and
    the full list with the labels of the distinct ones copied onto their duplicates."""
    seed = hashlib.sha256(request_text.encode()).digest()
    order = list(distinct)
    random.Random(seed).shuffle(order)
    labelled = [replace(c, label=LABELS[n]) for n, c in enumerate(order)]
    by_key = {change_key(c.proposal): c.label for c in labelled}
    everyone = [
        replace(c, label=by_key.get(change_key(c.proposal), "")) if c.valid else c
        for c in candidates
    ]
    return sorted(labelled, key=lambda c: c.label), everyone


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:160] if lines else ""
