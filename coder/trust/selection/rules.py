"""How one candidate is chosen, each rule deciding only when the stronger ones leave a choice:
the tests (only passing ones, else the fewest failing), the only one left, a clear majority
of the votes, then the LLM selector."""

from __future__ import annotations

from dataclasses import replace

from coder.seams.model import Model
from coder.trust.selection import selector
from coder.trust.selection.candidates import Candidate
from coder.trust.selection.selector import Choice


def eligible(groups: list[Candidate]) -> tuple[list[Candidate], bool]:
    """The candidates the tests leave, and whether the tests excluded any."""
    tested = [c for c in groups if c.tests is not None]
    if len(tested) < len(groups) or not groups:
        return list(groups), False
    passing = [c for c in groups if c.tests.passed]
    if passing:
        return passing, len(passing) < len(groups)
    best = min((c.tests.failing, c.tests.broken) for c in groups)
    left = [c for c in groups if (c.tests.failing, c.tests.broken) == best]
    return left, len(left) < len(groups)


def majority(candidates: list[Candidate]) -> Candidate | None:
    """The candidate holding more than half of the votes, with at least two; else None."""
    total = sum(c.votes for c in candidates)
    top = max(candidates, key=lambda c: c.votes)
    return top if top.votes >= 2 and 2 * top.votes > total else None


def choose(model: Model, request_text: str, groups: list[Candidate], total: int) -> Choice:
    """The choice among two or more labelled, valid, distinct candidates (a single one is
    chosen as the only one)."""
    left, by_tests = eligible(groups)
    passing = bool(left) and left[0].tests is not None and left[0].tests.passed
    if len(left) == 1:
        only = left[0]
        if by_tests:
            why = (
                "the only candidate that passes the tests"
                if passing
                else ("the candidate that fails the fewest tests")
            )
            return Choice(only.label, f"Chosen by the tests: {why}.", rule="tests")
        if only.votes > 1:
            why = f"All {only.votes} valid candidates made the same change."
            return Choice(only.label, why, rule="agreement")
        return Choice(only.label, "The only valid candidate.", rule="only one")
    among = _among(left, passing, by_tests)
    top = majority(left)
    if top is not None:
        votes = sum(c.votes for c in left)
        why = f"{top.votes} of the {votes} candidates {among} made this change."
        return Choice(top.label, why, rule="agreement")
    choice = selector.select(model, request_text, left, total)
    return replace(choice, reasoning=choice.reasoning or f"Chosen among the candidates {among}.")


def _among(left: list[Candidate], passing: bool, by_tests: bool) -> str:
    if not by_tests:
        return "that are valid"
    return "that pass the tests" if passing else "that fail the fewest tests"
