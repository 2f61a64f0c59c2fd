"""The checks after an applied edit: syntax (no command needed), --lint-cmd, --auto-test; each
failure goes back to the model, at most --max-reflections times."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coder.chat import checks
from coder.languages import GRAMMARS

from ..gitrepo import HELLO, git, make_repo
from .test_session import block, session


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def test_a_syntax_error_the_edit_brought_in_goes_back_without_a_lint_command(root: Path) -> None:
    broken = block('    return "hello"\n', '    return ("hi"\n')
    fixed = block('    return ("hi"\n', '    return "hi"\n')
    chat = session(root, [broken, fixed], weak_model_replies=2)
    outcome = chat.turn("say hi")
    assert not outcome.unresolved and len(outcome.commits) == 2
    assert (root / "hello.py").read_text() == 'def greet():\n    return "hi"\n'
    second = chat.model.requests[1].messages[-1].content
    assert second.startswith("Your edit left syntax errors:\n\nhello.py:2: syntax error")
    assert 'return ("hi"' in second


def test_a_file_that_did_not_parse_before_is_not_held_against_the_edit(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"hello.py": 'def greet(:\n    return "hello"\n'})
    chat = session(root, [block('    return "hello"\n', '    return "hi"\n')])
    outcome = chat.turn("say hi")
    assert outcome.commits and not outcome.unresolved and len(chat.model.requests) == 1


def test_auto_test_sends_the_failing_output_back_and_ends_passing(root: Path) -> None:
    test = f"{sys.executable} -c \"import hello, sys; sys.exit(hello.greet() != 'bye')\""
    wrong = block('    return "hello"\n', '    return "hi"\n')
    right = block('    return "hi"\n', '    return "bye"\n')
    chat = session(root, [wrong, right], test_cmd=test, auto_test=True, weak_model_replies=2)
    outcome = chat.turn("say bye")
    assert not outcome.unresolved and outcome.changed == ("hello.py",)
    assert checks.run(test, root, 30)[0] == 0  # the tests pass at the end
    second = chat.model.requests[1].messages[-1].content
    assert "failed (exit status 1)" in second and test in second
    assert git(root, "log", "--format=%s").count("\n") == 3  # start and two edits


def test_a_lint_command_that_keeps_failing_stops_after_max_reflections(root: Path) -> None:
    lint = f"{sys.executable} -c \"import sys; print('lint saw', sys.argv[1:]); sys.exit(1)\""
    edits = [
        block('    return "hello"\n', '    return "a"\n'),
        block('    return "a"\n', '    return "b"\n'),
        block('    return "b"\n', '    return "c"\n'),
    ]
    chat = session(root, edits, lint_cmd=lint, max_reflections=2, weak_model_replies=3)
    outcome = chat.turn("change it")
    assert outcome.unresolved.startswith("The lint command failed (exit status 1)")
    assert len(chat.model.requests) == 3 and outcome.commits and len(outcome.commits) == 3
    assert "lint saw ['./hello.py']" in chat.model.requests[1].messages[-1].content
    assert "Still failing after 2 attempts" in chat.terminal.out.getvalue()


def test_a_check_that_runs_out_of_time_is_killed_with_everything_it_started(
    tmp_path: Path,
) -> None:
    began = time.monotonic()
    status, _ = checks.run("sleep 30 & sleep 30", tmp_path, 0.5)
    assert status is None and time.monotonic() - began < 10


def test_dry_run_and_failed_edits_are_not_checked(root: Path) -> None:
    lint = "false"
    chat = session(
        root, [block('    return "hello"\n', '    return "a"\n')], dry_run=True, lint_cmd=lint
    )
    outcome = chat.turn("change it")
    assert not outcome.unresolved and len(chat.model.requests) == 1
    assert (root / "hello.py").read_text() == HELLO


@settings(max_examples=30, deadline=None)  # a worker process each: about 0.2 s
@given(st.sampled_from(sorted(GRAMMARS)), st.text(max_size=300))
def test_the_syntax_check_never_raises(suffix: str, text: str) -> None:
    # Through the worker process, as the chat runs it: tree-sitter loops forever on some
    # inputs (a 13-byte .ts file among them), which would hang the test in this process.
    problem = checks.syntax({f"f{suffix}": text}, {})
    assert problem is None or problem.request.startswith("Your edit left syntax errors")


def test_a_parse_that_never_ends_is_cut_short_and_said(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks, "SYNTAX_SECONDS", 2.0)
    stuck = "<a {{b:>c:d(e f)"  # tree-sitter-typescript issue 323: the TSX parser never returns
    (root / "page.tsx").write_text("export const x = 1;\n")
    git(root, "add", "page.tsx")
    git(root, "commit", "-qm", "page")
    chat = session(root, [f"page.tsx\n```tsx\n{stuck}\n```\n"], fmt="whole")
    chat.files.append("page.tsx")
    began = time.monotonic()
    outcome = chat.turn("break it")
    assert time.monotonic() - began < 60  # not forever: the worker was killed at 2 s
    assert outcome.changed == ("page.tsx",) and not outcome.unresolved
    assert (
        "The syntax check of page.tsx did not finish: it is skipped."
        in chat.terminal.err.getvalue()
    )


def test_ctrl_c_during_a_check_ends_everything_it_started(tmp_path: Path, ctrl_c) -> None:
    import threading

    marker = tmp_path / "alive"
    cmd = f"(sleep 3; touch {marker}) & sleep 30"
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))  # Ctrl-C
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        checks.run(cmd, tmp_path, timeout=60)
    time.sleep(4)
    assert not marker.exists()  # the background child was killed with the command


def test_the_lint_command_is_not_given_a_file_the_edit_deleted(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"hello.py": HELLO, "old.py": "OLD = 1\n"})
    every_file_exists = "import sys, os; sys.exit(not all(map(os.path.exists, sys.argv[1:])))"
    lint = f'{sys.executable} -c "{every_file_exists}"'
    patch = (
        "*** Begin Patch\n*** Delete File: old.py\n*** Update File: hello.py\n@@\n"
        '-    return "hello"\n+    return "hi"\n*** End Patch\n'
    )
    chat = session(root, [patch], fmt="patch", lint_cmd=lint)
    chat.files.append("old.py")
    outcome = chat.turn("say hi, drop old.py")
    assert not outcome.unresolved and outcome.changed == ("hello.py", "old.py")
    assert len(chat.model.requests) == 1 and chat.files == ["hello.py"]
