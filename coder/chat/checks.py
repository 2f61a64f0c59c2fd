"""What runs after an edit is applied: a syntax check of the changed files (tree-sitter, no
command needed), the lint command, then the tests when --auto-test is on. The first that fails
is shown to the user and sent to the model as its next request."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from coder.chat.turns import SessionConfig, TurnOutcome
from coder.edits.workspace import Workspace
from coder.languages import parser_for
from coder.repomap import CACHE_FILES
from coder.seams.repo import Repo
from coder.terminal import Terminal
from coder.trust.rtc import Behaviour, Change
from coder.trust.selection import exposure, testing
from sandbox import secret_values

MAX_OUTPUT = 8_000
"""Characters of a command's output the model sees (the end, where the failures are)."""
MAX_ERRORS = 5
"""Syntax errors quoted per file."""
TIMEOUT = 600.0
"""Seconds a lint or test command may run."""
SYNTAX_SECONDS = 10.0
"""Seconds the syntax check of one edit may take. tree-sitter parses in C, holding the GIL,
and loops forever on some inputs (the TSX `<a {{b:>c:d(e f)`, tree-sitter-typescript issue
323), so it parses in a process of its own, which is killed when the time is up."""


@dataclass(frozen=True)
class Problem:
    """A check that failed: a line for the user and the request that asks the model to fix it."""

    headline: str
    request: str


def reflect(
    outcome: TurnOutcome,
    check: Callable[[tuple[str, ...]], Problem | None],
    turn: Callable[[str], TurnOutcome],
    limit: int,
    terminal: Terminal,
) -> TurnOutcome:
    """After a request whose edit applied: check the files it changed; while a check fails,
    send the problem to the model as the next request, at most limit times. The outcome of the
    whole request, with `unresolved` set when a check still fails at the end."""
    for attempt in range(limit + 1):
        if not outcome.changed or outcome.failed or outcome.interrupted:
            return outcome
        problem = check(outcome.changed)
        if problem is None:
            return outcome
        if attempt == limit:
            terminal.error(f"Still failing after {limit} attempts: {problem.headline}")
            return replace(outcome, unresolved=problem.headline)
        terminal.error(problem.headline)
        outcome = joined(outcome, turn(problem.request))
    return outcome


def joined(first: TurnOutcome, then: TurnOutcome) -> TurnOutcome:
    """One outcome for a request and the fixes that followed it."""
    return replace(
        then,
        changed=tuple(dict.fromkeys(first.changed + then.changed)),
        commits=first.commits + then.commits,
        applied=first.applied,
        not_committed=tuple(dict.fromkeys(first.not_committed + then.not_committed)),
    )


def after_edit(
    config: SessionConfig,
    ws: Workspace,
    terminal: Terminal,
    tests: Callable[[], testing.TestSetup | None],
    changed: tuple[str, ...],
    originals: dict[str, str | None],
) -> Problem | None:
    """The first check the changed files fail: syntax, the lint command, the tests (run in a
    sandboxed copy, as tests() says, when the chat has a sandbox)."""
    if config.check_syntax:
        texts = {p: f.text for p in changed if (f := ws.read(p)).exists}
        if problem := syntax(texts, originals, terminal):
            return problem
    present = tuple(p for p in changed if ws.read(p).exists)  # not the files deleted
    lint = (
        config.lint_cmd and present and command("lint command", config.lint_cmd, ws.root, present)
    )
    if lint:
        return lint
    if not (config.auto_test and config.test_cmd):
        return None
    terminal.say(f"Running the tests: {config.test_cmd}")
    if config.sandbox is None:
        return command("tests", config.test_cmd, ws.root)
    run = testing.run_in_copy(ws.root, tests(), {})
    return failed("tests", config.test_cmd, run.status, run.output)


def test_setup(config: SessionConfig, ws: Workspace, repo: Repo | None) -> testing.TestSetup | None:
    """How the test command runs on versions of the files; None without one."""
    if not config.test_cmd:
        return None
    secrets = secret_values(os.environ, config.secrets)
    if config.test_pristine is not None:
        folder, files, writable = config.test_pristine
        return testing.TestSetup(
            config.test_cmd,
            files,
            sandbox=config.sandbox,
            ready=config.test_ready,
            secrets=secrets,
            pristine=folder,
            writable=writable,
        )
    files = repo.files() if repo else testing.tree_files(ws.root)
    files = [f for f in files if f not in CACHE_FILES]  # coder's own cache is not the user's
    if config.sandbox is not None:
        files, _ = exposure.exposable(ws.root, files, secrets)
    return testing.TestSetup(
        config.test_cmd,
        tuple(files),
        sandbox=config.sandbox,
        ready=config.test_ready,
        secrets=secrets,
    )


def behaviour(
    root: Path, tests: testing.TestSetup | None, change: Change | None
) -> Behaviour | None:
    """How /rtc runs the tests on a version of the last edit: in a copy of the repository
    with the edit's files as they were before it, then that version written over them."""
    if tests is None or change is None:
        return None
    created = set(change.after) - set(change.before)

    def run(files: dict[str, str]) -> dict[str, bool]:
        version = {p: None for p in created} | change.before | files
        done = testing.run_in_copy(root, tests, version)
        return done.outcomes or {"the test command": done.status == 0}

    return run


def syntax(
    texts: Mapping[str, str], before: Mapping[str, str | None], terminal: Terminal | None = None
) -> Problem | None:
    """Syntax errors in the changed files that the edit brought in: a file that did not parse
    before the edit is not held against it. A check that runs out of time (or crashes) finds
    nothing, and says so on terminal."""
    pairs = [(path, texts[path], before.get(path)) for path in sorted(texts)]
    pairs = [pair for pair in pairs if parser_for(pair[0]) is not None]
    if not pairs:
        return None
    found = _apart(pairs)
    if found is None:
        if terminal is not None:
            names = ", ".join(path for path, _, _ in pairs)
            terminal.error(f"The syntax check of {names} did not finish: it is skipped.")
        return None
    found = [(path, errors) for path, errors in found if errors]
    if not found:
        return None
    listing = "\n".join(f"{path}:{line}: {what}" for path, errors in found for line, what in errors)
    names = ", ".join(path for path, _ in found)
    return Problem(
        f"The edit left syntax errors in {names}; sending them to the model.",
        f"Your edit left syntax errors:\n\n{listing}\n\nFix them.",
    )


_WORKER = """
import json, sys
sys.path.insert(0, {root!r})
from coder.chat.checks import brought_in
pairs = json.load(sys.stdin)
json.dump([[path, brought_in(path, new, old)] for path, new, old in pairs], sys.stdout)
"""


def _apart(
    pairs: list[tuple[str, str, str | None]],
) -> list[tuple[str, list[tuple[int, str]]]] | None:
    """brought_in() of each (path, new text, old text), worked out in a process of its own;
    None when it ran out of SYNTAX_SECONDS or failed."""
    root = str(Path(__file__).resolve().parents[2])
    # Isolated (-I) and in an empty folder: nothing of the user's repository is imported.
    command = [sys.executable, "-I", "-c", _WORKER.format(root=root)]
    with tempfile.TemporaryDirectory(prefix="coder-syntax-") as folder:
        try:
            done = subprocess.run(
                command,
                input=json.dumps(pairs),
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="surrogateescape",
                timeout=SYNTAX_SECONDS,
                cwd=folder,
            )
            found = json.loads(done.stdout) if done.returncode == 0 else None
        except (subprocess.TimeoutExpired, OSError, ValueError):
            return None
    if found is None:
        return None
    return [(path, [(line, what) for line, what in errors]) for path, errors in found]


def brought_in(path: str, new: str, old: str | None) -> list[tuple[int, str]]:
    """The syntax errors of new, unless old (the file before the edit) had some already."""
    errors = syntax_errors(path, new)
    if errors and old is not None and syntax_errors(path, old):
        return []
    return errors


def syntax_errors(path: str, text: str) -> list[tuple[int, str]]:
    """(line, description) of the first syntax errors tree-sitter finds in text; none for a
    language it does not parse."""
    parser = parser_for(path)
    if parser is None:
        return []
    data = text.encode("utf-8", "surrogateescape")
    lines = text.splitlines()
    found: list[tuple[int, str]] = []
    stack = [parser.parse(data).root_node]
    while stack and len(found) < MAX_ERRORS:
        node = stack.pop()
        if not node.has_error:
            continue
        if node.is_missing or node.type == "ERROR":
            row = node.start_point[0]
            shown = lines[row].strip() if row < len(lines) else ""
            what = f"missing {node.type}" if node.is_missing else "syntax error"
            found.append((row + 1, f"{what}: {shown}" if shown else what))
            continue
        stack.extend(reversed(node.children))
    return sorted(found)


def command(name: str, cmd: str, root: Path, paths: Sequence[str] = ()) -> Problem | None:
    """Run cmd (with paths appended, quoted, each as ./path so that no name a reply made can
    pass for an option) in root; a Problem with its output when it exits with anything but 0
    or runs out of time."""
    import shlex

    line = " ".join([cmd, *(shlex.quote(f"./{p}") for p in paths)])
    status, output = run(line, root, TIMEOUT)
    return failed(name, line, status, output)


def failed(name: str, line: str, status: int | None, output: str) -> Problem | None:
    """The Problem of a command that exited with status (None: it ran out of time), or None
    when it passed."""
    if status == 0:
        return None
    tail = output[-MAX_OUTPUT:]
    how = "ran out of time" if status is None else f"failed (exit status {status})"
    return Problem(
        f"The {name} {how}; sending its output to the model.",
        f"After your edit, `{line}` {how}:\n\n```\n{tail}\n```\n\nFix the code.",
    )


def run(cmd: str, root: Path, timeout: float) -> tuple[int | None, str]:
    """(exit status, output) of a shell command in root; None for the status when it ran out
    of time, and then everything it started is killed."""
    process = subprocess.Popen(
        cmd,
        shell=True,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=timeout)
        status: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        status = None
    except BaseException:  # Ctrl-C: its own session does not get it, so end it here
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    return status, out.decode("utf-8", "replace").strip()
