"""The interactive prompt: read a line, run a command or a turn, show errors, keep going."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from coder.chat import commands
from coder.chat.commands import Chat
from coder.errors import CoderError
from coder.repomap import CACHE_FILES

HISTORY_FILE = ".coder.input.history"


def run_line(chat: Chat, line: str) -> None:
    """One input line: a command, or a request to the model. Errors are shown, not raised.

    This is one of the two places that catch broadly: a failed turn must not end the chat.
    """
    line = line.strip()
    if not line:
        return
    try:
        if line.startswith(("/", "!")):
            commands.dispatch(chat, line)
        else:
            chat.session.turn(line)
    except (EOFError, SystemExit):
        raise
    except CoderError as exc:
        chat.terminal.error(str(exc))
    except KeyboardInterrupt:
        chat.terminal.error("Interrupted.")
    except Exception as exc:  # a bug: show it and keep the user's session alive
        chat.terminal.error(f"Unexpected error: {type(exc).__name__}: {exc}")


def loop(chat: Chat, prompt_input=None, prompt_output=None) -> None:
    """Read lines until /exit, Ctrl-D, or Ctrl-C twice in a row at an empty prompt."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    history_path = Path(chat.session.ws.root) / HISTORY_FILE
    try:
        history = FileHistory(str(history_path))
    except OSError:
        history = InMemoryHistory()
    prompt = PromptSession(
        history=history,
        completer=_completer(chat),
        input=prompt_input,
        output=prompt_output,
        multiline=False,
        complete_while_typing=False,
    )
    interrupts = 0
    while True:
        try:
            line = prompt.prompt(_prompt_text(chat))
        except KeyboardInterrupt:
            interrupts += 1
            if interrupts >= 2:
                return
            chat.terminal.say("(Ctrl-C again to leave)")
            continue
        except EOFError:
            return
        interrupts = 0
        if line.strip() == "{":
            line = _read_block(prompt)
        try:
            run_line(chat, line)
        except EOFError:
            return


def _prompt_text(chat: Chat) -> str:
    return f"{chat.session.fmt.name}> "


def _read_block(prompt) -> str:
    """Multiline input: lines after a lone '{' until a lone '}'."""
    lines = []
    while True:
        line = prompt.prompt("... ")
        if line.strip() == "}":
            return "\n".join(lines)
        lines.append(line)


def _completer(chat: Chat):
    """Completes command names, and file names for the commands that take files."""
    from prompt_toolkit.completion import Completer, Completion

    class _Completer(Completer):
        def get_completions(self, document, complete_event) -> Iterable[Completion]:
            text = document.text_before_cursor
            if text.startswith("/") and " " not in text:
                for name in commands.COMMANDS:
                    if name.startswith(text[1:]):
                        yield Completion(f"/{name}", start_position=-len(text))
                return
            name = text[1:].split(" ", 1)[0] if text.startswith("/") else ""
            command = commands.COMMANDS.get(name)
            if command is None or not command.takes_files or chat.session.repo is None:
                return
            word = document.get_word_before_cursor(WORD=True)
            for rel in chat.session.repo.files():
                if rel.startswith(word) and rel not in CACHE_FILES:
                    yield Completion(rel, start_position=-len(word))

    return _Completer()
