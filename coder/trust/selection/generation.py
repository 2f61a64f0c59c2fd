"""Asking for the candidates: independent parallel calls at spread temperatures, and, when the
user asks for them, a plan before each edit (--plan) and a different angle per candidate
(--diverse), so that candidates do not all share one mistake."""

from __future__ import annotations

from dataclasses import replace

from coder.seams.model import Completion, Message, Model, Request, Usage, complete_all, usage_of
from coder.trust.selection.candidates import Candidate

PLAN = (
    "Before you change anything, write a short plan: in at most six lines, what the request"
    " needs, what in the code must change, and which cases are easy to miss. Do not edit yet."
)
AFTER_PLAN = "Now make the change, following your plan, in the edit format asked for."
ANGLES = (
    (
        "edge cases",
        "Think first of the inputs that would break a first attempt (empty, zero, negative,"
        " very large, repeated, unusual characters) and make sure the change handles them.",
    ),
    (
        "simplest",
        "Prefer the smallest, plainest change that fully does what is asked; keep the existing"
        " structure and names.",
    ),
    (
        "re-read",
        "Read the request again, word by word, and the code it touches, line by line, before"
        " editing: look for a requirement the obvious solution would miss.",
    ),
    (
        "from the spec",
        "Write the change as if from the specification alone: decide what each function must"
        " return in every case the request describes, then make the code do exactly that.",
    ),
)
"""The angles of --diverse: a name (shown in the table) and what is added to the request."""


def temperatures(n: int) -> list[float]:
    """The first at 0, the others spread evenly from 0.4 to 1.0."""
    if n <= 1:
        return [0.0][:n]
    if n == 2:
        return [0.0, 0.7]
    return [0.0] + [round(0.4 + 0.6 * i / (n - 2), 2) for i in range(n - 1)]


def generate(
    model: Model, request: Request, n: int, plan: bool = False, diverse: bool = False
) -> tuple[list[tuple[Candidate, Completion | Exception]], Usage]:
    """n candidates for request, each an independent call at its own temperature and seed
    (candidate 0 at temperature 0, with the plain request), with the answer to each."""
    planned = []
    for index, temperature in enumerate(temperatures(n)):
        variant, asked = "", request
        if diverse and index > 0:
            variant, hint = ANGLES[(index - 1) % len(ANGLES)]
            asked = _added(request, hint)
        seed = None if index == 0 else index
        asked = replace(asked, temperature=temperature, seed=seed, kind="candidate")
        planned.append((Candidate(index, temperature, None, variant=variant), asked))
    usage = Usage()
    exchanges: list[tuple[Message, ...]] = [()] * n
    if plan:
        plans = complete_all(model, [_plan_request(r) for _, r in planned])
        usage += usage_of(plans)
        for index, answer in enumerate(plans):
            if isinstance(answer, Completion) and answer.text.strip():
                exchanges[index] = (
                    Message("assistant", answer.text),
                    Message("user", AFTER_PLAN),
                )
    requests = [_with(r, exchanges[i]) for i, (_, r) in enumerate(planned)]
    answers = complete_all(model, requests)
    usage += usage_of(answers)
    made = []
    for i, (c, asked) in enumerate(planned):
        sent = (_added(asked, PLAN) if exchanges[i] else asked).messages
        c = replace(c, exchange=exchanges[i], variant=_name(c.variant, plan))
        made.append((replace(c, asked=sent if sent != request.messages else ()), answers[i]))
    return made, usage


def _added(request: Request, hint: str) -> Request:
    """The request with hint added to its last (user) message."""
    *head, last = request.messages
    return replace(request, messages=(*head, replace(last, content=f"{last.content}\n\n{hint}")))


def _plan_request(request: Request) -> Request:
    """The request asking for a plan only: no function may be called (the tool stays declared
    when the history holds calls, as some APIs require)."""
    asked = replace(_added(request, PLAN), kind="plan")
    if asked.tools:
        return replace(asked, tool_choice="none")
    return asked


def _with(request: Request, exchange: tuple[Message, ...]) -> Request:
    """The edit request: after a plan, the plan's request and the plan come first."""
    if not exchange:
        return request
    return replace(request, messages=_added(request, PLAN).messages + exchange)


def _name(variant: str, plan: bool) -> str:
    return ", ".join(part for part in ("plan" if plan else "", variant) if part)
