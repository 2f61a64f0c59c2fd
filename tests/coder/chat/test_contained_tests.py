"""The chat's sandboxed tests never hold a secret: the real `coder` command running /test in the
sandbox, on a repository with a `.env`, coder's own files and a key written into a file, with
the key given on the command line."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

import pytest

from ..chatcli import run_chat
from ..gitrepo import make_repo

CANARY = "sk-canary-0d1e2f3a4b5c6d7e"
LOOK = (
    "cat .env config.txt .coder.chat.history.md .coder.conf.yml 2>/dev/null;"
    " for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done;"
    " ls -a; base64 config.txt 2>/dev/null; exit 1"
)
"""A test command that prints everything it can find of the repository and of the processes
around it, plain and encoded."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    make_repo(folder, {"a.py": "A = 1\n", "config.txt": f"key = {CANARY}\n"})
    (folder / ".env").write_text(f"OPENAI_API_KEY={CANARY}\n")  # untracked, not ignored
    (folder / ".coder.conf.yml").write_text("map-tokens: 0\n")
    (folder / ".coder.chat.history.md").write_text(f"# an old chat about {CANARY}\n")
    return folder


@pytest.mark.parametrize("kind", ["bwrap", "rlimit"])
def test_no_secret_enters_the_sandboxed_copy(repo: Path, kind: str) -> None:
    from sandbox import SandboxError, get_sandbox

    try:
        get_sandbox(kind)
    except SandboxError as exc:
        pytest.skip(str(exc))
    flags = ("--api-key", CANARY, "--sandbox", kind)
    done = run_chat(repo, f"/test {LOOK}\n/exit\n", *flags)
    out = done.stdout + done.stderr
    assert "in a sandboxed copy of the files" in out, out
    encoded = base64.b64encode(f"key = {CANARY}\n".encode()).decode()
    assert CANARY not in out and encoded[:20] not in out, out
    assert "Not in the sandboxed copy: .env (a file made to hold secrets)." in out
    assert "Not in the sandboxed copy: config.txt (it holds a key or token of yours)." in out
    assert "Not in the sandboxed copy: .coder.chat.history.md (coder's own file)." in out


def test_the_api_key_never_stays_on_coders_command_line(repo: Path) -> None:
    probe = (
        "import glob;"
        "[print('CMDLINE', open(f, 'rb').read().replace(bytes(1), b' ').decode())"
        " for f in glob.glob('/proc/[0-9]*/cmdline') if b'coder.cli' in open(f, 'rb').read()]"
    )
    done = run_chat(repo, f'!{sys.executable} -c "{probe}"\n/exit\n', f"--api-k={CANARY}")
    seen = [line for line in (done.stdout + done.stderr).splitlines() if "CMDLINE" in line]
    assert any("-m coder.cli" in line for line in seen), done.stdout + done.stderr
    assert not any(CANARY in line for line in seen), seen


def test_the_sandboxed_tests_see_no_folder_of_the_users_path(repo: Path, tmp_path: Path) -> None:
    """A script in ~/bin holding a token, on the PATH: /test in bubblewrap neither finds it by
    name nor reads it by its path; a system folder on the PATH that holds a program the
    command names is there."""
    from sandbox import SandboxError, get_sandbox

    try:
        get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    tool = home / "bin" / "deploy-tool"
    token = "tok-in-home-bin-7a8b9c0d1e"  # not a key coder knows, so never redacted
    tool.write_text(f"#!/bin/sh\necho deploying with {token}\n")
    tool.chmod(0o755)
    path = {"HOME": str(home), "PATH": f"{home / 'bin'}:{os.environ['PATH']}"}
    look = f"deploy-tool; cat {tool}; ls {home / 'bin'}; echo PATH=$PATH; exit 1"
    done = run_chat(repo, f"/test {look}\n/exit\n", "--sandbox", "bwrap", env=path)
    out = done.stdout + done.stderr
    assert "in a sandboxed copy of the files" in out, out
    assert token not in out, out
    (path,) = [line for line in out.splitlines() if line.startswith("PATH=")]
    assert str(home) not in path and "/usr/bin" in path, path
