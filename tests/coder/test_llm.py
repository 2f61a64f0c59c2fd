"""The litellm seam against an OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from coder.errors import ModelError
from coder.seams.llm import LiteLLMModel, ModelSettings, resolve
from coder.seams.model import Message, Request
from editformats import diff_func

from .fake_openai import Calls, CutOff, FakeOpenAI, Stall, Status, Text

REQUEST = Request((Message("user", "hello"),))


def model(server: FakeOpenAI, retries: int = 2, timeout: float = 5.0) -> tuple[LiteLLMModel, list]:
    notes: list[str] = []
    settings = ModelSettings(
        "openai/test-model",
        server.base_url,
        "sk-test",
        timeout=timeout,
        retries=retries,
        backoff=0.01,
    )
    return LiteLLMModel(settings, on_retry=notes.append), notes


def test_streams_text_and_usage() -> None:
    pieces: list[str] = []
    with FakeOpenAI([Text("Hello there, world", chunk_size=4)]) as server:
        llm, _ = model(server)
        completion = llm.complete(REQUEST, on_text=pieces.append)
    assert completion.text == "Hello there, world" and len(pieces) > 2
    assert "".join(pieces) == completion.text
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (11, 7)
    assert server.requests[0]["messages"] == [{"role": "user", "content": "hello"}]


def test_forced_tool_call() -> None:
    arguments = json.dumps({"explanation": "x", "edits": [{"path": "a.py"}]})
    with FakeOpenAI([Calls((("replace_lines", arguments),))]) as server:
        llm, _ = model(server)
        completion = llm.complete(Request(REQUEST.messages, tools=(diff_func.TOOL,)))
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [("replace_lines", arguments)]
    body = server.requests[0]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "replace_lines"}}
    assert body["tools"][0]["function"]["name"] == "replace_lines"


def test_temperature_seed_and_the_smaller_token_cap_are_sent() -> None:
    with FakeOpenAI([Text("a"), Text("b")]) as server:
        llm, _ = model(server)
        llm.settings = ModelSettings("openai/m", server.base_url, "k", max_tokens=2048)
        llm.complete(Request(REQUEST.messages, temperature=0.7, seed=3, max_tokens=100))
        llm.complete(REQUEST)
    first, second = server.requests
    assert (first["temperature"], first["seed"], first["max_tokens"]) == (0.7, 3, 100)
    assert second["max_tokens"] == 2048 and "seed" not in second


def test_rate_limit_and_server_errors_are_retried() -> None:
    script = [Status(429, "slow down"), Status(500, "oops"), Text("fine")]
    with FakeOpenAI(script) as server:
        llm, notes = model(server)
        assert llm.complete(REQUEST).text == "fine"
    assert len(notes) == 2 and "rate limited" in notes[0]


def test_retries_run_out() -> None:
    with FakeOpenAI([Status(429, "slow down")] * 3) as server:
        llm, _ = model(server, retries=2)
        with pytest.raises(ModelError, match="rate limited"):
            llm.complete(REQUEST)


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (Status(401, "Incorrect API key provided"), "API key"),
        (Status(404, "The model does not exist", "model_not_found"), "unknown model"),
        (
            Status(
                400, "This model's maximum context length is 10 tokens", "context_length_exceeded"
            ),
            "context window",
        ),
    ],
)
def test_clear_errors_without_retry(status: Status, words: str) -> None:
    with FakeOpenAI([status]) as server:
        llm, notes = model(server)
        with pytest.raises(ModelError, match=words):
            llm.complete(REQUEST)
    assert notes == [] and len(server.requests) == 1


def test_timeout() -> None:
    with FakeOpenAI([Stall(3), Stall(3)]) as server:
        llm, notes = model(server, retries=1, timeout=1)
        with pytest.raises(ModelError, match="did not answer in time"):
            llm.complete(REQUEST)
    assert len(notes) == 1


def test_cut_off_stream_keeps_the_partial_text_and_is_not_retried() -> None:
    with FakeOpenAI([CutOff("partial answer")]) as server:
        llm, notes = model(server)
        with pytest.raises(ModelError) as caught:
            llm.complete(REQUEST)
    assert caught.value.partial == "partial answer"
    assert notes == []


def test_aliases_and_lazy_import() -> None:
    assert resolve("sonnet").startswith("anthropic/") and resolve("my/model") == "my/model"
    code = "import coder.seams.llm, coder.cli, sys; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
