"""The workspace: path refusals, faithful decoding, atomic all-or-nothing writes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coder.edits.workspace import FileText, Workspace, decode, encode
from coder.errors import FileEncodingError, PathError, WriteError


def files(root: Path) -> dict[str, bytes]:
    """Every file below root (symlinks and .git/ aside) with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".git" not in p.parts
    }


@pytest.mark.parametrize(
    ("rel", "message"),
    [
        ("../x.py", "../x.py is outside the repository"),
        ("a/../../x.py", "outside the repository"),
        ("/etc/passwd", "/etc/passwd is outside the repository"),
        (".git/config", ".git/config is inside .git/"),
        ("a/.GIT/x", "inside .git/"),
        ("", "not a file name"),
        ("a\0b", "not a file name"),
        (".", "the repository itself"),
        ("sub", "sub is a directory"),
        ("plain.txt/x.py", "plain.txt is a file"),
    ],
)
def test_unsafe_paths_are_refused(tmp_path: Path, rel: str, message: str) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "plain.txt").write_text("x\n")
    with pytest.raises(PathError, match=message.replace(".", r"\.")):
        Workspace(tmp_path).check(rel)


def test_paths_inside_the_root_are_normalized(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    root = tmp_path.resolve()
    assert ws.check("a/../b.py") == root / "b.py"
    assert ws.check(str(root / "src" / "c.py")) == root / "src" / "c.py"
    assert ws.read("./src//c.py") == FileText("src/c.py")


def test_symlinks_leaving_the_root_are_refused(tmp_path: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("secret\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / "dir").symlink_to(outside, target_is_directory=True)
    (tmp_path / "file").symlink_to(outside / "secret.txt")
    (tmp_path / "dangling").symlink_to(outside / "not-yet.txt")
    (tmp_path / "git").symlink_to(tmp_path / ".git", target_is_directory=True)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    ws = Workspace(tmp_path)
    for rel in ("dir/new.py", "dir/secret.txt", "file", "dangling"):
        with pytest.raises(PathError, match=f"{rel} leads through a symlink to .*outside"):
            ws.check(rel)
    with pytest.raises(PathError, match="inside .git/"):
        ws.check("git/config")
    with pytest.raises(PathError, match="loop"):
        ws.check("loop")


def test_a_symlink_inside_the_root_edits_its_target_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text("old\n")
    (tmp_path / "link.py").symlink_to("real.py")
    ws = Workspace(tmp_path)
    ws.write_all({"link.py": "new\n"}, {"link.py": ws.read("link.py")})
    assert (tmp_path / "link.py").is_symlink()
    assert (tmp_path / "real.py").read_text() == "new\n"


def test_relative_maps_user_paths_into_the_root(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    ws = Workspace(tmp_path)
    assert ws.relative("a.py") == "src/a.py"
    assert ws.relative(tmp_path / "b.py") == "b.py"
    assert ws.relative("../new/c.py") == "new/c.py"
    with pytest.raises(PathError, match=f"../../x.py is outside the repository {tmp_path}"):
        ws.relative("../../x.py")
    with pytest.raises(PathError, match="inside .git/"):
        ws.relative("../.git/config")


def test_relative_accepts_the_root_through_an_alias(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "repo", target_is_directory=True)
    ws = Workspace(tmp_path / "repo")
    assert ws.relative(tmp_path / "alias" / "a.py") == "a.py"


@pytest.mark.parametrize(
    ("data", "encoding", "text"),
    [
        ("café\n".encode(), "utf-8", "café\n"),
        (b"\xef\xbb\xbfbom\n", "utf-8-sig", "bom\n"),
        ("café\r\n".encode("cp1252"), "cp1252", "café\r\n"),
        (b"\x81\x8d odd\n", "latin-1", "\x81\x8d odd\n"),
        ("é".encode() + b" and \xff\n", "utf-8+surrogateescape", "é and \udcff\n"),
        (b"\xef\xbb\xbfa\xff\n", "utf-8-sig+surrogateescape", "a\udcff\n"),
        (b"", "utf-8", ""),
    ],
)
def test_decoding_keeps_every_byte(data: bytes, encoding: str, text: str) -> None:
    assert decode(data) == (text, encoding)
    assert encode(text, encoding, "f") == data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_round_trip(data: bytes) -> None:
    text, encoding = decode(data)
    assert encode(text, encoding, "f") == data


@settings(max_examples=300, deadline=None)
@given(
    st.booleans(),
    st.lists(st.one_of(st.text(max_size=10).map(str.encode), st.binary(max_size=3)), max_size=8),
)
def test_mixed_text_and_stray_bytes_round_trip(bom: bool, chunks: list[bytes]) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(chunks)
    text, encoding = decode(data)
    assert encode(text, encoding, "f") == data


def test_read_keeps_line_endings_and_reports_missing_files(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    ws = Workspace(tmp_path)
    assert ws.read("w.txt") == FileText("w.txt", "a\r\nb\r\n", "utf-8", True)
    assert ws.read("none.txt") == FileText("none.txt", "", "utf-8", False)


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbfone\r\ntwo\r\n",
        "caf\xe9 one\r\ntwo\n".encode("cp1252"),
        b"\x81 one\ntwo\n",
        "é one\n".encode() + b"\xff two\n",
    ],
)
def test_bytes_outside_an_edit_are_written_back_unchanged(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "f.txt").write_bytes(data)
    ws = Workspace(tmp_path)
    original = ws.read("f.txt")
    ws.write_all({"f.txt": original.text.replace("two", "2")}, {"f.txt": original})
    assert (tmp_path / "f.txt").read_bytes() == data.replace(b"two", b"2")


def test_write_all_creates_folders_and_keeps_the_mode(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    ws = Workspace(tmp_path)
    ws.write_all({"run.sh": "echo 2\n", "new/deep/x.py": "x\n"}, {"run.sh": ws.read("run.sh")})
    assert script.read_text() == "echo 2\n"
    assert script.stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "new/deep/x.py").read_text() == "x\n"
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "new/deep/x.py").stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(files(tmp_path)) == ["new/deep/x.py", "run.sh"]


def test_write_all_uses_the_original_encoding(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_bytes("caf\xe9\n".encode("cp1252"))
    ws = Workspace(tmp_path)
    ws.write_all({"old.txt": "café €\n", "new.txt": "café\n"}, {"old.txt": ws.read("old.txt")})
    assert (tmp_path / "old.txt").read_bytes() == "café €\n".encode("cp1252")
    assert (tmp_path / "new.txt").read_bytes() == "café\n".encode()


def test_write_all_writes_nothing_when_a_file_cannot_be_encoded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "old.txt").write_bytes(b"caf\xe9\n\x81\n")
    ws = Workspace(tmp_path)
    before = files(tmp_path)
    originals = {p: ws.read(p) for p in ("a.txt", "old.txt")}
    assert originals["old.txt"].encoding == "latin-1"
    message = r"old.txt is written in latin-1, which has no character '☃' \(U\+2603\)"
    with pytest.raises(FileEncodingError, match=message):
        ws.write_all({"a.txt": "changed\n", "new.txt": "n\n", "old.txt": "snow ☃\n"}, originals)
    assert files(tmp_path) == before


def test_write_all_refuses_an_unsafe_path_before_writing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    ws = Workspace(tmp_path)
    with pytest.raises(PathError, match="outside"):
        ws.write_all({"a.txt": "changed\n", "../escape.txt": "x\n"}, {})
    assert files(tmp_path) == {"a.txt": b"a\n"}
    assert not (tmp_path.parent / "escape.txt").exists()


def test_write_all_puts_back_what_it_replaced_when_a_later_write_fails(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    ws = Workspace(tmp_path)
    # Each path is safe alone, but once "x" is written as a file, "x/y.py" cannot be.
    contents = {"a.txt": "A\n", "new/deep/n.txt": "n\n", "x": "x\n", "x/y.py": "y\n"}
    with pytest.raises(
        WriteError, match="cannot write x/y.py: Not a directory; nothing was changed"
    ):
        ws.write_all(contents, {"a.txt": ws.read("a.txt")})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "a\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_write_all_rolls_back_when_a_folder_is_read_only(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.txt").write_text("b\n")
    ws = Workspace(tmp_path)
    originals = {p: ws.read(p) for p in ("a.txt", "locked/b.txt")}
    (tmp_path / "locked").chmod(0o555)
    try:
        with pytest.raises(PermissionError):
            ws.write_all({"a.txt": "A\n", "locked/b.txt": "B\n"}, originals)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert files(tmp_path) == {"a.txt": b"a\n", "locked/b.txt": b"b\n"}


_SEGMENTS = st.sampled_from(["..", ".", ".git", ".GIT", "a", "out", "link.txt", "", "/", "b.py"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_SEGMENTS, min_size=1, max_size=5).map("/".join), max_size=3))
def test_write_all_never_writes_outside_the_repository(names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root, outside = Path(temp, "repo"), Path(temp, "outside")
        root.mkdir()
        outside.mkdir()
        (outside / "link.txt").write_text("secret\n")
        (root / "out").symlink_to(outside, target_is_directory=True)
        (root / "link.txt").symlink_to(outside / "link.txt")
        ws = Workspace(root)
        with contextlib.suppress(PathError, WriteError):
            ws.write_all({name: "written\n" for name in names}, {})
        assert files(outside) == {"link.txt": b"secret\n"}
        assert sorted(p.name for p in Path(temp).iterdir()) == ["outside", "repo"]
        assert not (root / ".git").exists()


def test_write_all_removes_files_with_the_writes(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("old\n")
    (tmp_path / "keep.txt").write_text("keep\n")
    ws = Workspace(tmp_path)
    originals = {p: ws.read(p) for p in ("old.txt", "keep.txt")}
    ws.write_all({"keep.txt": "kept\n", "new/n.txt": "n\n"}, originals, removed=["old.txt"])
    assert files(tmp_path) == {"keep.txt": b"kept\n", "new/n.txt": b"n\n"}


def test_write_all_puts_back_a_removed_file_when_a_later_step_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coder.edits import workspace

    (tmp_path / "a.sh").write_bytes(b"#!/bin/sh\r\necho a\r\n")
    (tmp_path / "a.sh").chmod(0o755)
    (tmp_path / "b.txt").write_text("b\n")
    ws = Workspace(tmp_path)
    originals = {p: ws.read(p) for p in ("a.sh", "b.txt")}
    park = workspace._park
    parked: list[Path] = []

    def park_then_fail(target: Path) -> Path:
        """The first removal succeeds, the second is refused by the system."""
        if parked:
            raise PermissionError(13, "Permission denied")
        parked.append(park(target))
        return parked[-1]

    monkeypatch.setattr(workspace, "_park", park_then_fail)
    with pytest.raises(WriteError, match="cannot write b.txt: Permission denied"):
        ws.write_all({"c.txt": "c\n"}, originals, removed=["a.sh", "b.txt"])
    assert files(tmp_path) == {"a.sh": b"#!/bin/sh\r\necho a\r\n", "b.txt": b"b\n"}
    assert (tmp_path / "a.sh").stat().st_mode & 0o777 == 0o755


def test_write_all_removes_nothing_when_a_file_changed_meanwhile(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    ws = Workspace(tmp_path)
    originals = {"a.txt": ws.read("a.txt")}
    (tmp_path / "a.txt").write_text("mine\n")
    with pytest.raises(WriteError, match="changed on disk"):
        ws.write_all({}, originals, removed=["a.txt"])
    assert files(tmp_path) == {"a.txt": b"mine\n"}


def test_write_all_refuses_to_write_and_remove_one_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    ws = Workspace(tmp_path)
    with pytest.raises(WriteError, match="same file"):
        ws.write_all({"a.txt": "b\n"}, {"a.txt": ws.read("a.txt")}, removed=["a.txt"])
    assert files(tmp_path) == {"a.txt": b"a\n"}
