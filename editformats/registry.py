"""The edit formats by name."""

from __future__ import annotations

from editformats.edit import EditFormat
from editformats.formats import diff, diff_func, patch, patch_func, udiff, whole, whole_func

FORMATS: dict[str, EditFormat] = {
    f.name: f
    for f in (
        whole.FORMAT,
        diff.FORMAT,
        udiff.FORMAT,
        whole_func.FORMAT,
        diff_func.FORMAT,
        patch.FORMAT,
        patch_func.FORMAT,
    )
}

ALIASES = {
    "diff-fenced": "diff",
    "editor-whole": "whole",
    "editor-diff": "diff",
    "editor-diff-fenced": "diff",
}
"""Names other tools give the same formats: an architect's editor model writes them, and
diff-fenced (the path inside the fence) is what the 2023 study's diff already asks for."""


def get_format(name: str) -> EditFormat:
    """The edit format called name; an unknown name raises KeyError listing the valid ones."""
    found = FORMATS.get(ALIASES.get(name, name))
    if found is None:
        valid = ", ".join([*FORMATS, *ALIASES])
        raise KeyError(f"unknown edit format {name!r}; choose one of: {valid}")
    return found
