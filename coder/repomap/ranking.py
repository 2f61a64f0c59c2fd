"""Which definitions matter for the next request: PageRank over the files' references.

The graph has a node per file and an edge A -> B for each name A uses that B defines, weighted
by how often A uses it and how telling the name is. The walk restarts at the chat's files and
at the files the request names or whose definitions it names, so that rank flows from what the
chat is about to the code that code uses. A definition's score is the rank that reaches its
file along the edges of its name.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from coder.repomap.pagerank import pagerank
from coder.repomap.tags import Definition, FileTags

MENTIONED = 10.0
"""How much more a name counts when the request says it."""
PRIVATE = 0.1
"""How much a private name (`_helper`, not `__init__`) counts, as an edge and as a definition:
other files are not meant to use it."""
GENERIC = 0.3
"""How much a plain lowercase word counts as a name (`get`, `items`, `path`): `dict.items()`
uses no function called items, whereas `compute_total` or `Invoice` mean one thing."""
COMMON = 0.1
"""How much a name counts that many files define (such as `run` or `__init__`)."""
COMMON_FILES = 5
"""More definers than this make a name common."""
FILE_SHARE = 0.5
"""Besides what reaches it along its name's edges, each definition of a file gets an equal
part of this much of the file's rank: a file the request names, or one much used, shows its
definitions even where the chat's files do not use them."""


@dataclass(frozen=True)
class Focus:
    """What the next request is about."""

    chat_files: frozenset[str] = frozenset()
    """Files sent whole with the request: the walk restarts there; they are not ranked."""
    words: frozenset[str] = frozenset()
    """The words of the request: identifiers, file names and paths."""


@dataclass(frozen=True)
class Ranked:
    """A definition, or a file that defines nothing, and how much it matters."""

    path: str
    definition: Definition | None
    score: float


def words_of(text: str) -> frozenset[str]:
    """The words of a request that may name code: identifiers, and file names or paths."""
    names = {w.strip(".,;:!?'\"`()[]{}<>") for w in re.findall(r"[\w./-]+", text)}
    return frozenset(filter(None, names | set(re.findall(r"[A-Za-z_]\w*", text))))


def rank(tags: Mapping[str, FileTags], focus: Focus, limit: int) -> list[Ranked]:
    """The limit most relevant definitions of the files outside the chat, best first; then,
    within the limit, the files that define nothing but use names, by their rank."""
    import numpy as np

    graph = _Graph(tags, focus)
    named = graph.named()
    restarts = graph.restarts(named)
    ranks = pagerank(len(graph.paths), graph.src, graph.dst, graph.weight, restarts)
    scores = graph.scores(ranks, named)
    outside = ~np.isin(graph.def_file, [graph.index[p] for p in focus.chat_files if p in tags])
    alphabetical = np.argsort(np.argsort(graph.paths))
    chosen = np.flatnonzero(outside)
    lines = np.array([d.line for d in graph.definitions], dtype=np.int64)
    order = np.lexsort((lines[chosen], alphabetical[graph.def_file[chosen]], -scores[chosen]))
    ranked = [
        Ranked(graph.paths[graph.def_file[i]], graph.definitions[i], float(scores[i]))
        for i in chosen[order[:limit]]
    ]
    # Scripts and tests that define nothing but use the code; not empty or unreadable files.
    empty = [i for i, p in enumerate(graph.paths) if tags[p].references and not tags[p].definitions]
    empty = [i for i in empty if graph.paths[i] not in focus.chat_files]
    empty.sort(key=lambda i: (-ranks[i], graph.paths[i]))
    ranked += [Ranked(graph.paths[i], None, 0.0) for i in empty[: limit - len(ranked)]]
    return ranked


class _Graph:
    """The files as numbered nodes, their definitions, and the weighted edges of their names."""

    def __init__(self, tags: Mapping[str, FileTags], focus: Focus):
        import numpy as np

        self.focus = focus
        self.paths = list(tags)
        self.index = {p: i for i, p in enumerate(self.paths)}
        self.names: dict[str, int] = {}
        self.definers: list[list[int]] = []
        self.definitions: list[Definition] = []
        files, names = [], []
        for i, path in enumerate(self.paths):
            for d in tags[path].definitions:
                k = self._name(d.name)
                if not self.definers[k] or self.definers[k][-1] != i:
                    self.definers[k].append(i)
                self.definitions.append(d)
                files.append(i)
                names.append(k)
        self.def_file = np.array(files, dtype=np.int64)
        self.def_name = np.array(names, dtype=np.int64)
        self.src: list[int] = []
        self.dst: list[int] = []
        self.weight: list[float] = []
        self.edge_name: list[int] = []
        for i, path in enumerate(self.paths):
            self._add_references(i, tags[path].references)

    def _name(self, name: str) -> int:
        k = self.names.setdefault(name, len(self.names))
        if k == len(self.definers):
            self.definers.append([])
        return k

    def _add_references(self, source: int, references) -> None:
        """An edge from source to each other definer of each name it uses."""
        for name, count in references:
            k = self.names.get(name)
            if k is None:
                continue
            targets = self.definers[k]
            others = len(targets) - (source in targets)
            if others == 0:
                continue
            weight = math.sqrt(count) / others * self._telling(name, len(targets))
            for target in targets:
                if target != source:
                    self.src.append(source)
                    self.dst.append(target)
                    self.weight.append(weight)
                    self.edge_name.append(k)

    def _telling(self, name: str, definers: int) -> float:
        """How much a name says about what links two files."""
        factor = MENTIONED if name in self.focus.words else 1.0
        if _private(name):
            factor *= PRIVATE
        if name.isalpha() and name.islower():
            factor *= GENERIC
        if definers > COMMON_FILES:
            factor *= COMMON
        return factor

    def named(self) -> dict[int, float]:
        """The files the request names, each with its part of the words naming it: a path
        names one file; a file name, or a stem of three letters or more, names every file it
        fits, sharing one part among them."""
        words = self.focus.words
        found: dict[int, float] = defaultdict(float)
        fits: dict[str, list[int]] = defaultdict(list)
        for i, path in enumerate(self.paths):
            base = posixpath.basename(path)
            stem = posixpath.splitext(base)[0]
            if path in words:
                found[i] += 1.0
            elif base in words:
                fits[base].append(i)
            elif len(stem) >= 3 and stem in words:
                fits[stem].append(i)
        for files in fits.values():
            for i in files:
                found[i] += 1.0 / len(files)
        return found

    def restarts(self, named: dict[int, float]) -> list[float]:
        """Where the walk restarts: each chat file, the files the request names, and, half as
        much and shared among their definers, the files defining a name the request says."""
        restart = [0.0] * len(self.paths)
        for path in self.focus.chat_files:
            if path in self.index:
                restart[self.index[path]] += 1.0
        for i, part in named.items():
            restart[i] += part
        for word in self.focus.words:
            k = self.names.get(word)
            for i in self.definers[k] if k is not None else ():
                restart[i] += 0.5 / len(self.definers[k])
        return restart

    def scores(self, ranks, named: dict[int, float]):
        """Each definition's score: the rank its file's users send along its name's edges,
        plus its part of its file's own rank; more for a name the request says, and in a file
        it names (but for a word naming many files); less for a private name."""
        import numpy as np

        src = np.array(self.src, dtype=np.int64)
        weight = np.array(self.weight, dtype=float)
        leaving = np.bincount(src, weights=weight, minlength=len(self.paths))
        sent = ranks[src] * weight / leaving[src]
        # Each (file, name) pair as one number, so that numpy can sum what each one receives.
        names = max(len(self.names), 1)
        pairs = np.array(self.dst, dtype=np.int64) * names + np.array(self.edge_name, dtype=int)
        unique, which = np.unique(pairs, return_inverse=True)
        received = np.bincount(which, weights=sent, minlength=len(unique))
        wanted = self.def_file * names + self.def_name
        at = np.searchsorted(unique, wanted)
        found = at < len(unique)
        found[found] = unique[at[found]] == wanted[found]
        defined = np.bincount(self.def_file, minlength=len(self.paths))
        score = FILE_SHARE * ranks[self.def_file] / defined[self.def_file]
        score[found] += received[at[found]]
        said = [self.names[w] for w in self.focus.words if w in self.names]
        score[np.isin(self.def_name, said)] *= MENTIONED
        private = [k for name, k in self.names.items() if _private(name)]
        score[np.isin(self.def_name, private)] *= PRIVATE
        clear = [i for i, part in named.items() if part >= 1 / COMMON_FILES]
        score[np.isin(self.def_file, clear)] *= MENTIONED
        return score


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
