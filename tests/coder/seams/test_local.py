"""`--model local`: the messages without the extra, and (marked `local`) a real chat turn and a
3-exercise benchmark against SmolLM2-135M served by llama.cpp on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata, util
from pathlib import Path

import pytest

from coder.cli import main
from coder.errors import ModelError, UsageError
from coder.seams import local
from coder.seams.llm import DirectModel, LiteLLMModel, ModelSettings, failures
from coder.seams.model import Message, Request

from ..gitrepo import HELLO, git, make_repo

PRACTICE = Path(__file__).resolve().parents[4] / "shared" / "exercism-python" / "practice"


def _installed() -> bool:
    try:
        local.check_server_installed()
        local.default_gguf()
    except UsageError:
        return False
    return True


needs_local = pytest.mark.skipif(not _installed(), reason="the [local] extra is not installed")
REQUEST = Request((Message("user", "hello"),))


def test_without_the_extra_the_error_says_what_to_install(monkeypatch, tmp_path: Path) -> None:
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "files", missing)
    with pytest.raises(UsageError, match=r'pip install "coder\[local\]"'):
        local.default_gguf()
    monkeypatch.setattr(local.util, "find_spec", lambda name: None)
    with pytest.raises(UsageError, match=r"llama_cpp, uvicorn, fastapi, sse_starlette missing"):
        local.serve()
    make_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["--model", "local", "--exit", "hello.py"]) == 2


def test_a_missing_model_file_is_a_usage_error(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local, "check_server_installed", lambda: None)
    with pytest.raises(UsageError, match="no such file"):
        local.serve(tmp_path / "nothing.gguf")


def test_a_server_that_dies_at_start_is_a_clear_error_and_leaves_nothing(
    monkeypatch, tmp_path: Path
) -> None:
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    monkeypatch.setattr(local, "check_server_installed", lambda: None)
    if util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not installed, so the server cannot even start")
    with pytest.raises(local.ModelError, match="stopped at start"):
        local.serve(fake)
    assert local.SERVERS.running == {}


CRASHING_SERVER = """
import http.server, os, signal, sys
port = int(sys.argv[sys.argv.index("--port") + 1])

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"data": []}')

    def do_POST(self):
        print("loading tensors... done", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)

http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


@pytest.mark.parametrize("route", [DirectModel, LiteLLMModel], ids=["direct", "litellm"])
def test_a_server_that_dies_on_a_request_says_how_at_once(
    monkeypatch, tmp_path: Path, route
) -> None:
    script = tmp_path / "server.py"
    script.write_text(CRASHING_SERVER)
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    monkeypatch.setattr(local, "check_server_installed", lambda: None)
    monkeypatch.setattr(
        local, "_command", lambda gguf, port: [sys.executable, str(script)] + ["--port", str(port)]
    )
    served = local.serve(fake)
    retried: list[str] = []
    settings = ModelSettings(served.model, served.api_base, "k", timeout=10, backoff=0.01)
    try:
        with pytest.raises(ModelError) as failed:
            route(settings, on_retry=retried.append).complete(REQUEST)
    finally:
        local.stop()
    message = str(failed.value)
    assert f"the server at {served.api_base} stopped: llama.cpp killed by SIGSEGV" in message
    assert "its last output: " in message and message.endswith("loading tensors... done")
    assert retried == []
    assert failures.ended(served.api_base) is None  # stopped by coder: forgotten


def _servers_running() -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "llama_cpp.server" in text:
            found.append(text)
    return found


@pytest.mark.local
@needs_local
def test_a_real_chat_turn_with_the_local_model(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    before = _servers_running()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODER_")}
    env["HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "coder.cli", "--model", "local", "--yes", "--no-pretty"]
        + ["-m", "Make greet return 'goodbye' instead of 'hello'.", "hello.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = done.stdout + done.stderr
    assert done.returncode in (0, 1), output
    assert "Traceback" not in output
    assert "Starting llama.cpp with SmolLM2-135M-Instruct" in output
    assert "Tokens:" in output
    # Whatever the tiny model wrote, nothing is half-done: the tree is clean, and any change
    # is a commit on top of the start.
    assert git(root, "status", "--porcelain", "--untracked-files=no").strip() == ""
    if done.returncode == 1:
        assert (root / "hello.py").read_text() == HELLO
    assert _servers_running() == before  # the server stopped with coder


@pytest.mark.local
@needs_local
@pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")
def test_a_three_exercise_benchmark_with_the_local_model(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "benchmark.cli", "--model", "local", "--edit-format", "whole"]
        + ["--num-tests", "3", "--exercises-dir", str(PRACTICE), "--runs-dir", str(runs)]
        + ["--quiet"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (summary_file,) = runs.glob("*--local--whole/summary.json")
    summary = json.loads(summary_file.read_text())
    print(json.dumps(summary, indent=1))  # the figures, for the README (pytest -s shows them)
    assert summary["selected"] == 3
    assert summary["completed"] + summary["errors"] == 3
    assert summary["completion_tokens"] > 0 and summary["completion_tokens_per_second"] > 0
