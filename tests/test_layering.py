"""The packages depend one way, and outside systems are reached through one module each."""

from __future__ import annotations

import ast
import graphlib
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
    """git is imported by the git seam alone. The model seam is a package of two routes: one
    module of it imports litellm (the direct route and everything else reach litellm only
    through that module), and none imports litellm's own clients (openai, httpx)."""
    every = {}
    for package in ("coder", "editformats", "exercism", "benchmark"):
        every.update(imports(package))
    users = {
        system: [module for module, names in every.items() if system in names]
        for system in ("git", "litellm", "openai", "httpx")
    }
    assert users == {
        "git": ["coder/seams/repo.py"],
        "litellm": ["coder/seams/llm/via_litellm.py"],
        "openai": [],
        "httpx": [],
    }


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


def coder_graph(package: str = "coder") -> dict[str, set[str]]:
    """Each module of package -> the modules of package it imports at its top level, those
    imported only for type checking included (a circle there is a circle in the design all the
    same)."""
    modules = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        found = set()
        body = list(ast.parse(path.read_text()).body)
        while body:
            node = body.pop()
            if isinstance(node, ast.If):
                body += node.body
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith(f"{package}.")}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def test_no_module_imports_one_that_imports_it_back() -> None:
    for package in ("coder", "editformats"):
        try:
            tuple(graphlib.TopologicalSorter(coder_graph(package)).static_order())
        except graphlib.CycleError as exc:
            raise AssertionError(f"import circle: {' -> '.join(exc.args[1])}") from None


def test_the_folders_of_coder_depend_one_way() -> None:
    """The outside seams know nothing of the tool; applying edits knows only the seams; the
    trust features and the repository map know nothing of the chat that uses them."""
    below = {
        "coder.seams": set(),
        "coder.edits": {"coder.seams"},
        "coder.trust": {"coder.seams", "coder.edits"},
        "coder.repomap": {"coder.seams", "coder.edits"},
    }
    folders = ("coder.seams", "coder.edits", "coder.trust", "coder.chat", "coder.repomap")
    for module, imported in coder_graph().items():
        home = next((f for f in below if module.startswith(f + ".")), None)
        if home is None:
            continue
        for other in imported:
            folder = next((f for f in folders if other.startswith(f + ".") or other == f), None)
            assert folder in below[home] | {home, None}, (module, other)


def test_coder_keeps_only_what_every_part_shares_at_its_top() -> None:
    top = sorted(p.name for p in (ROOT / "coder").glob("*.py"))
    assert len(top) <= 8, top


def test_the_folders_of_editformats_depend_one_way() -> None:
    """Applying edits knows nothing of how they were read; reading them, nothing of the formats
    that use it."""
    below = {
        "editformats.applying": set(),
        "editformats.reading": {"editformats.applying"},
    }
    folders = ("editformats.applying", "editformats.reading", "editformats.formats")
    for module, imported in coder_graph("editformats").items():
        home = next((f for f in below if module.startswith(f + ".")), None)
        if home is None:
            continue
        for other in imported:
            folder = next((f for f in folders if other.startswith(f + ".") or other == f), None)
            assert folder in below[home] | {home, None}, (module, other)


def calls(package: str, name: str) -> dict[str, list[str]]:
    """The modules of package that call a function or method named name -> the functions
    (or "<module>") the calls stand in."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text())
        for outer in ast.walk(tree):
            if not isinstance(outer, (ast.FunctionDef, ast.Module)):
                continue
            for node in ast.walk(outer):
                func = node.func if isinstance(node, ast.Call) else None
                called = getattr(func, "attr", None) or getattr(func, "id", None)
                if called == name:
                    where = getattr(outer, "name", "<module>")
                    found.setdefault(path.relative_to(ROOT).as_posix(), []).append(where)
    return {module: sorted(set(where) - {"<module>"} or where) for module, where in found.items()}


def test_a_reply_reaches_the_disk_only_through_the_guard() -> None:
    """The formats compute texts only (test_editformats_is_pure); a Proposal, the one thing
    saving.write puts on disk, is made only where guard.vet has judged every file operation of
    it; and the workspace's write is called by saving alone, but for coder putting back what it
    wrote itself (a request's edits undone) and its own .gitignore line."""
    assert calls("coder", "Proposal") == {"coder/edits/editing.py": ["propose", "vetted"]}
    source = (ROOT / "coder/edits/editing.py").read_text()
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, ast.FunctionDef) and function.name in ("propose", "vetted"):
            assert "guard.vet(" in ast.unparse(function), function.name
    assert calls("coder", "write_all") == {
        "coder/chat/landing.py": ["undo"],
        "coder/chat/startup.py": ["_offer_gitignore"],
        "coder/edits/saving.py": ["_write"],
    }
    assert calls("benchmark", "write_all") == {}
