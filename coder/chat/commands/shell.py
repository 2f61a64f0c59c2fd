"""Commands run in the repository: /run (and !command), /test."""

from __future__ import annotations

import os
import subprocess

from coder.chat.commands.registry import Chat, command
from coder.errors import UsageError
from coder.repomap import CACHE_FILES
from coder.trust.selection import exposure, testing
from sandbox import secret_values


@command("run", "Run a shell command (also !command) and offer its output to the chat.")
def _run(chat: Chat, args: str) -> None:
    if not args:
        raise UsageError("/run needs a command")
    status, output = _shell(chat, args)
    if output and chat.terminal.confirm("Add the output to the chat?", default=False):
        chat.session.history_note(f"I ran `{args}` (exit status {status}):\n\n{output}")


@command("test", "Run the test command (--test-cmd) and offer failures to the model.")
def _test(chat: Chat, args: str) -> None:
    cmd = args or chat.config.test_cmd
    if not cmd:
        raise UsageError("no test command: pass --test-cmd or give one: /test pytest -x")
    if chat.session.config.sandbox is not None:
        status, output = _contained(chat, cmd)
    else:
        status, output = _shell(chat, cmd)
    if status == 0:
        chat.terminal.say("The tests pass.")
    elif chat.terminal.confirm("The tests fail. Ask the model to fix them?", default=True):
        chat.session.turn(f"`{cmd}` fails:\n\n{output[-8000:]}\n\nFix the code.")


def _contained(chat: Chat, cmd: str) -> tuple[int, str]:
    """Run cmd in a sandboxed copy of the repository's files; (exit status, output)."""
    session = chat.session
    files = session.repo.files() if session.repo else testing.tree_files(session.ws.root)
    files = [f for f in files if f not in CACHE_FILES]  # coder's own cache is not the user's
    secrets = secret_values(os.environ, session.config.secrets)
    files, left = exposure.exposable(session.ws.root, files, secrets)
    for rel, why in sorted(left.items()):
        chat.terminal.say(f"Not in the sandboxed copy: {rel} ({why}).")
    setup = testing.TestSetup(
        cmd, tuple(files), chat.config.timeout, session.config.sandbox, secrets=secrets
    )
    run = testing.run_in_copy(session.ws.root, setup, {})
    if run.output:
        chat.terminal.say(run.output)
    chat.terminal.say(f"(exit status {run.status}, in a sandboxed copy of the files)")
    return run.status, run.output


def _shell(chat: Chat, cmd: str) -> tuple[int, str]:
    """Run cmd in the repository folder, showing its output; (exit status, output)."""
    done = subprocess.run(
        cmd,
        shell=True,
        cwd=chat.session.ws.root,
        capture_output=True,
        text=True,
        errors="replace",
    )
    output = (done.stdout + done.stderr).strip()
    if output:
        chat.terminal.say(output)
    chat.terminal.say(f"(exit status {done.returncode})")
    return done.returncode, output
