"""A real git repository in a temporary folder, for tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

HELLO = 'def greet():\n    return "hello"\n'


def git(cwd: Path, *args: str) -> str:
    """Run git in cwd; its output."""
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    """A repository at root with a test identity and files committed as "start"."""
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    for name, text in (files if files is not None else {"hello.py": HELLO}).items():
        (root / name).write_text(text)
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root
