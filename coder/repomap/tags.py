"""The definitions and references of one source file, found by the queries of its language."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from coder import languages
from coder.repomap.queries import QUERIES

LINE_CHARS = 160
"""A definition's line is kept up to this many characters."""


@dataclass(frozen=True)
class Definition:
    """A name a file defines, and the line that defines it."""

    name: str
    line: int
    """0-based."""
    text: str
    """The line as written (its indentation kept), cut at LINE_CHARS."""
    context: tuple[tuple[int, str], ...] = ()
    """The lines (number, text) of the definitions it lies in (its class, say), outermost
    first."""


@dataclass(frozen=True)
class FileTags:
    """What one file defines and which names it uses."""

    definitions: tuple[Definition, ...] = ()
    references: tuple[tuple[str, int], ...] = ()
    """Each name the file uses, with how often, by name."""


NO_TAGS = FileTags()


def supported(path: str) -> bool:
    """True when coder knows how to find the definitions in path's language."""
    return languages.grammar_of(path) in QUERIES


def extract(path: str, text: str) -> FileTags:
    """The tags of a file's text; NO_TAGS when its language has no query. Syntax errors are
    tolerated: tree-sitter still parses the rest of the file."""
    grammar = languages.grammar_of(path)
    query = _query(grammar) if grammar else None
    parser = languages.parser_for(path)
    if query is None or parser is None:
        return NO_TAGS
    from tree_sitter import QueryCursor

    # Undecodable bytes were carried through as surrogates: they go back as the bytes they were.
    tree = parser.parse(text.encode("utf-8", "surrogateescape"))
    captures = QueryCursor(query).captures(tree.root_node)
    defined = _definitions(captures.get("def", ()), text.split("\n"))
    used = Counter(
        _name(node)
        for node in {n.start_byte: n for n in captures.get("ref", ())}.values()
        if node.start_byte not in defined
    )
    definitions = tuple(sorted(defined.values(), key=lambda d: (d.line, d.name)))
    return FileTags(definitions, tuple(sorted(used.items())))


def _definitions(names, lines: list[str]) -> dict[int, Definition]:
    """The definition of each name node, by its start byte, with the definitions it lies in:
    those whose node (the name's parent) strictly holds its node."""
    spans = sorted(((n.parent or n).start_byte, -(n.parent or n).end_byte, n) for n in names)
    found: dict[int, Definition] = {}
    around: list[tuple[int, int, Definition]] = []  # the definitions holding the current one
    for start, negative_end, node in spans:
        end = -negative_end
        while around and (around[-1][1] < end or around[-1][:2] == (start, end)):
            around.pop()
        row = node.start_point[0]
        line = _without_strings(_shown(lines[row]), _name(node)) if row < len(lines) else ""
        context = tuple((d.line, d.text) for _, _, d in around if d.line != row)
        found[node.start_byte] = Definition(_name(node), row, line, context)
        around.append((start, end, found[node.start_byte]))
    return found


def dumps(tags: FileTags) -> str:
    """FileTags as JSON text, for the cache and the worker processes."""
    defs = [[d.name, d.line, d.text, d.context] for d in tags.definitions]
    return json.dumps([defs, tags.references], ensure_ascii=False, separators=(",", ":"))


def loads(data: str) -> FileTags:
    """FileTags from dumps' text; ValueError, TypeError or KeyError when it is not that."""
    defs, refs = json.loads(data)
    return FileTags(
        tuple(
            Definition(str(n), int(line), str(t), tuple((int(i), str(c)) for i, c in context))
            for n, line, t, context in defs
        ),
        tuple((str(n), int(c)) for n, c in refs),
    )


_STRING_VALUE = re.compile(
    r"^([^=(]*?\s*=\s*)[rbfuRBFU]{0,2}['\"`]"  # NAME = "...", NAME: str = "...", const NAME = "..."
    r"|^(\s*#\s*define\s+\w+\s+)['\"]"  # #define NAME "..."
)


def _without_strings(line: str, name: str) -> str:
    """A constant's line without the string it holds (`KEY = …`): a key or a password written
    in the code is not sent to the model in the map."""
    found = _STRING_VALUE.match(line)
    kept = found and (found.group(1) or found.group(2))
    return f"{kept}…" if kept and name in kept else line


def _shown(line: str) -> str:
    """A line as the map shows it: cut, without trailing space, and with the bytes that were
    not UTF-8 (carried as surrogates) as U+FFFD, which any encoder takes."""
    return line[:LINE_CHARS].rstrip().encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _name(node) -> str:
    return node.text.decode("utf-8", "replace")


@cache
def _query(grammar: str):
    """The compiled query of a grammar, or None without one (or without the grammar)."""
    source = QUERIES.get(grammar)
    language = languages.language(grammar) if source else None
    if language is None:
        return None
    from tree_sitter import Query

    return Query(language, source)
