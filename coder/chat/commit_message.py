"""The one-line commit message of an edit, written by the weak model from the diff; a plain
"coder: edit FILES" when the model cannot answer."""

from __future__ import annotations

from coder.errors import CoderError
from coder.seams.gitargs import listed
from coder.seams.model import Message, Model, Request, Usage
from coder.seams.repo import Repo

COMMIT_TOKENS = 100
"""Enough for one line; a model that rambles on is cut off, and the first line kept."""
COMMIT_PROMPT = (
    "Write a git commit message for the diff below: one line in the imperative mood, at most"
    " 72 characters, saying what changed and why. Answer with the line only."
)
MAX_DIFF = 20_000
"""Characters of the diff the model sees."""


def write_commit_message(model: Model, repo: Repo | None, changed: list[str]) -> tuple[str, Usage]:
    """The first line of the model's answer (at most 100 characters), or the fallback; and
    what the request used."""
    fallback = "coder: edit " + listed(changed)
    diff = repo.diff(changed) if repo else ""
    try:
        messages = (Message("system", COMMIT_PROMPT), Message("user", diff[:MAX_DIFF]))
        answer = model.complete(Request(messages, max_tokens=COMMIT_TOKENS, kind="commit-message"))
    except CoderError:
        return fallback, Usage()
    lines = answer.text.strip().strip("`\"'").splitlines()
    return (lines[0][:100] if lines and lines[0].strip() else fallback), answer.usage
