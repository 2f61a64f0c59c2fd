"""Golden cases of replies that real models write and that were once written wrong in silence,
or refused where the reply settles what it means, run through the real `coder --apply` in a git
repository: the files after, or the refusal with exit status 1 and the files untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..gitrepo import git

ROOT = Path(__file__).resolve().parents[3]
CASES = ROOT / "tests" / "editformats" / "cases"
SILENT = [
    "diff/error-near-miss-with-a-miscopied-unchanged-line",
    "diff/near-miss-in-the-lines-it-changes",
    "diff/error-two-blocks-on-the-same-lines",
    "diff/error-several-places-after-the-previous-block",
    "diff/second-divider-before-the-tail-in-code",
    "diff/error-replacement-elsewhere-is-not-the-change-made",
    "whole/example-output-after-the-code",
    "whole/error-empty-block-for-a-chat-file",
    "whole/error-look-alike-name",
    "whole/decomposed-accent-names-the-chat-file",
    "whole/new-file-with-a-brevity-comment",
    "whole/name-in-a-heading-after-a-word",
    # Issue 32: a replacement standing elsewhere is not the change made ...
    "diff/error-replacement-in-another-function-is-not-already-made",
    "udiff/error-replacement-in-another-function-is-not-already-made",
    "diff/block-sent-again-is-already-made",
    # ... a reply that mixes formats applies nothing, and says what it read ...
    "patch/error-a-search-replace-block-beside-the-patch",
    "patch/error-a-whole-file-beside-the-patch",
    "diff/error-a-patch-beside-the-blocks",
    "udiff/error-a-patch-beside-the-hunks",
    "whole/error-a-patch-in-an-unnamed-fence",
    # ... and the reply's other blocks settle which of several places a text means.
    "diff/several-places-the-next-block-picks-one",
    "diff/several-places-the-file-as-the-reply-found-it-picks-one",
    "diff/several-places-the-lines-after-a-skip-pick-one",
    "diff/error-several-places-before-the-next-block",
]
NAMES = [
    "whole/name-with-spaces-above-the-block",
    "whole/prose-line-with-spaces-is-not-a-name",
    "whole/placeholder-folder-before-a-chat-file",
    "whole/error-placeholder-folder-for-a-new-file",
    "whole/blocks-after-sentences-naming-their-files",
    "whole/blocks-under-headings-naming-their-files",
    "whole/a-named-block-then-a-sentence-naming-another-file",
    "whole/a-snippet-after-a-sentence-naming-a-file-is-not-the-file",
    "whole/the-old-version-shown-after-the-new-one-is-not-written",
    "whole/the-old-version-introduced-after-the-named-one-is-not-written",
    "whole/home-folder-path-of-a-chat-file",
    "whole/reasoning-as-aider-transcripts-show-it",
    "diff/reasoning-as-earlier-aider-transcripts-show-it",
    "diff/windows-absolute-path-in-another-letter-case",
    "diff/a-sentence-naming-another-file-ends-the-name-before",
    "diff/a-sentence-naming-the-same-file-keeps-it",
    "whole/new-file-named-with-a-remark",
    "diff/new-file-named-with-a-remark",
    "whole/error-a-name-with-a-remark-of-a-part-is-not-the-file",
]
"""Replies whose files a careful reader finds from names as models write them (issue 32)."""


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("name", SILENT + NAMES)
def test_the_case_through_coder_apply(tmp_path: Path, name: str) -> None:
    case = CASES / name
    repo = tmp_path / "repo"
    shutil.copytree(case / "before", repo)
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    before = _files(repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODER_", "GIT_"))}
    # The code beside this test, not whichever copy of coder the virtualenv has installed.
    env |= {"HOME": str(tmp_path), "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "coder.cli", "--apply", str(case / "reply.md")]
    command += ["--edit-format", name.split("/")[0], *before]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=120)
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    if (case / "error.txt").exists():
        assert done.returncode == 1, said
        for line in (case / "error.txt").read_text().splitlines():
            assert line.strip() in said
        assert _files(repo) == before
        return
    assert done.returncode == 0, said
    assert _files(repo) == before | _files(case / "after")
