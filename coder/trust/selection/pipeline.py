"""One request answered by several candidates: generate, check, group, test, refine the closest
failing ones when none passes, choose by the rules. The chat applies the choice; the others
stay available to /pick until the next request."""

from __future__ import annotations

from dataclasses import dataclass, replace

from coder.edits.workspace import Workspace
from coder.seams.model import Completion, Model, Request, Usage, complete_all, usage_of
from coder.trust.selection import candidates as cands
from coder.trust.selection import generation, refine, rules, testing
from coder.trust.selection.candidates import Candidate
from coder.trust.selection.selector import Choice
from coder.trust.selection.testing import TestRun, TestSetup
from editformats import EditFormat


@dataclass(frozen=True)
class Selection:
    """The candidates of one request and the choice among them."""

    candidates: tuple[Candidate, ...]
    """Every candidate asked for, first-round ones in generation order, then refinements;
    duplicates carry their group's label."""
    distinct: tuple[Candidate, ...]
    """The valid candidates with distinct changes, in label order, each with its votes."""
    choice: Choice | None
    """None when no candidate is valid."""
    usage: Usage
    asked: int = 0
    """Candidates asked for in the first round."""

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
        first = [c for c in self.candidates if c.refines is None]
        return next(c.completion for c in first if c.completion is not None)


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
    refine: int = 1
    """Rounds of refinement when no candidate passes the tests (0: none)."""
    plan: bool = False
    diverse: bool = False


def make(setup: Setup, request: Request, request_text: str, n: int) -> Selection:
    """Ask for n candidates and choose one; raises the model's error when every call failed."""
    answers, usage = generation.generate(setup.model, request, n, setup.plan, setup.diverse)
    if all(isinstance(a, Exception) for _, a in answers):
        raise next(a for _, a in answers)
    everyone = _check(setup, answers)
    groups = cands.group(everyone)
    if setup.tests is not None and groups:
        tester = _Tester(setup)
        groups = tester.tested(groups)
        for _ in range(setup.refine):
            if any(c.tests.passed for c in groups):
                break
            more, spent = _refine(setup, request, groups, everyone, tester)
            usage += spent
            if not more:
                break
            everyone += more
            groups = tester.tested(cands.group(everyone))
    labelled, everyone = cands.label(everyone, groups, request_text)
    if not labelled:
        return Selection(tuple(everyone), (), None, usage, n)
    choice = rules.choose(setup.model, request_text, labelled, n)
    usage += choice.usage
    return Selection(tuple(everyone), tuple(labelled), choice, usage, n)


def _check(setup: Setup, answers) -> list[Candidate]:
    return cands.validate(setup.fmt, answers, setup.ws, setup.files, setup.read_only)


def _refine(
    setup: Setup,
    request: Request,
    groups: list[Candidate],
    everyone: list[Candidate],
    tester: _Tester,
) -> tuple[list[Candidate], Usage]:
    """One round: each failing candidate chosen to refine gets its request; the answers,
    checked, as new candidates."""
    assert setup.tests is not None
    refined = {c.refines for c in everyone if c.refines is not None}
    chosen = refine.chosen_to_refine(groups, refined)
    if not chosen:
        return [], Usage()
    start = len(everyone)
    asked = [
        refine.request_for(request, c, setup.tests.cmd, start + n) for n, c in enumerate(chosen)
    ]
    answers = complete_all(setup.model, asked)
    made = [
        (refine.candidate_for(c, start + n, asked[n], request), answers[n])
        for n, c in enumerate(chosen)
    ]
    return _check(setup, made), usage_of(answers)


class _Tester:
    """Tests groups of candidates, each distinct change once, all runs of a round at once;
    the unedited code is tested alongside the first round."""

    def __init__(self, setup: Setup):
        assert setup.tests is not None
        self.setup = setup
        self.tests = setup.tests
        self.base: TestRun | None = None
        self.done: dict[tuple, cands.TestEvidence] = {}

    def tested(self, groups: list[Candidate]) -> list[Candidate]:
        """The groups, each with its test evidence."""
        new = [c for c in groups if cands.change_key(c.proposal) not in self.done]
        changes = [dict(c.proposal.result.files) for c in new]
        first = self.base is None
        runs = testing.run_all(self.setup.ws.root, self.tests, ([{}] if first else []) + changes)
        if first:
            self.base, runs = runs[0], runs[1:]
        assert self.base is not None
        for c, run in zip(new, runs, strict=True):
            self.done[cands.change_key(c.proposal)] = testing.evidence(self.base, run)
        return [replace(c, tests=self.done[cands.change_key(c.proposal)]) for c in groups]
