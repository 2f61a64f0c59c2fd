"""`coder --apply --edit-format patch` end to end: files added, changed, deleted and renamed in
real git repositories, committed, shown, refused as a whole, and never losing the user's work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coder.cli import main
from coder.seams.repo import Repo

from ..gitrepo import git, make_repo

FILES = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "old_notes.md": "# Notes\n\nremember the milk\n",
    "legacy.py": "OLD = True\n",
}

PATCH = """Tidy up: a new module, the notes renamed, the legacy module gone.

```
*** Begin Patch
*** Update File: calc.py
@@ def add(a, b):
-    return a + b
+    return b + a
*** Add File: calc_test.py
+from calc import add
+
+assert add(1, 2) == 3
*** Update File: old_notes.md
*** Move to: docs/notes.md
@@
-remember the milk
+remember the bread
*** Delete File: legacy.py
*** End Patch
```
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_repo(tmp_path, FILES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def apply(repo: Path, text: str, *files: str, fmt: str = "patch", extra=()) -> int:
    reply = repo.parent / f"{repo.name}.reply.md"
    reply.write_text(text)
    return main(["--apply", str(reply), "--edit-format", fmt, *extra, *files])


def log(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def test_adds_changes_renames_and_deletes_in_one_commit(repo: Path, capsys) -> None:
    assert apply(repo, PATCH, "calc.py", "old_notes.md", "legacy.py") == 0
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert (repo / "calc_test.py").read_text().startswith("from calc import add\n")
    assert (repo / "docs/notes.md").read_text() == "# Notes\n\nremember the bread\n"
    assert not (repo / "old_notes.md").exists() and not (repo / "legacy.py").exists()
    assert log(repo) == [
        "coder: edit calc.py, calc_test.py, docs/notes.md, legacy.py and 1 more",
        "start",
    ]
    assert git(repo, "status", "--porcelain") == ""
    shown = git(repo, "show", "--name-status", "-M", "--format=", "HEAD")
    assert "D\tlegacy.py" in shown and "A\tcalc_test.py" in shown
    assert "D\told_notes.md" in shown and "A\tdocs/notes.md" in shown
    out = capsys.readouterr().out
    assert "legacy.py: deleted" in out
    assert "old_notes.md: moved to docs/notes.md" in out


def test_the_diff_shows_deletions_and_renames(repo: Path, capsys) -> None:
    assert apply(repo, PATCH, "calc.py", "old_notes.md", "legacy.py", extra=["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "--- a/legacy.py\n+++ /dev/null\n" in out
    assert "--- a/old_notes.md\n+++ b/docs/notes.md\n" in out
    assert "+++ b/calc_test.py" in out
    assert (repo / "legacy.py").exists() and not (repo / "docs").exists()


def test_a_plain_rename_is_shown_and_committed_as_a_rename(repo: Path, capsys) -> None:
    reply = "*** Begin Patch\n*** Update File: calc.py\n*** Move to: lib/calc.py\n*** End Patch\n"
    assert apply(repo, reply, "calc.py", extra=["--dry-run"]) == 0
    assert "--- a/calc.py\n+++ b/lib/calc.py\n" in capsys.readouterr().out
    assert apply(repo, reply, "calc.py") == 0
    assert (repo / "lib/calc.py").read_text() == FILES["calc.py"]
    assert git(repo, "status", "--porcelain") == ""
    shown = git(repo, "show", "--name-status", "-M", "--format=", "HEAD")
    assert shown == "R100\tcalc.py\tlib/calc.py\n"


def test_one_failing_chunk_writes_and_commits_nothing(repo: Path, capsys) -> None:
    broken = PATCH.replace("-remember the milk", "-remember the cheese")
    assert apply(repo, broken, "calc.py", "old_notes.md", "legacy.py") == 1
    assert log(repo) == ["start"]
    assert git(repo, "status", "--porcelain") == ""
    err = capsys.readouterr().err
    assert "-remember the cheese" in err
    assert "Nothing of your patch was applied" in err


def test_the_users_work_in_a_deleted_or_moved_file_is_committed_first(repo: Path) -> None:
    (repo / "legacy.py").write_text("OLD = True\nMINE = 1\n")
    (repo / "old_notes.md").write_text("# Notes\n\nremember the milk\nand my own line\n")
    assert apply(repo, PATCH, "calc.py", "old_notes.md", "legacy.py") == 0
    assert log(repo)[1] == "coder: save uncommitted changes to legacy.py, old_notes.md"
    assert git(repo, "show", "HEAD~1:legacy.py") == "OLD = True\nMINE = 1\n"
    assert (repo / "docs/notes.md").read_text().endswith("and my own line\n")


def test_deleting_or_moving_a_file_outside_the_chat_is_refused(repo: Path, capsys) -> None:
    assert apply(repo, PATCH, "calc.py", "old_notes.md") == 1
    assert "legacy.py is not one of the files in the chat" in capsys.readouterr().err
    assert (repo / "legacy.py").exists() and log(repo) == ["start"]


def test_yes_adds_a_file_outside_the_chat_as_for_other_formats(repo: Path) -> None:
    assert apply(repo, PATCH, "calc.py", "old_notes.md", extra=["--yes"]) == 0
    assert not (repo / "legacy.py").exists()


def test_a_steering_file_is_deleted_only_when_named(repo: Path, capsys) -> None:
    (repo / ".gitattributes").write_text("*.py text\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    reply = "*** Begin Patch\n*** Delete File: .gitattributes\n*** End Patch\n"
    assert apply(repo, reply, "calc.py", extra=["--yes"]) == 1
    assert (repo / ".gitattributes").exists()
    assert apply(repo, reply, ".gitattributes") == 0
    assert not (repo / ".gitattributes").exists()


def test_a_move_onto_a_steering_file_is_refused(repo: Path, capsys) -> None:
    reply = "*** Begin Patch\n*** Update File: calc.py\n*** Move to: .envrc\n*** End Patch\n"
    assert apply(repo, reply, "calc.py", extra=["--yes"]) == 1
    assert "calc.py" in os.listdir(repo) and not (repo / ".envrc").exists()


def test_a_symlink_is_never_deleted_or_moved_through(repo: Path, capsys) -> None:
    (repo / "link.py").symlink_to("calc.py")
    git(repo, "add", "link.py")
    git(repo, "commit", "-qm", "link")
    reply = "*** Begin Patch\n*** Delete File: link.py\n*** End Patch\n"
    assert apply(repo, reply, "link.py") == 1
    assert "symlink" in capsys.readouterr().err
    assert (repo / "link.py").is_symlink() and (repo / "calc.py").exists()


def test_a_move_onto_an_ignored_file_is_refused(repo: Path, capsys) -> None:
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build/out.py").write_text("precious\n")
    reply = "*** Begin Patch\n*** Update File: calc.py\n*** Move to: build/out.py\n*** End Patch\n"
    assert apply(repo, reply, "calc.py") == 1
    assert (repo / "build/out.py").read_text() == "precious\n"
    assert (repo / "calc.py").exists()


def test_an_absolute_path_into_the_repository_is_refused(repo: Path, capsys) -> None:
    reply = f"*** Begin Patch\n*** Delete File: {repo / 'legacy.py'}\n*** End Patch\n"
    assert apply(repo, reply, "legacy.py") == 1
    assert "absolute path" in capsys.readouterr().err
    assert (repo / "legacy.py").exists()


def test_paths_outside_the_repository_are_refused_at_both_ends(repo: Path, capsys) -> None:
    for target in ("../outside.py", ".git/hooks/pre-commit"):
        reply = f"*** Begin Patch\n*** Update File: calc.py\n*** Move to: {target}\n*** End Patch\n"
        assert apply(repo, reply, "calc.py") == 1
    assert not (repo.parent / "outside.py").exists()
    assert not (repo / ".git/hooks/pre-commit").exists()
    assert log(repo) == ["start"]


def test_a_cut_off_patch_writes_nothing(repo: Path, capsys) -> None:
    cut = PATCH[: PATCH.index("*** Delete File")]
    assert apply(repo, cut, "calc.py", "old_notes.md", "legacy.py") == 1
    assert "cut off" in capsys.readouterr().err
    assert git(repo, "status", "--porcelain") == "" and log(repo) == ["start"]


def test_crlf_bom_and_legacy_encodings_survive_a_patch(repo: Path) -> None:
    (repo / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    (repo / "latin.txt").write_bytes(b"caf\xe9\nold\n")
    reply = (
        "*** Begin Patch\n*** Update File: win.txt\n@@\n-two\n+deux\n+trois\n"
        "*** Update File: latin.txt\n@@\n-old\n+new\n*** End Patch\n"
    )
    assert apply(repo, reply, "win.txt", "latin.txt") == 0
    assert (repo / "win.txt").read_bytes() == b"\xef\xbb\xbfone\r\ndeux\r\ntrois\r\n"
    assert (repo / "latin.txt").read_bytes() == b"caf\xe9\nnew\n"


def test_a_deletion_and_a_rename_are_undone_by_undo(repo: Path) -> None:
    assert apply(repo, PATCH, "calc.py", "old_notes.md", "legacy.py") == 0
    found = Repo.find(repo)
    assert found is not None
    found.undo(found.head())
    assert (repo / "legacy.py").read_text() == FILES["legacy.py"]
    assert (repo / "old_notes.md").read_text() == FILES["old_notes.md"]
    assert not (repo / "docs/notes.md").exists() and not (repo / "calc_test.py").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_patch_func_replies_are_json(repo: Path) -> None:
    import json

    patch = "*** Begin Patch\n*** Delete File: legacy.py\n*** End Patch\n"
    assert apply(repo, json.dumps({"input": patch}), "legacy.py", fmt="patch-func") == 0
    assert not (repo / "legacy.py").exists()


def test_a_patch_applied_as_another_format_names_the_format_to_pass(repo: Path, capsys) -> None:
    """Issue 33, item 7: --apply of a V4A reply in the default format says which one it is."""
    patch = "*** Begin Patch\n*** Update File: legacy.py\n@@\n-OLD = True\n+OLD = False\n"
    patch += "*** End Patch\n"
    assert apply(repo, patch, "legacy.py", fmt="diff") == 1
    err = capsys.readouterr().err
    assert err.rstrip().endswith("It reads as patch edits: pass --edit-format patch.")
    assert log(repo) == ["start"]
    assert apply(repo, "No edit here, only words.\n", "legacy.py", fmt="diff") == 1
    assert "pass --edit-format" not in capsys.readouterr().err
