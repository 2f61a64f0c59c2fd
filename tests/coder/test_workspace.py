"""The workspace: path refusals, faithful decoding, atomic all-or-nothing writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coder.errors import FileEncodingError, PathError
from coder.workspace import FileText, Workspace, decode, encode


@pytest.mark.parametrize("rel", ["../x.py", "/etc/passwd", ".git/config", "a/.GIT/x", ""])
def test_unsafe_paths_are_refused(tmp_path: Path, rel: str) -> None:
    with pytest.raises(PathError):
        Workspace(tmp_path).check(rel)


def test_symlinks_leaving_the_root_are_refused(tmp_path: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("secret\n")
    (tmp_path / "dir").symlink_to(outside, target_is_directory=True)
    (tmp_path / "file").symlink_to(outside / "secret.txt")
    ws = Workspace(tmp_path)
    for rel in ("dir/new.py", "file"):
        with pytest.raises(PathError, match="symlink"):
            ws.check(rel)


def test_relative_maps_user_paths_into_the_root(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    ws = Workspace(tmp_path)
    assert ws.relative("a.py") == "src/a.py"
    assert ws.relative(tmp_path / "b.py") == "b.py"
    with pytest.raises(PathError, match="outside the repository"):
        ws.relative("../../x.py")


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("café\n".encode(), "utf-8"),
        (b"\xef\xbb\xbfbom\n", "utf-8-sig"),
        ("café\r\n".encode("cp1252"), "cp1252"),
        (b"\x81\x8d odd\n", "latin-1"),
        ("é".encode() + b" and \xff\n", "utf-8+surrogateescape"),
    ],
)
def test_decoding_keeps_every_byte(data: bytes, encoding: str) -> None:
    text, found = decode(data)
    assert found == encoding
    assert encode(text, found, "f") == data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_round_trip(data: bytes) -> None:
    text, encoding = decode(data)
    assert encode(text, encoding, "f") == data


def test_read_missing_and_crlf(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    ws = Workspace(tmp_path)
    assert ws.read("w.txt").text == "a\r\nb\r\n"
    assert ws.read("none.txt") == FileText("none.txt")


def test_write_all_creates_folders_and_keeps_the_mode(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    ws = Workspace(tmp_path)
    ws.write_all({"run.sh": "echo 2\n", "new/deep/x.py": "x\n"}, {"run.sh": ws.read("run.sh")})
    assert script.read_text() == "echo 2\n"
    assert os.stat(script).st_mode & 0o777 == 0o755
    assert (tmp_path / "new/deep/x.py").read_text() == "x\n"
    assert not [p for p in tmp_path.rglob("*.coder")]


def test_write_all_writes_nothing_when_a_file_cannot_be_encoded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "old.txt").write_bytes("caf\xe9\n".encode("latin-1") + b"\x81\n")
    ws = Workspace(tmp_path)
    originals = {p: ws.read(p) for p in ("a.txt", "old.txt")}
    with pytest.raises(FileEncodingError, match="old.txt"):
        ws.write_all({"a.txt": "changed\n", "old.txt": "snow ☃\n"}, originals)
    assert (tmp_path / "a.txt").read_text() == "a\n"


def test_write_all_puts_back_what_it_replaced_when_a_later_write_fails(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "blocker").write_text("a file where a folder is needed\n")
    ws = Workspace(tmp_path)
    originals = {"a.txt": ws.read("a.txt")}
    with pytest.raises(OSError):
        ws.write_all({"a.txt": "A\n", "new.txt": "n\n", "blocker/x.py": "x\n"}, originals)
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert not (tmp_path / "new.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "blocker"]
