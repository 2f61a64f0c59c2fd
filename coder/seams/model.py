"""What a model is to coder: messages in, a completion out; and a scripted model for tests.

The real models live behind `coder.seams.llm` (straight over HTTP, or through litellm, which
its `via_litellm` module alone imports).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Protocol

from coder.errors import CoderError
from editformats import Reply, ToolCall


@dataclass(frozen=True)
class Message:
    """One chat message: system, user, assistant (text and function calls), or tool (the
    answer to one function call, naming its id)."""

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    """The assistant's function calls; each must be answered by a tool message."""
    tool_call_id: str = ""
    """For a tool message, the id of the call it answers."""

    def to_dict(self) -> dict:
        """The OpenAI-style dict that litellm takes."""
        if self.role == "tool":
            return {"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content}
        data: dict = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["content"] = self.content or None
            data["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        return data


def answered(calls: Sequence[ToolCall], answers: Sequence[str]) -> tuple[Message, ...]:
    """The tool messages answering each call with its answer, in the calls' order."""
    return tuple(
        Message("tool", answer, tool_call_id=call.id)
        for call, answer in zip(calls, answers, strict=True)
    )


def with_ids(calls: Sequence[ToolCall], prefix: str) -> tuple[ToolCall, ...]:
    """The calls, each keeping the id the model gave it; a call that came without one (some
    servers leave it out) gets a unique one made from prefix."""
    return tuple(
        call if call.id else replace(call, id=f"{prefix}_{n}") for n, call in enumerate(calls)
    )


@dataclass(frozen=True)
class Usage:
    """Tokens a request used, and its cost in dollars when the price is known."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    def __add__(self, other: Usage) -> Usage:
        known = [c for c in (self.cost, other.cost) if c is not None]
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            sum(known) if known else None,
        )


@dataclass(frozen=True)
class Completion:
    """The model's answer to one request."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    interrupted: bool = False
    """The user stopped the reply (Ctrl-C); text holds what had arrived."""
    truncated: bool = False
    """The model stopped at its length limit (finish_reason "length"): the reply is cut off."""

    @property
    def reply(self) -> Reply:
        """The answer as the edit formats read it."""
        return Reply(self.text, self.tool_calls)


@dataclass(frozen=True)
class Request:
    """Everything one call to a model depends on."""

    messages: tuple[Message, ...]
    temperature: float = 0.0
    tools: tuple[dict, ...] = ()
    """OpenAI tool definitions; with exactly one, the model is forced to call it (unless
    tool_choice says otherwise)."""
    tool_choice: str | None = None
    """"auto", "none" or "required"; None: force the only tool, or let the model choose."""
    seed: int | None = None
    max_tokens: int | None = None
    """The longest answer wanted; None leaves it to the model's settings."""
    kind: str = "edit"
    """What the call is for (one of KINDS): recorded by the benchmark, never sent."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of request {self.kind!r}; the kinds are {KINDS}")


KINDS = (
    "edit",
    "reflection",
    "candidate",
    "plan",
    "refine",
    "selector",
    "rtc-describe",
    "rtc-remake",
    "ask",
    "architect",
    "commit-message",
)
"""The kinds of call coder makes: an edit request, the problem of a reply sent back, a
candidate, a candidate's plan, a failing candidate's refinement, the selector, a round trip's
description and re-make, a question, an architect's plan, a commit message. (The benchmark
records the edit request of a try after the first as a retry.)"""


class Model(Protocol):
    """Anything that answers a request: a hosted model, a local one, or a script."""

    name: str

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Answer the request; on_text receives the text as it streams in."""
        ...


class ScriptedModel:
    """A model that answers from a script, in order, and records every request it received.

    A script entry is a reply text, a Completion, or an exception to raise.
    """

    def __init__(self, script: Iterable[str | Completion | BaseException], name: str = "scripted"):
        self.name = name
        self._script = list(script)
        self.requests: list[Request] = []
        self._lock = threading.Lock()

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """The next scripted answer; AssertionError when the script has run out."""
        with self._lock:
            self.requests.append(request)
            count = len(self.requests)
            assert self._script, f"the scripted model got an unexpected request #{count}"
            entry = self._script.pop(0)
        if isinstance(entry, BaseException):
            raise entry
        completion = entry if isinstance(entry, Completion) else Completion(text=entry)
        if on_text and completion.text:
            on_text(completion.text)
        return completion

    @property
    def remaining(self) -> int:
        """How many scripted answers are left."""
        return len(self._script)


def transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text, for logs and tests."""
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in messages)


def usage_of(answers: Iterable[Completion | Exception]) -> Usage:
    """The usage of the answers that arrived."""
    return sum((a.usage for a in answers if isinstance(a, Completion)), Usage())


def complete_all(model: Model, requests: Sequence[Request]) -> list[Completion | Exception]:
    """Send the requests as independent parallel calls; each answer, or the CoderError it raised,
    in the order of the requests. Ctrl-C abandons the calls still running."""

    def one(request: Request) -> Completion | Exception:
        try:
            return model.complete(request)
        except CoderError as exc:
            return exc

    if len(requests) <= 1:
        return [one(r) for r in requests]
    pool = ThreadPoolExecutor(max_workers=min(len(requests), 8))
    try:
        answers = [f.result() for f in [pool.submit(one, r) for r in requests]]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return answers
