"""The one guard (coder/edits/guard.py): every file operation of every format passes the same
rules. `coder --apply` in real git repositories: read-only files, mode bits on a rename, names
like options or like other names, copies of what git will not commit, and the exit status of an
edit written but not committed (issue 32, items 1-4, 7 and 9)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from coder import exits
from coder.cli import main
from coder.edits import editing, guard
from coder.edits.workspace import Workspace
from coder.seams.repo import Repo
from editformats import Applied, ApplyResult, Edit, EditFormat, Reply, get_format

from ..gitrepo import git, make_repo

FILES = {"a.py": "x = 1\n", "run.sh": "#!/bin/sh\necho hi\n", "locked.py": "LOCKED = 1\n"}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    make_repo(root, FILES)
    (root / "run.sh").chmod(0o755)
    (root / "locked.py").chmod(0o444)
    git(root, "add", ".")
    git(root, "commit", "-qm", "modes")
    monkeypatch.chdir(root)
    return root


def apply(repo: Path, reply: str, *args: str, fmt: str = "patch") -> int:
    path = repo.parent / "reply.md"
    path.write_text(reply)
    return main(["--apply", str(path), "--edit-format", fmt, *args])


def patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def head(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%s").strip()


@pytest.mark.parametrize(
    "section",
    ["*** Delete File: locked.py\n", "*** Update File: locked.py\n*** Move to: free.py\n"],
)
def test_yes_never_removes_or_renames_a_read_only_file(repo: Path, capsys, section: str) -> None:
    assert apply(repo, patch(section), "--yes", "locked.py") == exits.FAILED
    err = capsys.readouterr().err
    assert "removes locked.py, which is read-only" in err and "--yes never allows that" in err
    assert (repo / "locked.py").read_text() == "LOCKED = 1\n" and not (repo / "free.py").exists()
    assert head(repo) == "modes"


def test_a_renamed_script_stays_executable(repo: Path) -> None:
    move = "*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo hello\n"
    assert apply(repo, patch(move), "run.sh") == exits.OK
    assert os.stat(repo / "bin/run.sh").st_mode & stat.S_IXUSR
    assert git(repo, "ls-files", "-s", "bin/run.sh").startswith("100755 ")


@pytest.mark.parametrize(
    "section",
    [
        "*** Add File: -x.py\n+print(1)\n",
        "*** Add File: sub/-x.py\n+print(1)\n",
        "*** Add File: -sub/x.py\n+print(1)\n",
        "*** Update File: a.py\n*** Move to: --help.py\n",
        "*** Add File: \u0430.py\n+print(1)\n",  # a Cyrillic а
        "*** Add File: A.py\n+print(1)\n",
        "*** Update File: a.py\n*** Move to: RUN.sh\n",
        "*** Add File: new.py\n+a\n*** Add File: NEW.py\n+b\n",
    ],
)
def test_a_patch_names_no_file_like_an_option_or_like_another(
    repo: Path, capsys, section: str
) -> None:
    assert apply(repo, patch(section), "--yes", "a.py") == exits.FAILED
    assert "was refused" in capsys.readouterr().err
    assert head(repo) == "modes" and git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("fmt", "reply"),
    [
        ("whole", "A.py\n```python\nx = 2\n```\n"),
        ("diff", "A.py\n```python\n<<<<<<< SEARCH\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"),
        ("udiff", "```diff\n--- /dev/null\n+++ sub/-x.py\n@@ -0,0 +1 @@\n+x = 2\n```\n"),
    ],
)
def test_every_format_meets_the_same_names_rule(repo: Path, fmt: str, reply: str) -> None:
    assert apply(repo, reply, "--yes", "a.py", fmt=fmt) == exits.FAILED
    assert head(repo) == "modes" and git(repo, "status", "--porcelain") == ""


def test_a_new_format_gets_every_rule_by_construction(repo: Path) -> None:
    """A format made here, which computes whatever it likes, is held by the same guard."""
    asked: dict[str, ApplyResult] = {}

    def apply_any(edits, files, tree=None) -> ApplyResult:
        return asked["result"]

    fmt = EditFormat("anything", "", (), lambda reply: [Edit("a.py", "", "")], apply_any)
    edit = Edit("a.py", "", "", index=1)
    ws, found = Workspace(repo), Repo.find(repo)
    scope = guard.scope_of(ws, found, {"a.py"})
    refused = {
        "-n.py": ApplyResult({"-n.py": "x"}, (Applied(edit, "-n.py", "created"),)),
        "locked.py": ApplyResult(deleted=("locked.py",), applied=(Applied(edit, "locked.py", ""),)),
        "run.sh": ApplyResult(
            {"run.sh": "y"},
            (Applied(edit, "a.py", ""),),
            deleted=("a.py",),
            moved={"a.py": "run.sh"},
        ),
        ".git/config": ApplyResult({".git/config": "x"}, (Applied(edit, ".git/config", ""),)),
        ".envrc": ApplyResult({".envrc": "x"}, (Applied(edit, ".envrc", "created"),)),
        "../out.py": ApplyResult({"../out.py": "x"}, (Applied(edit, "../out.py", "created"),)),
    }
    for path, result in refused.items():
        asked["result"] = result
        proposal = editing.propose(fmt, Reply("x"), ws, ["a.py", "locked.py"], scope)
        assert proposal.result.failures and not proposal.result.changed, path


@pytest.fixture
def nested(repo: Path) -> Path:
    """A repository of its own inside repo, with uncommitted work in inner/w.py."""
    inner = repo / "inner"
    inner.mkdir()
    make_repo(inner, {"w.py": "v = 1\n"})
    (inner / "w.py").write_text("v = 2  # my work\n")
    return inner


@pytest.mark.parametrize(
    ("fmt", "reply"),
    [
        ("patch", patch("*** Delete File: inner/w.py\n")),
        ("whole", "inner/w.py\n```python\nv = 3\n```\n"),
    ],
)
def test_a_file_of_a_nested_repository_is_copied_before_it_is_replaced_or_removed(
    repo: Path, nested: Path, capsys, fmt: str, reply: str
) -> None:
    assert apply(repo, reply, "--yes", "inner/w.py", fmt=fmt) == exits.NOT_COMMITTED
    out, err = capsys.readouterr()
    copies = list((repo / ".git/coder/backups").rglob("w.py"))
    assert [c.read_text() for c in copies] == ["v = 2  # my work\n"]
    assert "its version before this edit is kept in .git/coder/backups/" in out
    assert "inner/w.py is" in err and "not committed: it is in another git repository" in err


def test_an_assume_unchanged_file_written_ends_with_the_status_not_committed(
    repo: Path, capsys
) -> None:
    git(repo, "update-index", "--assume-unchanged", "a.py")
    assert apply(repo, "a.py\n```python\nx = 5\n```\n", "a.py", fmt="whole") == exits.NOT_COMMITTED
    assert (repo / "a.py").read_text() == "x = 5\n"
    err = capsys.readouterr().err
    assert "a.py is written but not committed: it is marked assume-unchanged" in err


def test_a_request_given_up_puts_a_renamed_script_back_executable(repo: Path) -> None:
    from coder.chat.landing import Landing
    from coder.terminal import Terminal

    ws, found = Workspace(repo), Repo.find(repo)
    landing = Landing(ws, found, Terminal(), [], lambda paths: "edit")
    reply = Reply(patch("*** Update File: run.sh\n*** Move to: go.sh\n"))
    proposal = editing.propose(get_format("patch"), reply, ws, ["run.sh"])
    assert landing.write(proposal) and os.stat(repo / "go.sh").st_mode & stat.S_IXUSR
    landing.undo()
    assert not (repo / "go.sh").exists() and os.stat(repo / "run.sh").st_mode & stat.S_IXUSR
    assert git(repo, "status", "--porcelain") == ""
