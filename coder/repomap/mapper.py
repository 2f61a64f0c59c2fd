"""The map of one repository, kept between requests: rebuilt only when the chat's files, the
request's words or the files on disk change, re-parsing only the files that changed."""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from coder.errors import CoderError
from coder.repomap import parsing
from coder.repomap.cache import CACHE_NAME, Entry, Stamp, TagsCache
from coder.repomap.ranking import Focus, rank, words_of
from coder.repomap.render import fit
from coder.repomap.tags import FileTags, supported
from coder.repomap.tokens import Tokenizer, get_tokenizer

if TYPE_CHECKING:
    from coder.edits.workspace import Workspace
    from coder.seams.repo import Repo

MAX_BYTES = 1_000_000
"""Larger files are left out of the map (generated code, data, bundles)."""
VENDORED = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "vendor"})
"""Folders whose files the map leaves out, as it does hidden ones, unless git tracks them: in
a git repository .gitignore usually names them, but a new virtualenv may not be named yet;
without git, the walk does not enter them."""
MOST_LISTED = 50_000
"""The most files listed in a folder that is not a git repository."""


class RepoMap:
    """The ranked map of the files list_files names under root, fitted to budget tokens."""

    def __init__(
        self,
        root: Path,
        list_files: Callable[[], Iterable[str]],
        read: Callable[[str], str],
        budget: int,
        tokenizer: Tokenizer | None = None,
        on_status: Callable[[str], None] | None = None,
    ):
        self.root = root
        self.budget = budget
        self.tokenizer = tokenizer or get_tokenizer()
        self.parsed = 0
        """Files parsed by the last build (0 when every file's tags were cached)."""
        self.ranked = 0
        """Entries the last map was fitted from: 0 when no file outside the chat defines
        anything, so that an empty map tells that apart from a budget too small."""
        self._list_files = list_files
        self._read = read
        self._on_status = on_status or (lambda text: None)
        self._cache = TagsCache(root / CACHE_NAME)
        self._tags: dict[str, Entry] = {}
        self._loaded = False
        """Whether the cache on disk has been read into _tags."""
        self._last: tuple[object, str] | None = None
        """The key of the last map built, and the map."""
        self._unread: set[str] = set()
        """Files that could not be read at the last build: tried again at the next one, as
        what made them unreadable (a chmod) need not change their stamps."""

    def text(self, chat_files: Iterable[str], request: str = "") -> str:
        """The map for a request about request with chat_files sent whole ("" when no other
        file defines anything); built again only when something it depends on changed."""
        stamps = self._stamps()
        focus = Focus(frozenset(chat_files), words_of(request))
        key = (focus, stamps)
        if self._last is not None and self._last[0] == key:
            self.parsed = 0
            return self._last[1]
        if all(path in focus.chat_files for path in stamps):
            self.parsed, self.ranked, text = 0, 0, ""
        else:
            entries = rank(self._update(stamps), focus, self.budget)
            text = fit(entries, self.budget, self.tokenizer.count)
            self.ranked = len(entries)
        self._last = None if self._unread else (key, text)
        return text

    def refresh(self) -> None:
        """Forget every file's tags and the last map: the next map reads every file again."""
        self._tags.clear()
        self._loaded = True
        self._last = None

    def _stamps(self) -> dict[str, Stamp]:
        """The files the map may show, with their stamps: regular files (not symlinks) of a
        language with definitions, under MAX_BYTES, that are not coder's own, whose names
        the map can show."""
        stamps = {}
        root = os.path.join(self.root, "")  # joined as strings: pathlib's / took 3/4 of this
        for path in self._list_files():
            if not supported(path) or posixpath.basename(path).startswith(".coder."):
                continue
            if not _showable(path):
                continue
            try:
                info = os.lstat(root + path)
            except (OSError, ValueError):  # deleted, or a name the system cannot take
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_BYTES:
                stamps[path] = (info.st_mtime_ns, info.st_size)
        return stamps

    def _update(self, stamps: dict[str, Stamp]) -> dict[str, FileTags]:
        """Every readable file's tags, parsing those whose stamp changed and saving them in the
        cache; a file that cannot be read is left out, and not remembered."""
        if not self._loaded:
            self._tags = self._cache.load()
            self._loaded = True
        stale = [p for p, s in stamps.items() if p not in self._tags or self._tags[p][0] != s]
        if len([p for p in stale if p not in self._unread]) >= parsing.MANY:
            self._on_status(f"Reading the symbols of {len(stale):,} files for the repository map.")
        texts = {p: self._text(p) for p in stale}
        self._unread = {p for p, text in texts.items() if text is None}
        fresh = parsing.extract_all({p: t for p, t in texts.items() if t is not None})
        new = {p: (stamps[p], tags) for p, tags in fresh.items()}
        gone = [p for p in self._tags if p not in stamps or p in self._unread]
        for path in gone:
            del self._tags[path]
        self._tags.update(new)
        if new or gone:
            self._cache.save(new, gone)
        self.parsed = len(new)
        return {p: self._tags[p][1] for p in stamps if p in self._tags}

    def _text(self, path: str) -> str | None:
        """A file's text; "" for one that is not text, None for one that cannot be read."""
        try:
            text = self._read(path)
        except (OSError, CoderError):  # unreadable, or a path coder may not read (PathError)
            return None
        return "" if "\0" in text else text


def get_repo_map(
    ws: Workspace,
    repo: Repo | None,
    budget: int,
    on_status: Callable[[str], None] | None = None,
) -> RepoMap:
    """The map of a workspace: its repository's files that .gitignore does not name (tracked,
    or untracked outside hidden and vendored folders), or, without git, the files under its
    root outside hidden and vendored folders."""

    def listing() -> list[str]:
        if repo is None:
            return ws.listing(MOST_LISTED, skip=_vendored)
        # A file committed before .gitignore named it (secrets.py, say) is still tracked; the
        # user has said that it is not part of the project.
        ignored = repo.ignored_tracked()
        # An untracked virtualenv that .gitignore does not name yet (python -m venv writes no
        # .gitignore before 3.13) filled the map with pip's and setuptools' internals.
        return [
            p
            for p, tracked in repo.files_tracked()
            if p not in ignored and (tracked or not _in_vendored(p))
        ]

    return RepoMap(ws.root, listing, lambda path: ws.read(path).text, budget, on_status=on_status)


def _showable(path: str) -> bool:
    """False for a name that is not UTF-8 (git and the file system hand its bytes on as
    surrogates, which neither the cache nor a request can carry) or holds a control character
    (a newline would break the map's lines); the model could not name such a file anyway."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return path.isprintable()


def _vendored(folder: str) -> bool:
    """True for a folder's name that the map leaves out, unless git tracks its files."""
    return folder.startswith(".") or folder in VENDORED


def _in_vendored(path: str) -> bool:
    return any(_vendored(folder) for folder in path.split("/")[:-1])
