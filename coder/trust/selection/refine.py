"""Refinement: when no candidate passes the tests, the failing ones that came closest each get
one more request with their own reply and test output, asking for a fix on top of it."""

from __future__ import annotations

from dataclasses import replace

from coder.seams.model import Message, Request, answered, with_ids
from coder.trust.selection.candidates import Candidate, files_after

WIDTH = 3
"""Failing candidates refined in one round (those failing the fewest tests)."""
OUTPUT_LINES = 120
"""The last lines of a candidate's test output shown to the model."""
OUTPUT_CHARS = 12_000
FEEDBACK = """\
Your change was applied to a copy of the files and the test command `{cmd}` failed \
({summary}). Its output:

{fence}
{output}
{fence}

Fix the code so that the tests pass. Your change above is in place: make your edits to the \
files as it left them, and send only the edits still needed."""
CALL_ANSWER = "Applied to a copy of the files for testing; the tests failed (see below)."


def chosen_to_refine(groups: list[Candidate], refined: set[int]) -> list[Candidate]:
    """The failing candidates to refine next: those not refined yet, the fewest failing tests
    first, at most WIDTH."""
    failing = [
        c for c in groups if c.tests is not None and not c.tests.passed and c.index not in refined
    ]
    failing.sort(key=lambda c: (c.tests.failing, c.tests.broken, -c.votes, c.index))
    return failing[:WIDTH]


def request_for(request: Request, candidate: Candidate, cmd: str, number: int) -> Request:
    """The refinement request: the candidate's conversation so far, its reply (each function
    call answered), and the test output."""
    completion = candidate.completion
    assert completion is not None and candidate.tests is not None
    calls = with_ids(completion.tool_calls, f"refine_{number}_call")
    exchange = (
        *candidate.exchange,
        Message("assistant", completion.text, calls),
        *answered(calls, [CALL_ANSWER] * len(calls)),
        Message(
            "user",
            FEEDBACK.format(
                cmd=cmd,
                summary=candidate.tests.summary(),
                output=(output := _tail(candidate.tests.output)),
                fence=_fence(output),
            ),
        ),
    )
    return replace(
        request,
        messages=request.messages + exchange,
        temperature=candidate.temperature,
        kind="refine",
    )


def candidate_for(candidate: Candidate, index: int, asked: Request, original: Request) -> Candidate:
    """The new candidate the refinement request asked makes (its answer still to be checked);
    original is the request of the first round."""
    first = candidate.asked or original.messages
    return Candidate(
        index,
        candidate.temperature,
        None,
        variant=", ".join(p for p in (candidate.variant, "refined") if p),
        refines=candidate.index,
        base=files_after(candidate),
        asked=candidate.asked,
        exchange=asked.messages[len(first) :],
    )


def _tail(output: str) -> str:
    lines = output.strip().splitlines()[-OUTPUT_LINES:]
    return "\n".join(lines)[-OUTPUT_CHARS:] or "(no output)"


def _fence(text: str) -> str:
    """A run of backticks longer than any in text."""
    fence = "```"
    while fence in text:
        fence += "`"
    return fence
