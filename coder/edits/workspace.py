"""The user's files on disk: safe paths, faithful decoding, and atomic all-or-nothing writes.

The only module that reads or writes the files of the repository being edited.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coder.errors import FileEncodingError, PathError, WriteError

SURROGATES = "+surrogateescape"
"""Suffix of an encoding whose invalid UTF-8 bytes are carried through as lone surrogates."""


@dataclass(frozen=True)
class FileText:
    """A file's decoded text and the encoding that gives back its bytes."""

    path: str
    """Repository-relative, '/'-separated."""
    text: str = ""
    """The decoded content, line endings untouched; "" when the file does not exist."""
    encoding: str = "utf-8"
    """A codec name ("utf-8", "utf-8-sig", "cp1252", "latin-1"), with SURROGATES appended
    when the file is UTF-8 with some invalid bytes."""
    exists: bool = False
    """Whether the file was on disk."""
    mode: int | None = field(default=None, compare=False)
    """Its permission bits (stat.S_IMODE) when it was on disk, so that a file written back
    (a rename, an edit undone) keeps them."""


def decode(data: bytes) -> tuple[str, str]:
    """The text of data and the encoding that turns that text back into exactly data."""
    utf8 = "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"
    with contextlib.suppress(UnicodeDecodeError):
        return data.decode(utf8), utf8
    text = data.decode(utf8, "surrogateescape")
    # Real multi-byte characters (or a BOM) mean UTF-8 with a few stray bytes, whereas a legacy
    # code page would turn those characters into mojibake.
    if utf8 == "utf-8-sig" or any(ord(c) > 0x7F and not 0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return text, utf8 + SURROGATES
    with contextlib.suppress(UnicodeDecodeError):
        return data.decode("cp1252"), "cp1252"
    return data.decode("latin-1"), "latin-1"


def encode(text: str, encoding: str, path: str) -> bytes:
    """The bytes of text in encoding; FileEncodingError naming path and the first bad character."""
    codec = encoding.removesuffix(SURROGATES)
    errors = "surrogateescape" if encoding.endswith(SURROGATES) else "strict"
    try:
        return text.encode(codec, errors)
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start]
        raise FileEncodingError(
            f"{path} is written in {codec}, which has no character {char!r} (U+{ord(char):04X})"
        ) from None


class Workspace:
    """The files below a root folder (the repository), read and written safely."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()

    def relative(self, path: str | Path) -> str:
        """A user's path (absolute, or relative to the current folder) relative to the root."""
        absolute = Path(os.path.abspath(path))
        # A folder may be reached through an alias of the root (a symlinked /tmp, say); the file
        # itself is left unresolved so that check() judges a symlink by where it leads.
        for candidate in (absolute, absolute.parent.resolve() / absolute.name):
            with contextlib.suppress(ValueError):
                rel = candidate.relative_to(self.root).as_posix()
                self.check(rel)
                return rel
        raise PathError(f"{path} is outside the repository {self.root}")

    def check(self, rel: str) -> Path:
        """The real path of a repository-relative name; PathError if coder may not edit it."""
        return self._locate(rel)[1]

    def read(self, rel: str) -> FileText:
        """The file's text; a missing file reads as "" with exists False."""
        name, target = self._locate(rel)
        try:
            with open(target, "rb") as handle:
                mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
                data = handle.read()
        except FileNotFoundError:
            return FileText(name)
        text, encoding = decode(data)
        return FileText(name, text, encoding, True, mode)

    def exists(self, rel: str) -> bool:
        """Whether a file is at rel (through symlinks), without reading it; False for a name
        coder may not edit."""
        try:
            return self.check(rel).exists()
        except PathError:
            return False

    def reference(self, name: str) -> str:
        """The name a file the user adds for reference only goes by: repository-relative when it
        lies in the repository, else its absolute path (~ expanded). PathError when it is not a
        file."""
        path = Path(os.path.abspath(os.path.expanduser(name)))
        with contextlib.suppress(PathError):
            return self.relative(path)
        if not path.is_file():
            raise PathError(f"{name} is not a file")
        return str(path)

    def read_reference(self, name: str) -> FileText:
        """A reference file's text (see reference()): one outside the repository is only ever
        read, never written."""
        if not os.path.isabs(name):
            return self.read(name)
        try:
            data = Path(name).read_bytes()
        except OSError:
            return FileText(name)
        text, encoding = decode(data)
        return FileText(name, text, encoding, True)

    def write_all(
        self,
        contents: Mapping[str, str],
        originals: Mapping[str, FileText],
        removed: Collection[str] = (),
        modes: Mapping[str, int] | None = None,
    ) -> None:
        """Write every file and remove every file of removed, or do none of it: encode all,
        check that none changed on disk since it was read into originals, then replace each
        atomically, undoing them all on failure. A file that does not exist yet is made with
        its mode in modes when given (a renamed script stays executable), else as the umask
        says; an existing one keeps its own.

        WriteError when a file changed meanwhile, two names lead to one file, or the system
        refuses a write (the files are then as they were).
        """
        encoded, targets = self.encode_all(contents, originals)
        planned = [*encoded, *self._removals(removed, targets)]
        new_modes = {self.check(rel): mode for rel, mode in (modes or {}).items()}
        self.verify({rel: originals[rel] for rel in [*contents, *removed] if rel in originals})
        replaced: list[tuple[Path, bytes | None, Path | None]] = []
        made: list[Path] = []
        current = ""
        try:
            for target, data in planned:
                current = targets[target]
                if data is None:
                    replaced.append((target, None, _park(target)))
                    continue
                before = target.read_bytes() if target.exists() else None
                _make_folders(target.parent, made)
                _replace(target, data, new_modes.get(target))
                replaced.append((target, before, None))
        except BaseException as exc:
            for target, before, parked in reversed(replaced):
                # Best effort, so that one file that cannot be put back does not stop the others.
                with contextlib.suppress(OSError):
                    if parked is not None:
                        os.replace(parked, target)
                    elif before is None:
                        target.unlink()
                    else:
                        _replace(target, before)
            for folder in reversed(made):
                with contextlib.suppress(OSError):
                    folder.rmdir()
            if isinstance(exc, OSError):
                raise WriteError(
                    f"cannot write {current}: {exc.strerror or exc}; nothing was changed"
                ) from None
            raise
        for _, _, parked in replaced:
            if parked is not None:
                with contextlib.suppress(OSError):
                    parked.unlink()

    def _removals(
        self, removed: Collection[str], targets: dict[Path, str]
    ) -> list[tuple[Path, bytes | None]]:
        """The files to remove, as (target, None), added to targets; PathError or WriteError
        (a name leading to a file also written) before anything is written."""
        planned: list[tuple[Path, bytes | None]] = []
        for rel in removed:
            target = self.check(rel)
            if target in targets:
                other = targets[target]
                raise WriteError(f"{rel} and {other} are the same file: nothing was written")
            targets[target] = rel
            planned.append((target, None))
        return planned

    def encode_all(
        self, contents: Mapping[str, str], originals: Mapping[str, FileText]
    ) -> tuple[list[tuple[Path, bytes]], dict[Path, str]]:
        """Each file's target and bytes, in its own encoding; FileEncodingError, PathError or
        WriteError (two names, one file) before anything is written."""
        planned = []
        targets: dict[Path, str] = {}
        for rel, text in contents.items():
            original = originals.get(rel) or self.read(rel)
            target = self.check(rel)
            if target in targets:
                other = targets[target]
                raise WriteError(f"{rel} and {other} are the same file: nothing was written")
            targets[target] = rel
            planned.append((target, encode(text, original.encoding, rel)))
        return planned, targets

    def verify(self, originals: Mapping[str, FileText]) -> None:
        """WriteError when a file is no longer what was read into originals."""
        for rel, original in originals.items():
            now = self.read(rel)
            if now.exists != original.exists or now.text != original.text:
                raise WriteError(
                    f"{rel} changed on disk while the reply was being applied (by you, another"
                    " program or another coder): nothing was written"
                )

    def read_only(self, rel: str) -> bool:
        """Whether the file at rel exists and its mode forbids its owner to write it (chmod
        444): someone meant it to stay as it is, which a rename would not respect."""
        try:
            mode = self.check(rel).stat().st_mode
        except OSError:
            return False
        return not mode & stat.S_IWUSR

    def real(self, rel: str) -> str:
        """The repository-relative path of the file rel leads to, through symlinks."""
        return self.check(rel).relative_to(self.root).as_posix()

    def listing(self, limit: int = 50_000, skip: Callable[[str], bool] | None = None) -> list[str]:
        """The files below the root outside .git (at most limit), for a folder without git;
        the walk does not enter a folder whose name skip is true for."""
        found: list[str] = []
        for folder, subfolders, names in os.walk(self.root):
            subfolders[:] = sorted(
                d for d in subfolders if d != ".git" and not (skip is not None and skip(d))
            )
            base = Path(folder).relative_to(self.root)
            for name in sorted(names):
                found.append((base / name).as_posix())
                if len(found) >= limit:
                    return found
        return found

    def back_up(self, rels: list[str], folder: Path) -> dict[str, Path]:
        """Copy the files at rels, byte for byte, under folder (at their relative paths); where
        each copy is. WriteError when the system refuses (nothing is then written)."""
        copies: dict[str, Path] = {}
        try:
            for rel in rels:
                copy = folder / rel
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(self.check(rel).read_bytes())
                copies[rel] = copy
        except OSError as exc:
            raise WriteError(
                f"cannot keep a copy of {rel} in {folder}: {exc.strerror or exc}; nothing was"
                " written"
            ) from None
        return copies

    def remove(self, rel: str) -> None:
        """Delete a file coder created, when the user chooses not to keep it."""
        with contextlib.suppress(FileNotFoundError):
            self.check(rel).unlink()

    def _locate(self, rel: str) -> tuple[str, Path]:
        """The normalized relative name of rel and its real path, or PathError."""
        if not rel or "\0" in rel:
            raise PathError(f"{rel!r} is not a file name")
        try:
            os.fsencode(rel)
        except UnicodeError:
            raise PathError(f"{rel[:200]!r} is not a name the file system can hold") from None
        try:
            return self._resolve(rel)
        except OSError as exc:  # a name too long for the system, a folder it cannot read
            raise PathError(f"{rel[:200]!r}: {exc.strerror or exc}") from None

    def _resolve(self, rel: str) -> tuple[str, Path]:
        target = Path(os.path.normpath(self.root / rel))
        try:
            parts = target.relative_to(self.root).parts
        except ValueError:
            raise PathError(f"{rel} is outside the repository {self.root}") from None
        if not parts:
            raise PathError(f"{rel} is the repository itself, not a file")
        try:
            real = target.resolve()
            real_parts = real.relative_to(self.root).parts
        except RuntimeError:  # a symlink loop
            raise PathError(f"{rel} leads through a symlink loop") from None
        except ValueError:
            raise PathError(
                f"{rel} leads through a symlink to {real}, outside the repository {self.root}"
            ) from None
        if any(part.lower() == ".git" for part in parts + real_parts):
            raise PathError(f"{rel} is inside .git/, which coder never edits")
        if real.is_dir():
            raise PathError(f"{rel} is a directory, not a file")
        if real.exists() and not real.is_file():
            raise PathError(f"{rel} is not a regular file")
        folder = next(p for p in real.parents if p.exists())
        if not folder.is_dir():
            raise PathError(f"{rel} cannot be a file: {folder.relative_to(self.root)} is a file")
        return "/".join(parts), real


def _make_folders(folder: Path, made: list[Path]) -> None:
    """Create folder and its missing parents, adding each one created to made."""
    for path in [p for p in (folder, *folder.parents) if not p.exists()][::-1]:
        path.mkdir()
        made.append(path)


def _park(target: Path) -> Path:
    """Move a file to be removed aside, beside it, so that it can be put back."""
    parked = target.with_name(f".coder-{secrets.token_hex(6)}.removed")
    os.replace(target, parked)
    return parked


def _replace(target: Path, data: bytes, new_mode: int | None = None) -> None:
    """Write data to a new file beside target, flush it to disk, then rename it over target,
    which keeps its mode (a new one gets new_mode, when given)."""
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else new_mode
    temp = target.with_name(f".coder-{secrets.token_hex(6)}.tmp")
    # Mode 0o666 lets the umask decide a new file's permissions, as any editor would.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
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
