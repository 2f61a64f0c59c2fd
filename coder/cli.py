"""The `coder` command line.

`coder --apply REPLY --edit-format FMT [--yes] [--no-auto-commits] [--dry-run] FILE...` applies a
saved reply to FILE... with no model. Exit status: 0 every edit applied, 1 an edit failed
(nothing was written), 2 usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from coder.errors import CoderError, UsageError

EXIT_USAGE = 2
"""Exit status for a command line coder cannot act on."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `coder`."""
    parser = argparse.ArgumentParser(
        prog="coder",
        description="Apply a language model's edits to the files of a git repository.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="files in the chat")
    parser.add_argument("--apply", metavar="REPLY", help="apply a saved reply, with no model")
    parser.add_argument("--edit-format", default="diff", help="edit format of the reply")
    parser.add_argument("--yes", "--yes-always", action="store_true", help="answer yes")
    parser.add_argument(
        "--no-auto-commits", dest="auto_commits", action="store_false", help="do not commit"
    )
    parser.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    from coder.terminal import Terminal

    terminal = Terminal(color=color)
    if not args.apply:
        terminal.error("coder: the interactive chat is not available yet; use --apply REPLY")
        return EXIT_USAGE
    from coder import offline

    options = offline.ApplyOptions(
        reply=Path(args.apply),
        edit_format=args.edit_format,
        files=tuple(args.files),
        yes=args.yes,
        auto_commits=args.auto_commits,
        dry_run=args.dry_run,
        color=color,
    )
    try:
        return offline.run(options, terminal)
    except UsageError as exc:
        terminal.error(f"coder: {exc}")
        return EXIT_USAGE
    except CoderError as exc:
        terminal.error(f"coder: {exc}")
        return offline.EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
