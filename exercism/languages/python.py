"""Python: pytest, run by the interpreter that runs the benchmark (a dependency of it)."""

from exercism.language import Language
from exercism.pytests import Pytest

LANGUAGE = Language(
    name="python",
    title="Python",
    library="Python standard library",
    fence="python",
    programs=(),
    install="pytest comes with the benchmark: pip install -e .",
    runner=Pytest(),
)
