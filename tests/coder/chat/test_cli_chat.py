"""The real `coder` command, end to end, against an OpenAI-compatible server on 127.0.0.1;
the tests taking `route` run once straight over HTTP and once through litellm."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ..fake_openai import Calls, FakeOpenAI, Status, Text
from ..gitrepo import HELLO, git, make_repo

EDIT = (
    'I will change the greeting.\n\nhello.py\n```python\n<<<<<<< SEARCH\n    return "hello"\n'
    '=======\n    return "goodbye"\n>>>>>>> REPLACE\n```\n'
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def coder(
    repo: Path, server: FakeOpenAI | str, *args: str, route: str = "direct"
) -> subprocess.CompletedProcess:
    """Run coder in repo against server (or a URL), on the route named."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODER_")}
    env |= {"OPENAI_API_KEY": "sk-test", "HOME": str(repo), "NO_COLOR": "1"}
    base = server if isinstance(server, str) else server.base_url
    command = [sys.executable, "-m", "coder.cli", "--model", "openai/test-model"]
    command += ["--api-base", base, "--timeout", "5", *args]
    if route == "litellm":
        command.append("--via-litellm")
    return subprocess.run(
        command,
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_one_message_applies_commits_and_exits_0(repo: Path, route: str) -> None:
    with FakeOpenAI([Text(EDIT), Text("Say goodbye instead of hello")]) as server:
        done = coder(repo, server, "-m", "say goodbye", "hello.py", route=route)
    assert done.returncode == 0, done.stderr
    assert "goodbye" in (repo / "hello.py").read_text()
    assert git(repo, "log", "--format=%s", "-1").strip() == "Say goodbye instead of hello"
    assert "I will change the greeting." in done.stdout
    assert done.stdout.count("I will change the greeting.") == 1
    assert "Tokens: 11 sent, 7 received, cost unknown." in done.stdout  # an unpriced model
    assert "/help" not in done.stdout  # no chat follows -m
    sent = server.requests[0]
    assert sent["stream"] is True and sent["messages"][-1]["content"] == "say goodbye"
    assert (repo / ".coder.chat.history.md").read_text().count("say goodbye") == 1


def test_function_format_through_a_forced_tool_call(repo: Path, route: str) -> None:
    edit = {
        "path": "hello.py",
        "original_lines": ['    return "hello"'],
        "updated_lines": ["    return 1"],
    }
    arguments = json.dumps({"explanation": "x", "edits": [edit]})
    with FakeOpenAI([Calls((("replace_lines", arguments),)), Text("Return 1")]) as server:
        args = ("--edit-format", "diff-func", "-m", "return 1", "hello.py")
        done = coder(repo, server, *args, route=route)
    assert done.returncode == 0, done.stderr
    assert "return 1" in (repo / "hello.py").read_text()
    assert server.requests[0]["tool_choice"]["function"]["name"] == "replace_lines"


def test_server_errors_are_retried_and_shown(repo: Path, route: str) -> None:
    with FakeOpenAI([Status(500, "boom"), Text(EDIT), Text("msg")]) as server:
        done = coder(repo, server, "-m", "go", "hello.py", route=route)
    assert done.returncode == 0, done.stderr
    assert "server error; retrying" in done.stderr


def test_failed_edits_are_reflected_then_exit_1(repo: Path) -> None:
    bad = "hello.py\n```\n<<<<<<< SEARCH\nnothing\n=======\nx\n>>>>>>> REPLACE\n```\n"
    with FakeOpenAI([Text(bad)] * 3) as server:
        done = coder(repo, server, "--max-reflections", "2", "-m", "go", "hello.py")
    assert done.returncode == 1
    assert len(server.requests) == 3
    assert "was not found in hello.py" in server.requests[1]["messages"][-1]["content"]
    assert (repo / "hello.py").read_text() == HELLO


def test_model_failure_and_no_edits_exit_1(repo: Path, route: str) -> None:
    with FakeOpenAI([Status(401, "Incorrect API key provided")]) as server:
        done = coder(repo, server, "-m", "go", "hello.py", route=route)
    assert done.returncode == 1 and "API key" in done.stderr
    with FakeOpenAI([Text("No change is needed.")]) as server:
        assert coder(repo, server, "-m", "go", "hello.py", route=route).returncode == 1


def test_a_refused_connection_fails_fast_naming_the_url(repo: Path, route: str) -> None:
    with socket.socket() as probe:  # a port on which nothing listens
        probe.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    done = coder(repo, base, "--yes", "-m", "say goodbye", "hello.py", route=route)
    # Fast means no retry (each says "retrying"; all of them take 31 s): a wall-clock bound
    # would measure the machine's load instead (litellm's import took 27 s on a loaded one).
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"coder: cannot connect to {base} (connection refused): is the server running?"
    )
    assert "Traceback" not in done.stderr and "retrying" not in done.stderr
    assert (repo / "hello.py").read_text() == HELLO
    assert git(repo, "status", "--porcelain", "hello.py") == ""


def test_exit_prints_the_banner(repo: Path) -> None:
    with FakeOpenAI([]) as server:
        done = coder(repo, server, "--exit", "hello.py")
    assert done.returncode == 0
    assert "Files in the chat: hello.py" in done.stdout


def test_the_guard_refuses_other_hosts() -> None:
    with pytest.raises(RuntimeError, match="tests must stay on 127.0.0.1"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)


def test_the_history_files_go_into_gitignore_when_accepted(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.pyc")  # no newline at its end
    with FakeOpenAI([Text(EDIT), Text("Say goodbye instead of hello")]) as server:
        done = coder(repo, server, "--yes", "-m", "say goodbye", "hello.py")
    assert done.returncode == 0, done.stderr
    assert (repo / ".gitignore").read_text() == (
        "*.pyc\n# coder's chat history and caches\n"
        ".coder.chat.history.md\n.coder.input.history\n.coder.tags.cache\n"
        ".coder.tags.cache-journal\n"
    )
    # The history files are now ignored; the .gitignore itself is left for the user to commit.
    assert git(repo, "status", "--porcelain", "--untracked-files=all").split() == [
        "??",
        ".gitignore",
    ]
    with FakeOpenAI([]) as server:
        again = coder(repo, server, "--yes", "--exit")
    assert "gitignore" not in again.stdout  # asked once: now they are ignored


def test_a_declined_gitignore_offer_is_not_made_again(repo: Path, monkeypatch) -> None:
    import io

    from coder.chat import startup
    from coder.edits.workspace import Workspace
    from coder.seams.repo import Repo
    from coder.terminal import Terminal

    answers = iter(["n"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    out = io.StringIO()
    terminal = Terminal(out=out, err=out, interactive=True)
    found = Repo.find(repo)
    startup._offer_gitignore(found, Workspace(repo), terminal)
    startup._offer_gitignore(found, Workspace(repo), terminal)  # input() would fail now
    assert not (repo / ".gitignore").exists()
    assert git(repo, "config", "--local", "coder.gitignoreOffered").strip() == "true"


def test_the_exit_line_totals_tokens_and_cost_from_the_local_price_map(repo: Path) -> None:
    with FakeOpenAI([Text(EDIT), Text("Say goodbye instead of hello")]) as server:
        command = [sys.executable, "-m", "coder.cli", "--model", "openai/gpt-4o", "--via-litellm"]
        command += ["--api-base", server.base_url, "--timeout", "5", "-m", "bye", "hello.py"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODER_")}
        env |= {"OPENAI_API_KEY": "sk-test", "HOME": str(repo), "NO_COLOR": "1"}
        done = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    # Both requests (the edit and the commit message), priced as gpt-4o: never "unknown".
    assert last.startswith("Session: ") and "cost unknown" not in last and "$0.0" in last


def test_a_check_still_failing_at_the_end_exits_5_with_the_edit_committed(repo: Path) -> None:
    with FakeOpenAI([Text(EDIT), Text("Say goodbye instead of hello")]) as server:
        done = coder(
            repo, server, "--lint-cmd", "false", "--max-reflections", "0", "-m", "bye", "hello.py"
        )
    assert done.returncode == 5, done.stderr
    assert "Still failing after 0 attempts: The lint command failed" in done.stderr + done.stdout
    assert git(repo, "log", "--format=%s", "-1").strip() == "Say goodbye instead of hello"


def test_auto_test_without_a_test_command_is_a_usage_error(repo: Path) -> None:
    with FakeOpenAI([]) as server:
        done = coder(repo, server, "--auto-test", "-m", "bye", "hello.py")
    assert done.returncode == 2 and "--auto-test needs a test command" in done.stderr
    assert not server.requests


def test_the_direct_route_prices_from_litellms_map_without_importing_it(repo: Path) -> None:
    """The same line as through litellm (above): the price map is read as data."""
    with FakeOpenAI([Text(EDIT), Text("Say goodbye instead of hello")]) as server:
        done = coder(repo, server, "--model", "openai/gpt-4o", "-m", "bye", "hello.py")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("Session: 22 tokens sent, 14 received, $0.0"), last


def test_exit_starts_no_import_of_litellm(repo: Path) -> None:
    code = (
        "import sys, threading\n"
        "from coder.cli import main\n"
        "main(sys.argv[1:])\n"
        "print([t.name for t in threading.enumerate()], 'litellm' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODER_")}
    done = subprocess.run(
        [sys.executable, "-c", code, "--model", "sonnet", "--exit", "hello.py"],
        cwd=repo,
        env=env | {"HOME": str(repo)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip().splitlines()[-1] == "['MainThread'] False", done.stderr


def test_the_key_comes_from_api_key_or_the_environment(repo: Path, route: str) -> None:
    with FakeOpenAI([Text(EDIT), Text("Say goodbye")] * 2) as server:
        assert coder(repo, server, "-m", "bye", "hello.py", route=route).returncode == 0
        git(repo, "reset", "-q", "--hard", "HEAD~1")
        flagged = coder(repo, server, "--api-key", "sk-flag", "-m", "bye", "hello.py", route=route)
        assert flagged.returncode == 0, flagged.stderr
    keys = [headers["authorization"] for headers in server.headers]
    assert keys == ["Bearer sk-test"] * 2 + ["Bearer sk-flag"] * 2


SEVERAL = {
    "hello.py": "from greetings import polite_salutation\n\n\ndef greet():\n"
    "    return polite_salutation()\n",
    "greetings.py": "def polite_salutation():\n    return 'hello'\n",
    "maths/numeric.py": "class TrapezoidIntegrator:\n    def integrate_numerically(self, f):\n"
    "        return 0\n",
}


def test_the_request_carries_the_names_the_other_files_define(tmp_path: Path) -> None:
    (tmp_path / "maths").mkdir()
    repo = make_repo(tmp_path, SEVERAL)
    with FakeOpenAI([Text("No change is needed.")]) as server:
        coder(repo, server, "-m", "make greet friendlier", "hello.py")
    sent = "\n".join(m["content"] or "" for m in server.requests[0]["messages"])
    assert "def polite_salutation():" in sent
    assert "class TrapezoidIntegrator:" in sent and "def integrate_numerically" in sent
    assert "maths/numeric.py:" in sent
    (repo / ".coder.conf.yml").write_text("map-tokens: 0\n")
    for args in (("--map-tokens", "0"), ()):
        with FakeOpenAI([Text("No change is needed.")]) as server:
            coder(repo, server, *args, "-m", "make greet friendlier", "hello.py")
        sent = "\n".join(m["content"] or "" for m in server.requests[0]["messages"])
        assert "TrapezoidIntegrator" not in sent and "integrate_numerically" not in sent
        assert "return 'hello'" not in sent


def test_a_negative_map_budget_is_refused(repo: Path) -> None:
    with FakeOpenAI([]) as server:
        done = coder(repo, server, "--map-tokens", "-1", "--exit")
    assert done.returncode == 2 and "--map-tokens must be 0" in done.stderr


def test_a_context_window_below_one_is_refused(repo: Path) -> None:
    with FakeOpenAI([]) as server:
        done = coder(repo, server, "--context-window", "0", "--exit")
    assert done.returncode == 2 and "--context-window must be 1 or more, not 0" in done.stderr
