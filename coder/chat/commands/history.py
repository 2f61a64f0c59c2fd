"""coder's commits in this session: /diff, /undo, /commit."""

from __future__ import annotations

from coder.chat.commands.registry import Chat, command, repo_of


@command("diff", "Show the changes of coder's last commit.")
def _diff(chat: Chat, args: str) -> None:
    repo = repo_of(chat)
    if not chat.session.commits:
        chat.terminal.say("coder has made no commit in this session.")
        return
    chat.terminal.diff(repo.show(chat.session.commits[-1]))


@command("undo", "Undo coder's last commit, if nothing changed since and it was not pushed.")
def _undo(chat: Chat, args: str) -> None:
    repo = repo_of(chat)
    if not chat.session.commits:
        head = repo.head()
        if head and head in chat.session.saves:
            chat.terminal.say(
                f"coder has no edit left to undo. The last commit, {head[:7]}, holds your own"
                " changes, which coder committed before an edit: /undo never takes those back"
                " (git reset --soft HEAD~1 would, keeping them in your files)."
            )
            return
        chat.terminal.say("coder has made no commit in this session to undo.")
        return
    sha = chat.session.commits[-1]
    files = repo.undo(sha)
    chat.session.commits.pop()
    chat.session.undone(sha)
    names = ", ".join(files)
    chat.terminal.say(f"Undone: {names} {'is' if len(files) == 1 else 'are'} back as before.")
    # The model was told its edit applied; it must learn that the edit is gone.
    chat.session.history_note(f"I undid your last edit (commit {sha[:7]}): {names} as before.")


@command("commit", "Commit the uncommitted changes of the chat files.")
def _commit(chat: Chat, args: str) -> None:
    repo = repo_of(chat)
    dirty = repo.dirty(chat.session.files)
    if not dirty:
        chat.terminal.say("Nothing to commit.")
        return
    sha = repo.commit(dirty, args or f"coder: commit changes to {', '.join(dirty)}")
    chat.terminal.say(f"Committed {sha[:7]}.")
