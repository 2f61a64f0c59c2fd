"""What both routes put on the wire: the body of a chat request, and the streamed answer put
back together (text, function calls assembled by index, finish reason, usage)."""

from __future__ import annotations

import re
from collections.abc import Callable

from coder.seams.llm.providers import Quirks
from coder.seams.llm.settings import ModelSettings
from coder.seams.model import Completion, Request, Usage
from editformats import ToolCall


def body(
    model: str, request: Request, settings: ModelSettings, quirks: Quirks | None = None
) -> dict:
    """The OpenAI chat-completions body of request: streamed, with the usage at the end; one
    tool is forced unless the request chooses otherwise. quirks (the direct route's) leave out
    or rename what the provider rejects; litellm makes its own."""
    quirks = quirks or Quirks()
    reasoning = bool(quirks.reasoning and re.match(quirks.reasoning, model))
    data: dict = {
        "model": model,
        # An empty content beside function calls is left out, as litellm leaves it out.
        "messages": [
            {k: v for k, v in m.to_dict().items() if v is not None} for m in request.messages
        ],
        "stream": True,
    }
    if not reasoning:  # a reasoning model takes only its default temperature
        data["temperature"] = request.temperature
    if quirks.stream_options:
        data["stream_options"] = {"include_usage": True}
    if request.seed is not None and quirks.seed:
        data[quirks.seed] = request.seed
    limits = [n for n in (request.max_tokens, settings.max_tokens) if n]
    if limits:
        data["max_completion_tokens" if reasoning else "max_tokens"] = min(limits)
    if request.tools:
        data["tools"] = list(request.tools)
        if request.tool_choice is not None:
            data["tool_choice"] = request.tool_choice
        elif len(request.tools) == 1:
            function = request.tools[0]["function"]["name"]
            data["tool_choice"] = {"type": "function", "function": {"name": function}}
    return data


def estimated(request: Request, text: str) -> tuple[int, int]:
    """Prompt and completion tokens guessed at four characters a token, for a server that did
    not count them when no tokenizer is at hand."""
    sent = sum(
        len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in request.messages
    )
    return (sent + 3) // 4, (len(text) + 3) // 4


class Assembly:
    """A streamed answer as it arrives: text pieces (passed on to on_text at once), function
    calls put together by their index, the last finish reason and the usage."""

    def __init__(
        self, on_text: Callable[[str], None] | None = None, pieces: list[str] | None = None
    ):
        self.pieces: list[str] = [] if pieces is None else pieces
        """The text so far (into the list given, when one is); not empty means the user saw
        part of the answer."""
        self.finish: str | None = None
        self.tokens: tuple[int, int] | None = None
        """Prompt and completion tokens, when the server said."""
        self._calls: dict[int, dict] = {}
        self._on_text = on_text

    def text(self, piece: str | None) -> None:
        """Add a piece of text."""
        if piece:
            self.pieces.append(piece)
            if self._on_text:
                self._on_text(piece)

    def call(self, index: int | None, call_id: str | None, name: str | None, arguments: str | None):
        """Add a piece of the function call at index: its id and name when they come, and the
        next part of its arguments."""
        slot = self._calls.setdefault(index or 0, {"name": "", "arguments": "", "id": ""})
        if call_id:
            slot["id"] = call_id
        if name:
            slot["name"] = name
        slot["arguments"] += arguments or ""

    def ended(self, finish: str | None) -> None:
        """Note a finish reason ("stop", "length", "tool_calls")."""
        self.finish = finish or self.finish

    def completion(self, usage: Usage, interrupted: bool = False) -> Completion:
        """The whole answer."""
        calls = tuple(
            ToolCall(c["name"], c["arguments"], c["id"]) for _, c in sorted(self._calls.items())
        )
        truncated = self.finish == "length"
        return Completion("".join(self.pieces), calls, usage, interrupted, truncated)
