"""What the next request carries and the session so far: /tokens, /map, /map-refresh,
/clear, /reset; and /help, /exit."""

from __future__ import annotations

from coder.chat.commands.registry import COMMANDS, Chat, command
from coder.repomap.tokens import ESTIMATED


@command("tokens", "Tokens the next request will send, by part; the session's total and cost.")
def _tokens(chat: Chat, args: str) -> None:
    count = getattr(chat.session.model, "count_tokens", None) or (lambda text: len(text) // 4)
    files, read_only = chat.session.contents()
    parts = {"system prompt": chat.session.fmt.system_prompt}
    parts |= {
        f"history ({len(chat.session.history)} messages)": "".join(
            m.content for m in chat.session.history
        )
    }
    parts |= {"repository map": chat.session.map_text()}
    parts |= {rel: text for rel, text in (files | read_only).items()}
    total = 0
    for label, text in parts.items():
        n = count(text)
        total += n
        chat.terminal.say(f"{n:>9,}  {label}")
    chat.terminal.say(f"{total:>9,}  in all")
    from coder.chat.usage import spent

    chat.terminal.say(spent(chat.session.usage))


@command("map", "Show the repository map the next request will carry.")
def _map(chat: Chat, args: str) -> None:
    session = chat.session
    if session.config.map_tokens <= 0:
        chat.terminal.say("The repository map is off (--map-tokens 0).")
        return
    _show_map(chat, session.map_text())


@command("map-refresh", "Read every file again and rebuild the repository map.")
def _map_refresh(chat: Chat, args: str) -> None:
    session = chat.session
    if session.config.map_tokens <= 0:
        chat.terminal.say("The repository map is off (--map-tokens 0).")
        return
    if session.repo_map is not None:
        session.repo_map.refresh()
    text = session.map_text()
    files = "file" if session.repo_map.parsed == 1 else "files"
    chat.terminal.say(f"The repository map is rebuilt: {session.repo_map.parsed:,} {files} read.")
    _show_map(chat, text)


def _show_map(chat: Chat, text: str) -> None:
    """The map, and its size against the budget."""
    repo_map = chat.session.repo_map
    if not text and repo_map.ranked:
        chat.terminal.say(
            f"The map is empty: its first entry does not fit in {repo_map.budget:,} tokens"
            " (--map-tokens)."
        )
        return
    if not text:
        chat.terminal.say("The map is empty: no file outside the chat defines anything it reads.")
        return
    chat.terminal.say(text.rstrip("\n"))
    tokens = repo_map.tokenizer.count(text)
    note = "" if repo_map.tokenizer.exact else f" ({ESTIMATED})"
    chat.terminal.say(f"The map: {tokens:,} tokens of {repo_map.budget:,}{note}.")


@command("clear", "Forget the conversation; the files stay.")
def _clear(chat: Chat, args: str) -> None:
    chat.session.history.clear()
    chat.terminal.say("The conversation is cleared.")


@command("reset", "Forget the conversation and drop every file.")
def _reset(chat: Chat, args: str) -> None:
    chat.session.history.clear()
    chat.session.files.clear()
    chat.session.read_only.clear()
    chat.terminal.say("The conversation is cleared and every file dropped.")


@command("help", "List the commands.")
def _help(chat: Chat, args: str) -> None:
    for name, cmd in COMMANDS.items():
        chat.terminal.say(f"  /{name:<12} {cmd.help}")
    chat.terminal.say("  !command      Same as /run command.")


@command("exit", "Leave coder.")
def _exit(chat: Chat, args: str) -> None:
    raise EOFError
