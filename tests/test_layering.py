"""The packages depend one way, and outside systems are reached through one module each."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports(package: str) -> dict[str, set[str]]:
    """Top-level module names imported by each module of package."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        found[path.relative_to(ROOT).as_posix()] = names
    return found


def test_editformats_and_exercism_do_not_import_coder_or_benchmark() -> None:
    for package in ("editformats", "exercism"):
        for module, names in imports(package).items():
            assert not names & {"coder", "benchmark"}, module


def test_editformats_is_pure() -> None:
    outside = {"os", "subprocess", "shutil", "git", "litellm", "rich", "prompt_toolkit", "pathlib"}
    for module, names in imports("editformats").items():
        assert not names & outside, module


def test_one_module_per_outside_system() -> None:
    every = {}
    for package in ("coder", "editformats", "exercism", "benchmark"):
        every.update(imports(package))
    for system in ("git", "litellm"):
        users = [module for module, names in every.items() if system in names]
        assert len(users) <= 1, (system, users)


def test_sandbox_imports_no_other_package_of_the_project() -> None:
    for module, names in imports("sandbox").items():
        assert not names & {"coder", "benchmark", "exercism", "editformats"}, module


def test_the_command_line_imports_only_sys_before_it_can_catch_ctrl_c() -> None:
    for name in ("coder/cli.py",):
        tree = ast.parse((ROOT / name).read_text())
        top = set()
        for node in tree.body:
            if isinstance(node, ast.Import):
                top |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                top.add(node.module or "")
        assert top <= {"sys", "__future__"}, (name, top)
