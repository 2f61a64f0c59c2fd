"""The LLM selector: it reads the eligible candidates under letter labels, with the request,
the code around each change and the evidence, reasons, and picks one. It only chooses; it
never merges. An invalid answer gets one retry, then a deterministic fallback decides. It is
called only when the tests and the agreement among candidates leave a choice (rules.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from coder.seams.model import Completion, Message, Model, Request, Usage, answered, with_ids
from coder.trust.selection.candidates import Candidate

SYSTEM = """\
You judge candidate changes that separate attempts made for one programming request, and pick \
the single candidate that best does what the user asked: correct, complete, consistent with \
the surrounding code, and without unrelated changes.

Each candidate comes with evidence: its votes (how many independent attempts produced the \
same change), its test results when the tests were run, and the size of the change. The \
candidates shown did equally well on the tests, if any were run; votes and size are hints, \
not proof: read the code.

First reason step by step about what the request needs and how each candidate meets it. Then \
name your choice by its label and say how sure you are, from 0 to 1. You choose one candidate \
as it is; you cannot combine or alter them."""

ANSWER_HINT = (
    "Answer by calling select_candidate. If you cannot call functions, answer with only a JSON"
    ' object: {"reasoning": "...", "selected": "<label>", "confidence": 0.0}'
)
CONTEXT_LINES = 8
"""Lines of unchanged code shown around each change."""
MAX_DIFF_CHARS = 12_000
"""A longer candidate diff is cut, so that several fit in one request."""


def tool(labels: list[str]) -> dict:
    """The function the selector is made to call."""
    return {
        "type": "function",
        "function": {
            "name": "select_candidate",
            "description": "Choose one of the candidate changes.",
            "parameters": {
                "type": "object",
                "properties": {
                    "reasoning": {
                        "type": "string",
                        "description": "Step-by-step comparison of the candidates.",
                    },
                    "selected": {"type": "string", "enum": labels},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["reasoning", "selected", "confidence"],
            },
        },
    }


RULES = ("only one", "tests", "agreement", "selector", "fallback", "user")
"""What can make a choice: the only eligible candidate, the tests leaving one, a clear
majority of the eligible candidates, the LLM selector, the deterministic fallback when the
selector's answers were unusable, or the user's /pick."""


@dataclass(frozen=True)
class Choice:
    """Which candidate was chosen, why, and by what."""

    label: str
    reasoning: str
    confidence: float | None = None
    fallback: str | None = None
    """Why the deterministic fallback chose instead of the selector; None when it did not."""
    usage: Usage = field(default_factory=Usage)
    rule: str = "selector"
    """One of RULES."""


def select(model: Model, request_text: str, candidates: list[Candidate], total: int) -> Choice:
    """The selector's choice among two or more labelled, valid, distinct candidates.

    An answer that names no valid label gets one retry (its function calls answered first, as
    chat APIs require), then the deterministic fallback chooses and says so. A request the
    model's API rejects is an error (ModelError), never hidden behind the fallback.
    """
    labels = [c.label for c in candidates]
    messages = [Message("system", SYSTEM), Message("user", _show(request_text, candidates, total))]
    usage = Usage()
    problem = ""
    for attempt in range(2):
        answer = model.complete(Request(tuple(messages), 0.0, (tool(labels),), kind="selector"))
        usage += answer.usage
        try:
            label, reasoning, confidence = parse_answer(answer, labels)
        except ValueError as exc:
            problem = str(exc)
            calls = with_ids(answer.tool_calls, f"selector_call_{attempt}")
            messages += [
                Message("assistant", answer.text, calls),
                *answered(calls, [f"Not used: {problem}."] * len(calls)),
                Message(
                    "user",
                    f"That answer could not be used: {problem}. Choose exactly one of"
                    f" {', '.join(labels)}. {ANSWER_HINT}",
                ),
            ]
            continue
        return Choice(label, reasoning, confidence, None, usage)
    return fallback(candidates, f"the selector's answer was invalid twice ({problem})", usage)


def fallback(candidates: list[Candidate], why: str, usage: Usage | None = None) -> Choice:
    """The best candidate by tests, then votes, then the lowest temperature."""
    best = min(candidates, key=rank)
    reason = "by tests, votes and temperature" if best.tests else "by votes and temperature"
    return Choice(best.label, f"Chosen {reason}.", None, why, usage or Usage(), "fallback")


def rank(c: Candidate) -> tuple:
    """Sort key: passing tests, fewer failing, fewer broken, more votes, generation order."""
    tests = c.tests
    by_tests = (not tests.passed, tests.failing, tests.broken) if tests else (False, 0, 0)
    return (*by_tests, -c.votes, c.index)


def parse_answer(answer: Completion, labels: list[str]) -> tuple[str, str, float | None]:
    """(label, reasoning, confidence) from a tool call or a JSON object in the text;
    ValueError saying what is wrong."""
    data = None
    for call in answer.tool_calls:
        try:
            data = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            continue
        break
    if data is None:
        data = _json_in(answer.text)
    if not isinstance(data, dict):
        raise ValueError("it holds no select_candidate call and no JSON object")
    raw = str(data.get("selected", "")).strip().strip("\"'*()[]. ")
    label = raw.upper().removeprefix("CANDIDATE").strip()
    if label not in labels:
        raise ValueError(f"{raw!r} is not one of the labels")
    try:
        confidence = min(1.0, max(0.0, float(data["confidence"])))
    except (KeyError, TypeError, ValueError):
        confidence = None
    return label, str(data.get("reasoning", "")).strip(), confidence


def _json_in(text: str) -> object:
    """The first JSON object in text, or None."""
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char == "{":
            try:
                return decoder.raw_decode(text, start)[0]
            except json.JSONDecodeError:
                continue
    return None


def _show(request_text: str, candidates: list[Candidate], total: int) -> str:
    parts = [f"## The request\n\n{request_text.strip()}", "## The candidates"]
    for c in candidates:
        diff = c.proposal.diff(CONTEXT_LINES) if c.proposal else ""
        if len(diff) > MAX_DIFF_CHARS:
            diff = diff[:MAX_DIFF_CHARS] + "\n[... the rest of this diff is cut ...]\n"
        tests = c.tests.summary() if c.tests else "not run"
        fence = "```"
        while fence in diff:
            fence += "`"
        parts.append(
            f"### Candidate {c.label}\n\nVotes: {c.votes} of {total}. Tests: {tests}."
            f" Size: {c.size} lines changed.\n\n{fence}diff\n{diff}{fence}"
        )
    parts.append(ANSWER_HINT)
    return "\n\n".join(parts)
