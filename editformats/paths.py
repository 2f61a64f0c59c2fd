"""File names as models write them: cleaning decorations, resolving them against the chat files
and the repository, and refusing paths that leave the repository."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

MAX_NAME = 4096
"""The longest path a reply may name; a longer one is refused (never taken for prose)."""
MAX_PART = 255
"""The longest file or folder name, in bytes, that common file systems allow."""

_PREFIX = re.compile(r"^(?:#+|[-*+]\s|>\s*|\d{1,3}\.\s)\s*")
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories no file name should hold: controls, format marks (right-to-left,
zero-width), surrogates, private and unassigned characters, line and paragraph separators."""
_LABELS = ("filename", "file name", "filepath", "file path", "file", "path")
_QUOTES = "`'\"*_"
# Characters that do not occur in file names as people write them.
_NOT_IN_PATH = re.compile(r"[\s<>|?*\"'`{},;=!$]")
_EXTENSION = re.compile(r"[A-Za-z0-9_+-]{1,12}")
_DOTFILE = re.compile(r"\.[A-Za-z0-9_.-]+")
_EXTENSIONLESS = frozenset(
    {"Makefile", "Dockerfile", "Procfile", "Gemfile", "Rakefile", "LICENSE", "README", "Justfile"}
)


def clean(line: str) -> str:
    """Strip the markdown and prose decorations models put around a file name."""
    name = _PREFIX.sub("", line.strip())
    name = _unlabel(name)
    for _ in range(3):
        name = name.strip().strip(_QUOTES).strip()
        name = name.rstrip(":.,;")
        name = _unlabel(name)
    return name.replace("\\", "/")


def _unlabel(name: str) -> str:
    """The name without a leading label such as 'File:' or 'path ='."""
    lowered = name[:10].lower()
    for label in _LABELS:
        if lowered.startswith(label):
            rest = name[len(label) :].lstrip()
            if rest[:1] in (":", "="):
                return rest[1:].lstrip()
    return name


def looks_like_path(name: str) -> bool:
    """True when a cleaned name has the shape of a file path (an extension or a directory)."""
    if not name or _NOT_IN_PATH.search(name):
        return False
    if name.startswith(("http:", "https:", "//", "--")):
        return False
    base = name.rsplit("/", 1)[-1]
    if not base or base in {".", ".."}:
        return False
    has_ext = has_extension(base)
    dotfile = _DOTFILE.fullmatch(base) is not None
    known = base in _EXTENSIONLESS
    return has_ext or dotfile or known or ("/" in name and re.search(r"\w", base) is not None)


def looks_like_spaced_path(name: str) -> bool:
    """True when a cleaned name with single spaces inside would be a path but for them, with an
    extension ("docs/user guide.md"); prose may look so too, so such a name counts only for a
    file that exists."""
    if " " not in name or "  " in name or name != name.strip() or len(name) > MAX_NAME:
        return False
    base = name.rsplit("/", 1)[-1]
    named = has_extension(base) or base in _EXTENSIONLESS
    return named and looks_like_path(name.replace(" ", "_"))


def has_extension(base: str) -> bool:
    """True when a file name ends with an extension such as .py (a dot after a name)."""
    stem, dot, ext = base.rpartition(".")
    return bool(dot and stem and stem[-1] not in "./" and _EXTENSION.fullmatch(ext))


def normalize(name: str) -> str:
    """Turn a cleaned name into a '/'-separated relative path, without './' or duplicate slashes."""
    name = name.replace("\\", "/")
    if re.match(r"^[A-Za-z]:/", name):
        name = "/" + name
    absolute = name.startswith("/")
    path = posixpath.normpath(name)
    if path == ".":
        return ""
    return path if absolute else path.lstrip("/")


@dataclass(frozen=True)
class Tree:
    """The files of the repository, and every folder that holds one, for resolving names."""

    files: frozenset[str] = frozenset()
    folders: frozenset[str] = frozenset()


NO_TREE = Tree()
"""What is known when nothing is known of the repository's other files."""


def tree_of(files: Collection[str]) -> Tree:
    """The Tree of a repository holding files."""
    folders: set[str] = set()
    for f in files:
        parts = f.split("/")[:-1]
        for n in range(1, len(parts) + 1):
            folders.add("/".join(parts[:n]))
    return Tree(frozenset(files), frozenset(folders))


def _composed(name: str) -> str:
    return unicodedata.normalize("NFC", name)


_LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic letters drawn like Latin ones
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d",
        "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g",
        # Greek
        "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
        # digits and dashes that pass for letters and ASCII ones
        "ı": "i", "ℓ": "l", "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "−": "-",
        "․": ".", "∕": "/", "⁄": "/",
    }
)  # fmt: skip


def skeleton(name: str) -> str:
    """A name reduced to what it looks like: compatibility forms folded (fullwidth letters,
    ligatures), accents composed, letters that look like Latin ones made Latin, case folded.
    Two different names with one skeleton look the same to a person."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_LOOK_ALIKES)
    return unicodedata.normalize("NFKC", folded)


def shown(name: str) -> str:
    """A file name as the model sees it: bytes that are not UTF-8 (carried in a str as lone
    surrogates, as Python reads such names) become U+FFFD, which can be sent and written back."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def resolve(
    name: str, chat_files: Collection[str], tree: Tree = NO_TREE, creating: bool = False
) -> str:
    """The file a model's name refers to: a chat file, a file of the repository, or the
    normalized name itself when it names a new file.

    tree holds the repository's files: a name that is one of them, or whose folder exists,
    means what it says. Otherwise a bogus leading folder, a missing folder, an absolute path,
    Windows separators and a different letter case are tolerated for chat files. A name that
    creates or rewrites a whole file (creating) is taken as written, but for a chat file's path
    under an absolute path or the prompts' placeholder folder (path/to/): moving it to another
    file of a similar name would overwrite a file the model did not mean (a new conftest.py is
    not tests/conftest.py).
    """
    path = normalize(clean(name))
    if not path or path in chat_files or path in tree.files:
        return path
    same = _same_name(path, chat_files, tree)
    if same:
        return same
    best = _longest_ending(path, chat_files, folded=not creating and path.startswith("/"))
    prefix = path[: len(path) - len(best) - 1] if best else ""
    if creating:
        return best if best and _foreign(prefix, tree) else path
    folded = _unique_folded(path, chat_files)
    if folded:
        return folded
    if best and (prefix.startswith("/") or prefix not in tree.folders):
        return best
    shorter = [f for f in chat_files if f.endswith("/" + path)]
    if len(shorter) == 1:
        return shorter[0]
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    if not shorter and folder and folder not in tree.folders:
        base = path.rsplit("/", 1)[-1]
        same_base = [f for f in chat_files if f.rsplit("/", 1)[-1] == base]
        if len(same_base) == 1:
            return same_base[0]
    return path


def _same_name(path: str, chat_files: Collection[str], tree: Tree) -> str:
    """The chat or repository file path is another spelling of, or ''.

    A chat file whose name is not UTF-8 is shown to the model as shown() has it; one with
    accents may come back composed otherwise (NFD for NFC)."""
    same = [
        f for f in chat_files if f != path and (shown(f) == path or _composed(f) == _composed(path))
    ]
    if len(same) == 1:
        return same[0]
    if _composed(path) != path and _composed(path) in tree.files:
        return _composed(path)
    return ""


def _longest_ending(path: str, chat_files: Collection[str], folded: bool = False) -> str:
    """The longest chat file path ends with after a '/', or ''. With folded, letter case is
    ignored when nothing matches as written (a Windows path, whose file system ignores it);
    two files of that length then match, and neither is taken."""
    longer = [f for f in chat_files if path.endswith("/" + f)]
    if not longer and folded:
        lowered = path.lower()
        longer = [f for f in chat_files if lowered.endswith("/" + f.lower())]
    if not longer:
        return ""
    most = max(len(f) for f in longer)
    longest = [f for f in longer if len(f) == most]
    return longest[0] if len(longest) == 1 else ""


def _unique_folded(path: str, chat_files: Collection[str]) -> str:
    """The one chat file path is equal to but for letter case, or '' (none, or two)."""
    lowered = path.lower()
    same = [f for f in chat_files if f.lower() == lowered]
    return same[0] if len(same) == 1 else ""


PLACEHOLDER = "path/to"
"""The folders the edit formats' examples put before a file name; a model that copies them
means the file without them (unless the repository has such a folder)."""


def _foreign(prefix: str, tree: Tree) -> bool:
    """True when folders before a chat file's path cannot be the repository's own: an absolute
    path (from the model's machine), the home folder, or the examples' placeholder."""
    if prefix.startswith(("/", "~")):
        return True
    return is_placeholder(prefix) and prefix not in tree.folders


def is_placeholder(folder: str) -> bool:
    """True when a folder is, or lies under, the examples' placeholder path/to."""
    lowered = folder.lower().lstrip("/")
    return lowered == PLACEHOLDER or lowered.startswith(PLACEHOLDER + "/")


def refusal(path: str) -> str | None:
    """Why a repository-relative path may not be written, or None when it may."""
    if not path:
        return "the file name is empty"
    if any(unicodedata.category(c) in _INVISIBLE for c in path):
        return f"{path!r} contains control, invisible or invalid characters"
    if len(path) > MAX_NAME:
        return f"the file name of {len(path):,} characters is too long"
    if path.startswith("~"):
        return f"{path} starts with ~, a home folder outside the repository"
    if path.startswith("/"):
        return f"{path} is an absolute path outside the repository"
    parts = path.split("/")
    if ".." in parts:
        return f"{path} leads outside the repository"
    if any(p.lower() == ".git" for p in parts):
        return f"{path} is inside .git/, which is never edited"
    long_part = next((p for p in parts if len(p.encode("utf-8", "surrogatepass")) > MAX_PART), "")
    if long_part:
        return f"the name {long_part[:40]}... is longer than {MAX_PART} bytes, the system's limit"
    return None
