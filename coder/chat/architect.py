"""Architect mode: the main model works out the change and says it in words; the editor model
turns that plan into an edit in the chat's format (Session.turn runs the two requests). The
user sees both replies."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from coder.chat.turns import TurnOutcome

if TYPE_CHECKING:
    from coder.seams.model import Completion, Model
    from coder.terminal import Terminal

ARCHITECT_SYSTEM = (
    "You are a senior engineer planning a change to the user's code for another engineer, who"
    " will make the edits. Read the files, work out what must change, and explain it precisely:"
    " which files, which functions or lines, and what each change is, with short code snippets"
    " where they make it unambiguous. Do not write whole files or edit blocks. If the request"
    " needs no change, say so."
)
EDITOR_REQUEST = (
    "Make the change described below, exactly and completely, as edits to the files. Change"
    " nothing else.\n\n{plan}"
)


class Chat(Protocol):
    """What an architect turn uses of the chat (coder.chat.session.Session)."""

    model: Model
    editor_model: Model | None
    terminal: Terminal

    def converse(self, text: str, system: str, kind: str) -> Completion: ...

    def using(self, model: Model) -> AbstractContextManager[None]: ...

    def turn(self, text: str, architect: bool | None = None) -> TurnOutcome: ...


def turn(session: Chat, text: str) -> TurnOutcome:
    """One request in architect mode: the main model's plan, then the edit it describes,
    written by the editor model. The user sees both replies."""
    terminal = session.terminal
    terminal.say(f"Architect ({session.model.name}) plans the change:")
    plan = session.converse(text, ARCHITECT_SYSTEM, "architect")
    if plan.interrupted:
        return TurnOutcome(interrupted=True)
    if not plan.text.strip():
        terminal.error("The architect's reply is empty: there is nothing for the editor to do.")
        return TurnOutcome(failed=True)
    editor = session.editor_model or session.model
    terminal.say(f"Editor ({editor.name}) writes the edit:")
    with session.using(editor):
        return session.turn(EDITOR_REQUEST.format(plan=plan.text.strip()), architect=False)
