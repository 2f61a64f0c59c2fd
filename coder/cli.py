"""The `coder` command line.

`coder FILE...` opens a chat about FILE...; `-m TEXT` runs one request and exits (status 0 only
when the requested edit was applied). `coder --apply REPLY --edit-format FMT FILE...` applies a
saved reply with no model. Exit status 2 is for usage errors.
"""

from __future__ import annotations

# Only sys at import time: everything else is imported inside main(), where Ctrl-C during
# start-up is caught and reported instead of printing a traceback.
import sys

INTERRUPTED = 130
"""The exit status after Ctrl-C (coder.exits.INTERRUPTED)."""


def build_parser():
    """The argument parser of `coder`; every setting defaults to None so that the config file
    and environment can supply it."""
    import argparse
    from pathlib import Path

    from sandbox import KINDS

    p = argparse.ArgumentParser(
        prog="coder",
        description="Ask a language model to edit the files of a git repository.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to put in the chat")
    p.add_argument("--model", help="model name or alias (sonnet, 4o, ...)")
    p.add_argument("--weak-model", help="model for commit messages (default: --model)")
    p.add_argument(
        "--architect",
        action="store_const",
        const=True,
        help="the model plans each change; the editor model writes the edit",
    )
    p.add_argument("--editor-model", help="model that writes the edits with --architect")
    p.add_argument("--api-base", help="URL of an OpenAI-compatible server")
    p.add_argument("--api-key", help="key for the model's provider (default: its variable)")
    p.add_argument(
        "--via-litellm",
        action="store_const",
        const=True,
        help="reach an openai/ model with --api-base through litellm, not directly",
    )
    p.add_argument(
        "--edit-format",
        help="how the model writes edits (default: patch for OpenAI's GPT-4.1+, o-series and"
        " Codex models, diff for others; --apply: diff)",
    )
    p.add_argument("--max-reflections", type=int, help="retries of failed edits (default: 3)")
    p.add_argument("--read", action="append", metavar="FILE", help="add FILE read-only")
    p.add_argument("--test-cmd", help="the command /test (and --auto-test) runs")
    p.add_argument(
        "--auto-test",
        action="store_const",
        const=True,
        help="run the tests after each edit; failures go back to the model",
    )
    p.add_argument(
        "--lint-cmd",
        metavar="CMD",
        help="run CMD with the changed files after each edit; failures go back to the model",
    )
    p.add_argument(
        "--no-check-syntax",
        dest="check_syntax",
        action="store_const",
        const=False,
        help="do not parse the changed files for syntax errors after each edit",
    )
    p.add_argument(
        "--sandbox",
        choices=KINDS,
        help="run /test and candidates' tests in a copy of the files, contained (auto: bwrap)",
    )
    p.add_argument(
        "--map-tokens",
        type=int,
        metavar="N",
        help="tokens of the repository map sent with each request (1024; 0: no map)",
    )
    p.add_argument("--timeout", type=float, help="seconds to wait for a reply")
    p.add_argument(
        "--context-window",
        type=int,
        metavar="N",
        help="the model's input token limit, when litellm does not know it (the history sent"
        " is kept to about half)",
    )
    p.add_argument("-m", "--message", help="run one request and exit")
    p.add_argument("--message-file", type=Path, help="run the request in this file and exit")
    p.add_argument("--yes", "--yes-always", action="store_const", const=True, help="answer yes")
    p.add_argument("--no-auto-commits", dest="auto_commits", action="store_const", const=False)
    p.add_argument("--dry-run", action="store_const", const=True, help="write nothing")
    p.add_argument("--no-git", dest="git", action="store_const", const=False, help="no git")
    p.add_argument("--no-stream", dest="stream", action="store_const", const=False)
    p.add_argument(
        "--no-gitignore",
        dest="gitignore",
        action="store_const",
        const=False,
        help="never offer to add coder's files to .gitignore",
    )
    p.add_argument("--no-pretty", dest="pretty", action="store_const", const=False)
    p.add_argument("--candidates", type=int, metavar="N", help="N candidates per request")
    p.add_argument(
        "--no-candidate-tests",
        dest="candidate_tests",
        action="store_const",
        const=False,
        help="do not test candidates with --test-cmd",
    )
    p.add_argument(
        "--refine", type=int, metavar="N", help="rounds of fixing candidates that fail (1)"
    )
    p.add_argument("--plan", action="store_const", const=True, help="a plan before each candidate")
    p.add_argument(
        "--diverse", action="store_const", const=True, help="ask candidates from different angles"
    )
    p.add_argument("--rtc", action="store_const", const=True, help="round-trip check every edit")
    p.add_argument("--rtc-samples", type=int, metavar="N", help="descriptions per check (3)")
    p.add_argument("--rtc-threshold", type=float, metavar="X", help="score to pass (0.8)")
    p.add_argument(
        "--consistency-prompt",
        action="store_const",
        const=True,
        help="ask the model for consistent answers (Patched RTC)",
    )
    p.add_argument(
        "--local-model", metavar="PATH.gguf", help="serve this GGUF file (implies --model local)"
    )
    p.add_argument("--exit", action="store_true", help="start, print the banner, and exit")
    p.add_argument("--apply", metavar="REPLY", help="apply a saved reply, with no model")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        from coder.seams.local import stopped_on_exit

        with stopped_on_exit():
            return _run(args)
    except KeyboardInterrupt:
        from coder.terminal import Terminal

        Terminal().error("\ncoder: interrupted")
        return INTERRUPTED


def _run(args) -> int:
    import os

    from coder import exits
    from coder.errors import CoderError, UsageError
    from coder.terminal import Terminal

    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ and args.pretty is not False
    terminal = Terminal(color=color, yes=bool(args.yes), interactive=sys.stdin.isatty())
    try:
        if args.apply:
            return _apply(args, terminal, color)
        from coder.chat import startup

        return startup.run(args, terminal, dict(os.environ))
    except UsageError as exc:
        terminal.error(f"coder: {exc}")
        return exits.USAGE
    except CoderError as exc:
        terminal.error(f"coder: {exc}")
        return exits.FAILED


def _apply(args, terminal, color: bool) -> int:
    from pathlib import Path

    from coder.chat import offline

    options = offline.ApplyOptions(
        reply=Path(args.apply),
        edit_format=args.edit_format or "diff",
        files=tuple(args.files),
        yes=bool(args.yes),
        auto_commits=args.auto_commits is not False,
        dry_run=bool(args.dry_run),
        color=color,
    )
    return offline.run(options, terminal)


def _key_off_the_command_line(argv: list[str]) -> None:
    """Start coder again with --api-key's value in its environment (CODER_API_KEY) instead of
    its command line, which any process of the user can read (/proc/PID/cmdline, ps): code run
    in a sandbox without namespaces could read the key there. Nothing is done without one."""
    rest, key = [], None
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            rest += argv[i:]
            break
        name, eq, value = word.partition("=")
        # argparse takes any unambiguous start of an option's name: --api-k is --api-key.
        if name.startswith("--api-k") and "--api-key".startswith(name):
            if eq:
                key, i = value, i + 1
                continue
            if i + 1 < len(argv):
                key, i = argv[i + 1], i + 2
                continue
        rest.append(word)
        i += 1
    if key is None:
        return
    import os

    env = dict(os.environ, CODER_API_KEY=key)
    os.execve(sys.executable, [sys.executable, "-m", "coder.cli", *rest], env)


def entry() -> int:
    """The `coder` console script: main(), with an exit after Ctrl-C that CPython cannot turn
    into a death by SIGINT (it does when the interrupt landed in code run by exec(), as while
    litellm is imported, even though main() handled it)."""
    _key_off_the_command_line(sys.argv[1:])
    status = main()
    if status == INTERRUPTED:
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":
    sys.exit(entry())
