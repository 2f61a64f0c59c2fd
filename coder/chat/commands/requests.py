"""What the model is asked and how: /architect, /ask, /model, /edit-format, /candidates,
/pick, /rtc."""

from __future__ import annotations

from dataclasses import replace

from coder.chat.commands.registry import Chat, command
from coder.chat.pick import pick
from coder.errors import UsageError


@command(
    "architect",
    "/architect TEXT: the model plans, the editor model edits; alone: architect mode on or off.",
)
def _architect(chat: Chat, args: str) -> None:
    session = chat.session
    if args:
        session.turn(args, architect=True)
        return
    session.config = replace(session.config, architect=not session.config.architect)
    state = "on: the model plans, the editor model edits" if session.config.architect else "off"
    chat.terminal.say(f"Architect mode is {state}.")


@command("ask", "Ask a question about the code; nothing is edited.")
def _ask(chat: Chat, args: str) -> None:
    if not args:
        raise UsageError("/ask needs a question")
    chat.session.ask(args)


@command("model", "Switch to another model: /model NAME.")
def _model(chat: Chat, args: str) -> None:
    if not args:
        chat.terminal.say(f"The model is {chat.session.model.name}.")
        return
    chat.session.model = chat.make_model(args)
    chat.terminal.say(f"The model is now {chat.session.model.name}.")
    if chat.config.edit_format is None and not chat.session.editor_model:
        _follow_model(chat, args)


def _follow_model(chat: Chat, name: str) -> None:
    """With no edit format chosen, the format the new model writes best."""
    from coder.seams.llm.settings import resolve
    from editformats import get_format
    from editformats.registry import format_for

    fmt = get_format(format_for(resolve(name)))
    if fmt is not chat.session.fmt:
        chat.session.fmt = fmt
        chat.terminal.say(f"The edit format is now {fmt.name}, the one this model writes best.")


@command("edit-format", "Switch the edit format: /edit-format diff.")
def _edit_format(chat: Chat, args: str) -> None:
    from editformats import FORMATS, get_format

    if not args:
        current = chat.session.fmt.name
        others = ", ".join(name for name in FORMATS if name != current)
        chat.terminal.say(f"The edit format is {current}; others: {others}")
        return
    try:
        chat.session.fmt = get_format(args)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    chat.config = replace(chat.config, edit_format=chat.session.fmt.name)
    chat.terminal.say(f"The edit format is now {chat.session.fmt.name}.")


@command("candidates", "Ask for N candidate replies per request (1 turns it off).")
def _candidates(chat: Chat, args: str) -> None:
    from coder.trust.selection.candidates import MAX_CANDIDATES

    if not args:
        chat.terminal.say(f"Candidates per request: {chat.session.config.candidates}.")
        return
    if not args.isdigit() or not 1 <= int(args) <= MAX_CANDIDATES:
        raise UsageError(f"/candidates takes a number from 1 to {MAX_CANDIDATES}, not {args!r}")
    chat.session.config = replace(chat.session.config, candidates=int(args))
    chat.terminal.say(f"Candidates per request: {args}.")


@command("pick", "Apply another candidate of the last request instead: /pick B.")
def _pick(chat: Chat, args: str) -> None:
    if not args:
        raise UsageError("/pick needs a candidate's label, such as /pick B")
    pick(chat.session, args)


@command("rtc", "Round-trip check of the last edit (--request: the describer sees the request).")
def _rtc(chat: Chat, args: str) -> None:
    if args not in ("", "--request"):
        raise UsageError(f"/rtc takes only --request, not {args!r}")
    chat.session.round_trip(with_request=args == "--request")
