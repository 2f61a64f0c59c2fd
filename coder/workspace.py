"""The user's files on disk: safe paths, faithful decoding, and atomic all-or-nothing writes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from coder.errors import FileEncodingError, PathError

SURROGATES = "+surrogateescape"
"""Suffix of an encoding whose undecodable bytes are kept as lone surrogates."""


@dataclass(frozen=True)
class FileText:
    """A file's decoded text, line endings untouched, and the codec that gives back its bytes."""

    path: str
    text: str = ""
    encoding: str = "utf-8"
    """A codec name, with SURROGATES appended when invalid UTF-8 bytes are carried through."""
    exists: bool = False


def decode(data: bytes) -> tuple[str, str]:
    """The text of data and the encoding that turns it back into the same bytes."""
    if data.startswith(b"\xef\xbb\xbf"):
        with contextlib.suppress(UnicodeDecodeError):
            return data.decode("utf-8-sig"), "utf-8-sig"
    with contextlib.suppress(UnicodeDecodeError):
        return data.decode("utf-8"), "utf-8"
    text = data.decode("utf-8", "surrogateescape")
    if any(ord(c) > 0x7F and not 0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return text, "utf-8" + SURROGATES
    with contextlib.suppress(UnicodeDecodeError):
        if data.decode("cp1252").encode("cp1252") == data:
            return data.decode("cp1252"), "cp1252"
    return data.decode("latin-1"), "latin-1"


def encode(text: str, encoding: str, path: str) -> bytes:
    """The bytes of text in encoding; FileEncodingError naming the first character that fails."""
    codec, errors = encoding.removesuffix(SURROGATES), "strict"
    if encoding.endswith(SURROGATES):
        errors = "surrogateescape"
    try:
        return text.encode(codec, errors)
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start]
        raise FileEncodingError(
            f"{path} is written in {codec}, which cannot hold the character {char!r}"
        ) from None


class Workspace:
    """The files below a root folder (the repository), read and written safely."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()

    def relative(self, path: str | Path) -> str:
        """A user's path (absolute, or relative to the current folder) relative to the root."""
        absolute = Path(os.path.abspath(path))
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            try:
                rel = absolute.resolve().relative_to(self.root)
            except ValueError:
                raise PathError(f"{path} is outside the repository {self.root}") from None
        rel_text = rel.as_posix()
        self.check(rel_text)
        return rel_text

    def check(self, rel: str) -> Path:
        """The absolute path of a repository-relative path; PathError if it may not be edited."""
        parts = Path(rel).parts
        if not rel or Path(rel).is_absolute() or ".." in parts:
            raise PathError(f"{rel} is outside the repository {self.root}")
        if any(part.lower() == ".git" for part in parts):
            raise PathError(f"{rel} is inside .git/, which coder never edits")
        target = self.root / rel
        try:
            target.resolve().relative_to(self.root)
        except ValueError:
            raise PathError(f"{rel} leads through a symlink outside the repository") from None
        if target.is_dir():
            raise PathError(f"{rel} is a directory, not a file")
        return target

    def read(self, rel: str) -> FileText:
        """The file's text; a missing file reads as empty, with exists False."""
        target = self.check(rel)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            return FileText(rel)
        text, encoding = decode(data)
        return FileText(rel, text, encoding, True)

    def write_all(self, contents: Mapping[str, str], originals: Mapping[str, FileText]) -> None:
        """Write every file or none: encode all first, then replace each atomically, and put
        back the ones already replaced if a later one fails."""
        encoded = {}
        for rel, text in contents.items():
            original = originals.get(rel) or FileText(rel)
            encoded[rel] = (self.check(rel), encode(text, original.encoding, rel), original)
        done: list[tuple[Path, FileText]] = []
        try:
            for target, data, original in encoded.values():
                _replace(target, data)
                done.append((target, original))
        except BaseException:
            for target, original in reversed(done):
                _restore(target, original)
            raise


def _replace(target: Path, data: bytes) -> None:
    """Write data to a temporary file beside target, then rename it over target."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".coder")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _restore(target: Path, original: FileText) -> None:
    if original.exists:
        _replace(target, encode(original.text, original.encoding, original.path))
    else:
        with contextlib.suppress(OSError):
            target.unlink()
