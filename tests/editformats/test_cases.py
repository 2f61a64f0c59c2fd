"""Golden cases: tests/editformats/cases/<format>/<name>/{before/, reply.md, after/ | error.txt}.

The files in before/ are the chat files; an optional tree.txt lists the repository's other
files, one per line. A case with after/ must apply and leave exactly the files of after/
(files of before/ missing from after/ are unchanged, unless the reply deletes or moves them:
deleted.txt lists those, one per line; a case without it may delete only files that after/
lacks); a case with error.txt must fail, with a message containing each non-empty line of
error.txt, and a format whose edits apply all or none must then change nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from editformats import Reply, ReplyError, feedback, get_format
from editformats.paths import tree_of

CASES = Path(__file__).parent / "cases"


def _read_tree(root: Path) -> dict[str, str]:
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8", "surrogateescape")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _cases() -> list[Path]:
    return sorted(p for p in CASES.glob("*/*") if (p / "reply.md").is_file())


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case(case: Path) -> None:
    fmt = get_format(case.parent.name)
    before = _read_tree(case / "before")
    reply = Reply((case / "reply.md").read_bytes().decode("utf-8"))
    error_file = case / "error.txt"
    listed = case / "tree.txt"
    others = listed.read_text().split() if listed.exists() else []
    tree = tree_of([*before, *others])
    try:
        result = fmt.apply(fmt.parse(reply), before, tree=tree)
        message = feedback.failure_message(result, kept=False) if result.failures else ""
    except ReplyError as exc:
        result, message = None, str(exc)
    if error_file.exists():
        assert message, "expected the reply to fail"
        for expected in error_file.read_text().splitlines():
            if expected.strip():
                assert expected.strip() in message
        if result is not None and result.atomic:
            assert not result.files and not result.deleted and not result.applied
        return
    assert result is not None and result.ok, message
    expected = _read_tree(case / "after")
    listed = case / "deleted.txt"
    if listed.exists():
        assert sorted(result.deleted) == sorted(listed.read_text().split())
    assert not set(result.deleted) & set(expected)
    kept = {p: t for p, t in before.items() if p not in result.deleted}
    assert {**kept, **result.files} == {**kept, **expected}


def test_every_format_has_cases() -> None:
    from editformats import FORMATS

    assert {p.parent.name for p in _cases()} >= set(FORMATS)
