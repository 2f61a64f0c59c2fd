"""Model names as the run tables show them: shortened to a width, numbered where two would
read the same (the full names go in a legend)."""

from __future__ import annotations

MODEL_WIDTH = 18
"""The longest model name the table shows whole; longer ones are shortened, the full name in
the legend."""


def short_model(name: str) -> str:
    """The model name as the table shows it: without its provider path when that is too long,
    then with its middle left out (widths in terminal cells)."""
    from rich.cells import cell_len, chop_cells

    if cell_len(name) <= MODEL_WIDTH:
        return name
    name = name.rsplit("/", 1)[-1]
    if cell_len(name) <= MODEL_WIDTH:
        return name
    half = (MODEL_WIDTH - 1) // 2
    head = chop_cells(name, half)[0]
    tail = chop_cells(name[::-1], MODEL_WIDTH - 1 - half)[0][::-1]
    return f"{head}…{tail}"


def short_names(models: list[str]) -> dict[str, str]:
    """Each model's short name, numbered where two would read the same."""
    from rich.cells import chop_cells

    shorts = {m: short_model(m) for m in dict.fromkeys(models)}
    clashes = [s for s in shorts.values() if list(shorts.values()).count(s) > 1]
    seen: dict[str, int] = {}
    for model, short in shorts.items():
        if short in clashes:
            seen[short] = seen.get(short, 0) + 1
            shorts[model] = f"{chop_cells(short, MODEL_WIDTH - 3)[0]}#{seen[short]}"
    return shorts
