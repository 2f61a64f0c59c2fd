"""Whether two versions of some files are the same change, in tiers that keep meaning: equal
text; equal Python syntax trees (line numbers aside); equal code but for indentation and
runs of spaces, in a few languages. What the judge cannot prove equal is "different"."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Mapping

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Error, Text, Whitespace

EXACT, SYNTAX, TOKENS, DIFFERENT = "exact", "ast", "tokens", "different"
EQUIVALENT = (EXACT, SYNTAX, TOKENS)
"""The tiers at which two versions count as the same change."""
LEXERS = {
    ".c": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".h": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".java": "java",
    ".cs": "csharp",
    ".go": "go",
    ".rs": "rust",
    ".ts": "typescript",
    ".json": "json",
}
"""The suffixes whose files may be equal as tokens, and their pygments lexers: languages where
indentation and the width of spacing mean nothing. Not Python (its own tier), shells, Ruby,
Perl, CSS, JavaScript (JSX text shows its spaces), PHP and Swift (heredocs and raw strings the
lexer cannot read), Scala (blocks by indentation), markup, YAML or Makefiles."""
MAX_TOKENIZED = 20_000
"""Characters beyond which a file is compared by its text only; also MAX_LINES, MAX_LINE and
MAX_RUN, since pygments' lexers can take seconds on long repetitive input."""
MAX_LINES = 600
MAX_LINE = 400
MAX_RUN = re.compile(r"(.)\1{60}|(..)\2{30}", re.DOTALL)
MAX_PARSED = 1_000_000
"""Characters beyond which a Python file is compared by its text only."""
CODING = re.compile(r"^[ \t\f]*#.*?coding[:=]")
"""PEP 263's coding declaration."""


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
    one, two = _tokens(path, first), _tokens(path, second)
    return TOKENS if one is not None and one == two else DIFFERENT


def key(path: str, text: str) -> tuple:
    """A value equal for two versions of one file exactly when file_tier finds them equivalent
    (for grouping many versions at once)."""
    if path.endswith((".py", ".pyi")):
        tree = _syntax(text)
        return (SYNTAX, _header(text), tree) if tree is not None else (EXACT, text)
    tokens = _tokens(path, text)
    return (TOKENS, tuple(tokens)) if tokens is not None else (EXACT, text)


def _header(text: str) -> tuple[str, ...]:
    """What of a Python file's first two lines changes how it is run or read though not its
    syntax tree: a #! line, a coding declaration (lines split as Python splits them)."""
    lines = re.split(r"\r\n|\r|\n", text, maxsplit=2)[:2]
    return tuple(
        line
        for n, line in enumerate(lines)
        if (n == 0 and line.startswith("#!")) or CODING.match(line)
    )


def _syntax(text: str) -> str | None:
    if len(text) > MAX_PARSED:
        return None
    try:
        return ast.dump(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@functools.lru_cache(maxsize=64)
def _lexer(name: str) -> Lexer:
    return get_lexer_by_name(name, stripnl=False, ensurenl=False)


def _tokens(path: str, text: str) -> list[tuple[str, str]] | None:
    """The tokens of text with indentation, trailing spaces and the width of runs of spaces
    dropped: every line break is kept (line numbers stay), a space between two tokens on a
    line stays a space, and comments stay as they are (some carry meaning). None where the
    file is not in LEXERS, is too large or repetitive to lex quickly, or does not lex
    cleanly (an error token, a C++ raw string)."""
    name = path.rsplit("/", 1)[-1]
    language = LEXERS.get(name[name.rfind(".") :].lower()) if "." in name else None
    if language is None or not _lexable(text):
        return None
    if language in ("c", "cpp") and 'R"' in text:
        return None
    found: list[tuple[str, str]] = []
    pending = ""
    for kind, value in _lexer(language).get_tokens(text):
        if kind in Error:
            return None
        if kind in Whitespace or (kind in Text and not value.strip()):
            pending += value
            continue
        if kind in Comment and value.rstrip() != value:
            # A comment that ends a line: its line break goes with the spacing after it.
            pending = _gap(pending, found)
            found.append((str(kind), value.rstrip()))
            pending = value[len(value.rstrip()) :]
            continue
        pending = _gap(pending, found)
        found.append((str(kind), value))
    _gap(pending, found)
    return found


def _gap(spacing: str, found: list[tuple[str, str]]) -> str:
    """Record the spacing between two tokens: its line breaks, one each, or one space when it
    stays on the line (nothing at the very start). Returns "" for the next gap."""
    breaks = spacing.count("\n")
    if breaks:
        found.append(("breaks", str(breaks)))
    elif spacing and found:
        found.append(("space", " "))
    return ""


def _lexable(text: str) -> bool:
    """Small and plain enough for pygments to lex in well under a second."""
    if len(text) > MAX_TOKENIZED or text.count("\n") > MAX_LINES:
        return False
    if any(len(line) > MAX_LINE for line in text.splitlines()):
        return False
    return MAX_RUN.search(text) is None
