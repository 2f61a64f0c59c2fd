"""One request answered by several candidates: generate, validate, dedupe, optionally test,
let the selector choose, and show the table. The chat applies the choice; the others stay
available to /pick until the next request."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from coder import candidates as cands
from coder import selector, testrank
from coder.candidates import Candidate
from coder.model import Completion, Model, Request, Usage
from coder.selector import Choice
from coder.terminal import Terminal
from coder.workspace import Workspace
from editformats import EditFormat
from sandbox import Sandbox


@dataclass(frozen=True)
class TestSetup:
    """How candidates are ranked by the test command."""

    cmd: str
    files: tuple[str, ...]
    """The repository's files, copied into each temporary test folder."""
    timeout: float = 600.0
    sandbox: Sandbox | None = None
    """Where the tests run; None: a plain subprocess with the user's environment."""


@dataclass(frozen=True)
class Selection:
    """The candidates of one request and the choice among them."""

    candidates: tuple[Candidate, ...]
    """One per call asked for, in generation order; duplicates carry their group's label."""
    distinct: tuple[Candidate, ...]
    """The valid candidates with distinct changes, in label order."""
    choice: Choice | None
    """None when no candidate is valid."""
    usage: Usage

    def get(self, label: str) -> Candidate | None:
        """The distinct candidate with this label."""
        return next((c for c in self.distinct if c.label == label.strip().upper()), None)

    @property
    def chosen(self) -> Candidate | None:
        """The candidate the choice names."""
        return self.get(self.choice.label) if self.choice else None

    @property
    def completion(self) -> Completion:
        """The reply the chat goes on with: the chosen one, else the temperature-0 answer (or
        the first that arrived) so that the usual reflection explains what went wrong."""
        if self.chosen is not None and self.chosen.completion is not None:
            return self.chosen.completion
        return next(c.completion for c in self.candidates if c.completion is not None)


@dataclass(frozen=True)
class Setup:
    """Everything making a selection depends on besides the request."""

    model: Model
    """Writes the candidates, and chooses between them."""
    fmt: EditFormat
    ws: Workspace
    files: list[str]
    read_only: list[str]
    tests: TestSetup | None = None


def make(setup: Setup, request: Request, request_text: str, n: int) -> Selection:
    """Ask for n candidates and choose one; raises the model's error when every call failed."""
    answers, usage = cands.generate(setup.model, request, n)
    if all(isinstance(a, Exception) for a in answers):
        raise answers[0]
    everyone = cands.validate(setup.fmt, answers, setup.ws, setup.files, setup.read_only)
    distinct = cands.dedupe(everyone)
    if setup.tests is not None and len(distinct) > 1:
        distinct = _with_tests(distinct, setup.ws.root, setup.tests)
    labelled, everyone = cands.label(everyone, distinct, request_text)
    if not labelled:
        return Selection(tuple(everyone), (), None, usage)
    if len(labelled) == 1:
        only = labelled[0]
        why = (
            f"All {only.votes} valid candidates made the same change."
            if only.votes > 1
            else "The only valid candidate."
        )
        choice = Choice(only.label, why)
    else:
        choice = selector.select(setup.model, request_text, labelled, len(answers))
        usage += choice.usage
    return Selection(tuple(everyone), tuple(labelled), choice, usage)


def _with_tests(distinct: list[Candidate], root: Path, tests: TestSetup) -> list[Candidate]:
    files = list(tests.files)
    base = testrank.run_in_copy(root, files, {}, tests.cmd, tests.timeout, tests.sandbox)
    ranked = []
    for c in distinct:
        changes = c.proposal.result.files
        run = testrank.run_in_copy(root, files, changes, tests.cmd, tests.timeout, tests.sandbox)
        ranked.append(replace(c, tests=testrank.evidence(base, run)))
    return ranked


def show(terminal: Terminal, selection: Selection) -> None:
    """The table of candidates, then the choice and its reasoning."""
    votes = {c.label: c for c in selection.distinct}
    rows = []
    for c in selection.candidates:
        group = votes.get(c.label)
        rows.append(
            [
                c.label or "-",
                f"{c.temperature:g}",
                str(group.votes) if group else "",
                "yes" if c.valid else f"no: {c.problem}",
                group.tests.summary() if group and group.tests else "",
                str(c.size) if c.proposal else "",
                "chosen" if selection.choice and c.label == selection.choice.label else "",
            ]
        )
    columns = ["label", "temp", "votes", "valid", "tests", "size", ""]
    arrived = sum(c.completion is not None for c in selection.candidates)
    asked = len(selection.candidates)
    terminal.table(f"{arrived} of {asked} candidates answered", columns, rows)
    choice = selection.choice
    if choice is None:
        terminal.error("No candidate is valid.")
        return
    how = f"fallback: {choice.fallback}" if choice.fallback else "selector"
    sure = f", confidence {choice.confidence:.2f}" if choice.confidence is not None else ""
    terminal.say(f"Chose {choice.label} ({how}{sure}): {choice.reasoning}")
    others = [c.label for c in selection.distinct if c.label != choice.label]
    if others:
        terminal.say(f"/pick {' or /pick '.join(others)} applies another instead.")
