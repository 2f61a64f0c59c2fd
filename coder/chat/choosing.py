"""A request answered by several candidates at once: the selector's choice is the reply the
turn goes on with (see coder/trust/selection)."""

from __future__ import annotations

from typing import Protocol

from coder.chat import usage
from coder.chat.turns import SessionConfig
from coder.edits.workspace import Workspace
from coder.seams.model import Completion, Model, Request, Usage
from coder.terminal import Terminal
from coder.trust import selection
from editformats import EditFormat


class Chat(Protocol):
    """What a request for candidates uses of the chat (coder.chat.session.Session)."""

    config: SessionConfig
    terminal: Terminal
    model: Model
    fmt: EditFormat
    ws: Workspace
    files: list[str]
    read_only: list[str]
    usage: Usage
    selection: selection.Selection | None
    selections: list[selection.Selection]

    def tests(self) -> selection.TestSetup | None: ...

    def build(self, message: str, kind: str = "edit") -> Request: ...


def request_candidates(session: Chat, message: str) -> Completion:
    """Ask for the config's number of candidates, show them and the choice, and return the
    chosen one's completion (interrupted: an empty one saying so)."""
    config, terminal = session.config, session.terminal
    terminal.say(f"Asking {session.model.name} for {config.candidates} candidates...")
    setup = selection.Setup(
        session.model,
        session.fmt,
        session.ws,
        session.files,
        session.read_only,
        tests=session.tests() if config.candidate_tests else None,
        refine=config.refine,
        plan=config.plan,
        diverse=config.diverse,
    )
    try:
        made = selection.make(setup, session.build(message), message, config.candidates)
    except KeyboardInterrupt:
        return Completion(interrupted=True)
    session.usage += made.usage
    terminal.say(usage.reply_line(made.usage, session.usage))
    selection.show(terminal, made)
    session.selection = made
    session.selections.append(made)
    terminal.start_reply()
    terminal.stream(made.completion.text)
    terminal.end_reply()
    return made.completion
