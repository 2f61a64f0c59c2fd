"""The edit formats by name, and the format each kind of model writes best."""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class ModelFormat:
    """The edit format for the models whose names match a pattern."""

    pattern: str
    """A regular expression searched for in the model's name, lowercased (provider included)."""
    format: str
    why: str
    """Which models these are, and why this format."""


MODEL_FORMATS = (
    ModelFormat(
        r"gpt-4\.1|gpt-5|codex|(?:^|/)o[1-9]",
        "patch",
        "OpenAI's GPT-4.1 and later, its o-series and its Codex models are trained to edit with"
        " the V4A patches of Codex CLI's apply_patch tool.",
    ),
)
"""The first row whose pattern matches a model's name gives its default edit format."""
DEFAULT_FORMAT = "diff"
"""The default edit format of every other model."""


def format_for(model: str) -> str:
    """The name of the edit format a model writes by default (MODEL_FORMATS, else diff)."""
    name = model.lower()
    row = next((r for r in MODEL_FORMATS if re.search(r.pattern, name)), None)
    return row.format if row else DEFAULT_FORMAT
