"""Which tree-sitter grammar reads a file, by its suffix (from tree-sitter-language-pack, whose
grammars ship compiled in its wheel: nothing is fetched at run time)."""

from __future__ import annotations

import posixpath
from functools import cache

GRAMMARS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".lua": "lua",
    ".sh": "bash",
    ".json": "json",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
}
"""File suffix -> grammar name."""


def grammar_of(path: str) -> str | None:
    """The grammar name for path, or None when no grammar reads it."""
    return GRAMMARS.get(posixpath.splitext(path)[1].lower())


def parser_for(path: str):
    """A tree-sitter parser for path's language, or None (no grammar for it, or the grammar
    package is not installed)."""
    name = grammar_of(path)
    return _parser(name) if name else None


@cache
def language(name: str):
    """The tree-sitter Language of a grammar name, or None when it cannot be loaded."""
    try:
        from tree_sitter_language_pack import get_language

        return get_language(name)
    except (ImportError, LookupError, ValueError):
        return None


@cache
def _parser(name: str):
    try:
        from tree_sitter_language_pack import get_parser

        return get_parser(name)
    except (ImportError, LookupError, ValueError):
        return None
