"""The real `coder` command run on a test repository's a.py, its input typed in: a model at
an address nobody answers, and none of the user's keys or of coder's and git's settings from
the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

NOWHERE = ["--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]


def run_chat(
    repo: Path,
    typed: str,
    *flags: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """`coder --no-gitignore` with flags on a.py in repo (HOME its parent folder), typed as
    its input; env adds to the environment."""
    own = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CODER_", "GIT_")) and not k.endswith("_API_KEY")
    }
    own |= {"HOME": str(repo.parent), "NO_COLOR": "1"} | dict(env or {})
    command = [sys.executable, "-m", "coder.cli", "--no-gitignore", *NOWHERE, *flags, "a.py"]
    return subprocess.run(
        command, cwd=repo, env=own, input=typed, capture_output=True, text=True, timeout=timeout
    )
