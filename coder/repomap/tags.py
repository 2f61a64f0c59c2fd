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
MOST_DEPTH = 10_000
"""A file whose syntax tree is deeper is left out: past a depth of 65,535 tree-sitter's
queries slow down without bound (f(f(f(… 40,000 deep took 4 s), and no code written by hand
nests anywhere near this deep."""
MOST_ERROR_WORK = 10**9
"""A file is left out when the squares of the sizes of its syntax errors (the children of
each ERROR node) add up to more than this: a query takes about that square over one
(100,000 unclosed brackets, one ERROR node: 5 s; a megabyte of them would take minutes)."""


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
    if _too_slow(tree):
        return NO_TAGS
    captures = QueryCursor(query).captures(tree.root_node)
    names = captures.get("def", ())
    rows = {node.start_point[0] for node in names}
    lines = _without_strings(text.split("\n"), rows, captures.get("str", ()))
    defined = _definitions(names, lines)
    used = Counter(
        _name(node)
        for node in {n.start_byte: n for n in captures.get("ref", ())}.values()
        if node.start_byte not in defined
    )
    definitions = tuple(sorted(defined.values(), key=lambda d: (d.line, d.name)))
    return FileTags(definitions, tuple(sorted(used.items())))


def _too_slow(tree) -> bool:
    """True for a tree that the queries would take too long over: too deep, or with too
    large syntax errors. Walked only when it has enough nodes to be either."""
    root = tree.root_node
    if root.descendant_count <= MOST_DEPTH:  # neither deep enough nor errors large enough
        return False
    errors = root.has_error
    cursor = tree.walk()
    depth = work = 0
    while True:
        if errors and (node := cursor.node).is_error:
            work += node.child_count**2
            if work > MOST_ERROR_WORK:
                return True
        if cursor.goto_first_child():
            depth += 1
            if depth > MOST_DEPTH:
                return True
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1


def _definitions(names, lines: list[str]) -> dict[int, Definition]:
    """The definition of each name node, by its start byte, with the definitions it lies in:
    those whose node (the name's parent) strictly holds its node."""
    # Names sharing a parent (typedef int A, B;) tie on its span: their own start decides,
    # and the index after it, as nodes cannot be compared (the same node may come twice).
    spans = sorted(
        ((n.parent or n).start_byte, -(n.parent or n).end_byte, n.start_byte, i, n)
        for i, n in enumerate(names)
    )
    found: dict[int, Definition] = {}
    around: list[tuple[int, int, Definition]] = []  # the definitions holding the current one
    for start, negative_end, _, _, node in spans:
        end = -negative_end
        while around and (around[-1][1] < end or around[-1][:2] == (start, end)):
            around.pop()
        row = node.start_point[0]
        line = _shown(lines[row]) if row < len(lines) else ""
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


_DEFINE_WITH_STRING = re.compile(r"^(\s*#\s*define\s+\w+(?:\([^)]*\))?\s+).*['\"]")
"""A macro whose value holds a string: its value is not parsed, so it has no string nodes."""


def _without_strings(lines: list[str], rows: set[int], strings) -> list[str]:
    """The lines, those of rows with each string literal, regular expression and comment (the
    nodes strings) as …, a macro's value that holds a string and numbers long enough to be
    keys as … too: a key or a password written in the code is not sent to the model. A
    string's first and last line are changed, not the lines between (no definition lies
    inside a string)."""
    spans: dict[int, list[tuple[int, int | None]]] = {}
    for node in strings:
        (first, start), (last, end) = node.start_point, node.end_point
        if first in rows:
            spans.setdefault(first, []).append((start, end if last == first else None))
        if last != first and last in rows:
            spans.setdefault(last, []).append((0, end))
    lines = list(lines)
    for row in rows & set(range(len(lines))):
        line = _masked(lines[row], spans[row]) if row in spans else lines[row]
        found = _DEFINE_WITH_STRING.match(line) if "define" in line else None
        line = f"{found.group(1)}…" if found else line
        lines[row] = _LONG_NUMBER.sub("…", line)
    return lines


_LONG_NUMBER = re.compile(r"\b(?:0[xX][0-9A-Fa-f_]{16,}|[0-9][0-9_]{15,}|[0-9A-Fa-f]{32,})\b")
"""Numbers too long to be anything but a key, a token or an account number as written in
code (a 64-bit hex constant, a 16-digit number, a bare hash): shown as … too."""


def _masked(line: str, spans: list[tuple[int, int | None]]) -> str:
    """line with each span of bytes (start, end; None: the end of the line) as …; a span
    within one already masked is passed over."""
    data = line.encode("utf-8", "surrogateescape")
    out, at = [], 0
    for start, end in sorted(spans, key=lambda span: span[0]):
        if start < at:
            continue
        out += [data[at:start], "…".encode()]
        at = len(data) if end is None else max(end, start)
    out.append(data[at:])
    return b"".join(out).decode("utf-8", "surrogateescape")


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
