"""The map as text: each file's path, then the lines defining its chosen symbols, with their
line numbers; fitted to a budget of tokens by choosing how many ranked entries it shows."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from coder.repomap.ranking import Ranked


def render(entries: Sequence[Ranked]) -> str:
    """The map of entries: files in the order of their best entry, each with its entries'
    lines and the lines of the definitions they lie in, in file order, each once."""
    files: dict[str, dict[int, str]] = {}
    for entry in entries:
        lines = files.setdefault(entry.path, {})
        if entry.definition is not None:
            lines.update(entry.definition.context)
            lines[entry.definition.line] = entry.definition.text
    out = []
    for path, lines in files.items():
        out.append(f"{path}:")
        out += [f"{n + 1:>5}: {text}" for n, text in sorted(lines.items())]
    return "".join(f"{line}\n" for line in out)


def fit(entries: Sequence[Ranked], budget: int, count: Callable[[str], int]) -> str:
    """The map of as many of the first entries as fit in budget tokens ("" when none does),
    found by binary search over their number."""
    # Every entry adds a line, and every line is at least a token: more than budget never fit.
    low, high = 0, min(len(entries), budget)
    best = ""
    while low < high:
        middle = (low + high + 1) // 2
        text = render(entries[:middle])
        if count(text) <= budget:
            low, best = middle, text
        else:
            high = middle - 1
    return best
