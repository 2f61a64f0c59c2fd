"""Whether two versions of some files are the same change, in tiers that keep meaning: equal
text, equal Python syntax trees, equal tokens where layout means nothing; what the judge cannot
prove equal is "different". Shared by the candidates' grouping and the round-trip check."""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.token import Comment, Text, Whitespace
from pygments.util import ClassNotFound

EXACT, SYNTAX, TOKENS, DIFFERENT = "exact", "ast", "tokens", "different"
EQUIVALENT = (EXACT, SYNTAX, TOKENS)
"""The tiers at which two versions count as the same change."""
LINES_MATTER = frozenset(
    {
        "C",
        "C++",
        "Objective-C",
        "JavaScript",
        "TypeScript",
        "Go",
        "Kotlin",
        "Swift",
        "Scala",
        "PHP",
        "Lua",
        "SQL",
    }
)
"""Languages (pygments' lexer names) where spacing and indentation between tokens mean nothing
but a line break may (a statement ended by a line break, a preprocessor line)."""
LINES_FREE = frozenset({"C#", "Java", "Rust", "JSON", "Dart", "Zig"})
"""Languages where line breaks between tokens mean nothing either. Neither set holds shells
(`a=b` and `a = b` differ), Ruby and Perl (`foo -1` and `foo - 1` differ), CSS (`.a.b` and
`.a .b` differ), JSX (spaces in its text show), markup, YAML, Makefiles or Haskell: those are
compared as text."""
BREAK = ("break", "\n")
SPACE = ("space", " ")
OPERATORS = frozenset("+-*/%=<>!&|^~?:.#@")
"""Characters that may join with a neighbour into one operator."""
MAX_TOKENIZED = 500_000
"""Characters beyond which a file is compared by its text only."""


def tier(first: Mapping[str, str], second: Mapping[str, str]) -> str:
    """The strictest tier at which the two sets of files (path -> text) are equal."""
    if first.keys() != second.keys():
        return DIFFERENT
    tiers = [file_tier(path, first[path], second[path]) for path in sorted(first)]
    if DIFFERENT in tiers:
        return DIFFERENT
    # The set is only as close as its loosest file.
    return max(tiers, key=EQUIVALENT.index) if tiers else EXACT


def file_tier(path: str, first: str, second: str) -> str:
    """The strictest tier at which two versions of one file are equal."""
    if first == second:
        return EXACT
    if path.endswith((".py", ".pyi")):
        one, two = _syntax(first), _syntax(second)
        same = one is not None and one == two and _header(first) == _header(second)
        return SYNTAX if same else DIFFERENT
    if _language(path) and max(len(first), len(second)) <= MAX_TOKENIZED:
        return TOKENS if _tokens(path, first) == _tokens(path, second) else DIFFERENT
    return DIFFERENT


def key(path: str, text: str) -> tuple:
    """A value equal for two versions of one file exactly when file_tier finds them equivalent
    (for grouping many versions at once)."""
    if path.endswith((".py", ".pyi")):
        tree = _syntax(text)
        return (SYNTAX, _header(text), tree) if tree is not None else (EXACT, text)
    if _language(path) and len(text) <= MAX_TOKENIZED:
        return (TOKENS, tuple(_tokens(path, text)))
    return (EXACT, text)


def _header(text: str) -> tuple[str, ...]:
    """A Python file's first two lines when they are comments: the #! line and the coding
    declaration, which change how the file is run or read though not its syntax tree."""
    return tuple(line for line in text.splitlines()[:2] if line.lstrip().startswith("#"))


def _syntax(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@functools.lru_cache(maxsize=256)
def _lexer(suffix: str) -> Lexer | None:
    """The lexer for files with this suffix when their layout means nothing, else None."""
    try:
        lexer = get_lexer_for_filename(f"file{suffix}", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return lexer if lexer.name in LINES_MATTER | LINES_FREE else None


def _language(path: str) -> str | None:
    """The pygments name of the file's language when its layout means nothing, else None."""
    name = path.rsplit("/", 1)[-1]
    lexer = _lexer(name[name.rfind(".") :]) if "." in name else None
    return lexer.name if lexer else None


def _tokens(path: str, text: str) -> list[tuple[str, str]]:
    """The tokens of text with spacing dropped, except a space between two tokens that could
    join without it (`- -` is not `--`) and, where line breaks matter, each run of them.
    Comments are kept as they are: some carry meaning (build tags, pragmas, directives)."""
    name = path.rsplit("/", 1)[-1]
    lexer = _lexer(name[name.rfind(".") :])
    lines = lexer.name in LINES_MATTER
    found: list[tuple[str, str]] = []
    spaced = False
    for kind, value in lexer.get_tokens(text):
        if kind in Whitespace or (kind in Text and not value.strip()):
            if lines and "\n" in value and found and found[-1] != BREAK:
                found.append(BREAK)
            spaced = True
            continue
        if kind in Comment:
            # A comment's own trailing line break is the line's end, kept apart from its text.
            stripped = value.rstrip()
            found.append((str(kind), stripped))
            if lines and "\n" in value[len(stripped) :] and found[-1] != BREAK:
                found.append(BREAK)
            spaced = False
            continue
        if spaced and found and found[-1] != BREAK and _could_join(found[-1][1], value):
            found.append(SPACE)
        spaced = False
        found.append((str(kind), value))
    while found and found[-1] == BREAK:
        found.pop()
    return found


def _could_join(before: str, after: str) -> bool:
    """Whether two tokens could read as one without the space between them."""
    last, first = before[-1:], after[:1]
    word = lambda c: c.isalnum() or c in "_$"  # noqa: E731
    return (word(last) and word(first)) or (last in OPERATORS and first in OPERATORS)
