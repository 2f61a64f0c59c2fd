"""The model seam against an OpenAI-compatible server on 127.0.0.1, over both routes: through
litellm and straight over HTTP. Each test runs on both unless its name says otherwise."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

from coder.errors import ModelError
from coder.seams.llm import (
    DirectModel,
    LiteLLMModel,
    ModelSettings,
    get_model,
    resolve,
)
from coder.seams.model import Message, Request
from editformats import ToolCall
from editformats.formats import diff_func

from ..fake_openai import Calls, CutOff, FakeOpenAI, Raw, Stall, Status, Text

REQUEST = Request((Message("user", "hello"),))
ROUTES = {"litellm": LiteLLMModel, "direct": DirectModel}


def model(
    server: FakeOpenAI | str,
    route: str,
    retries: int = 2,
    timeout: float = 5.0,
    name: str = "openai/test-model",
) -> tuple[LiteLLMModel | DirectModel, list]:
    notes: list[str] = []
    base = server if isinstance(server, str) else server.base_url
    settings = ModelSettings(name, base, "sk-test", timeout=timeout, retries=retries, backoff=0.01)
    return ROUTES[route](settings, on_retry=notes.append), notes


def test_streams_text_and_usage(route: str) -> None:
    pieces: list[str] = []
    with FakeOpenAI([Text("Hello there, world", chunk_size=4)]) as server:
        llm, _ = model(server, route)
        completion = llm.complete(REQUEST, on_text=pieces.append)
    assert completion.text == "Hello there, world" and len(pieces) > 2
    assert "".join(pieces) == completion.text
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (11, 7)
    assert server.requests[0]["messages"] == [{"role": "user", "content": "hello"}]
    assert server.requests[0]["model"] == "test-model"
    assert server.headers[0]["authorization"] == "Bearer sk-test"


def test_forced_tool_call(route: str) -> None:
    arguments = json.dumps({"explanation": "x", "edits": [{"path": "a.py"}]})
    with FakeOpenAI([Calls((("replace_lines", arguments),))]) as server:
        llm, _ = model(server, route)
        completion = llm.complete(Request(REQUEST.messages, tools=(diff_func.TOOL,)))
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [("replace_lines", arguments)]
    assert completion.tool_calls[0].id == "call_1_0"
    body = server.requests[0]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "replace_lines"}}
    assert body["tools"][0]["function"]["name"] == "replace_lines"


def test_several_tool_calls_are_assembled_by_index(route: str) -> None:
    calls = (("replace_lines", '{"a": "' + "x" * 50 + '"}'), ("replace_lines", '{"b": 2}'))
    with FakeOpenAI([Calls(calls)]) as server:
        llm, _ = model(server, route)
        completion = llm.complete(Request(REQUEST.messages, tools=(diff_func.TOOL,)))
    assert [(c.name, c.arguments) for c in completion.tool_calls] == list(calls)
    assert [c.id for c in completion.tool_calls] == ["call_1_0", "call_1_1"]


def test_temperature_seed_and_the_smaller_token_cap_are_sent(route: str) -> None:
    with FakeOpenAI([Text("a"), Text("b")]) as server:
        llm, _ = model(server, route)
        llm.settings = ModelSettings("openai/m", server.base_url, "k", max_tokens=2048)
        llm.complete(Request(REQUEST.messages, temperature=0.7, seed=3, max_tokens=100))
        llm.complete(REQUEST)
    first, second = server.requests
    assert (first["temperature"], first["seed"], first["max_tokens"]) == (0.7, 3, 100)
    assert second["max_tokens"] == 2048 and "seed" not in second


def test_both_routes_send_the_same_request() -> None:
    messages = (
        Message("system", "be brief"),
        Message("user", "hello"),
        Message("assistant", "", (ToolCall("replace_lines", "{}", "call_9"),)),
        Message("tool", "applied", tool_call_id="call_9"),
        Message("user", "again"),
    )
    request = Request(messages, 0.3, (diff_func.TOOL,), "auto", seed=4, max_tokens=50)
    bodies = []
    for route in sorted(ROUTES):
        with FakeOpenAI([Text("ok")]) as server:
            llm, _ = model(server, route)
            llm.complete(request)
        assert server.rejected == []
        bodies.append(server.requests[0])
    via_litellm, direct = bodies
    assert {k: v for k, v in via_litellm.items() if k in direct} == direct


def test_rate_limit_and_server_errors_are_retried(route: str) -> None:
    script = [Status(429, "slow down"), Status(500, "oops"), Text("fine")]
    with FakeOpenAI(script) as server:
        llm, notes = model(server, route)
        assert llm.complete(REQUEST).text == "fine"
    assert len(notes) == 2 and "rate limited" in notes[0] and "server error" in notes[1]


def test_retry_after_is_honoured(route: str) -> None:
    script = [Status(429, "slow down", headers=(("Retry-After", "1"),)), Text("fine")]
    with FakeOpenAI(script) as server:
        llm, notes = model(server, route)
        began = time.monotonic()
        assert llm.complete(REQUEST).text == "fine"
    assert time.monotonic() - began >= 1.0
    assert notes == ["rate limited (429); retrying in 1 s"]


def test_retries_run_out(route: str) -> None:
    with FakeOpenAI([Status(429, "slow down")] * 3) as server:
        llm, _ = model(server, route, retries=2)
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
        (Status(400, "Invalid value: 'whatever'."), "Invalid value: 'whatever'."),
    ],
)
def test_clear_errors_without_retry(route: str, status: Status, words: str) -> None:
    with FakeOpenAI([status]) as server:
        llm, notes = model(server, route)
        with pytest.raises(ModelError, match=words):
            llm.complete(REQUEST)
    assert notes == [] and len(server.requests) == 1


def test_timeout(route: str) -> None:
    with FakeOpenAI([Stall(3), Stall(3)]) as server:
        llm, notes = model(server, route, retries=1, timeout=1)
        with pytest.raises(ModelError, match="did not answer in time"):
            llm.complete(REQUEST)
    assert len(notes) == 1


@pytest.mark.parametrize("inside_event", [True, False], ids=["inside-an-event", "between-events"])
def test_cut_off_stream_keeps_the_partial_text_and_is_not_retried(
    route: str, inside_event: bool
) -> None:
    with FakeOpenAI([CutOff("partial answer", inside_event)]) as server:
        llm, notes = model(server, route)
        with pytest.raises(ModelError) as caught:
            llm.complete(REQUEST)
    assert caught.value.partial == "partial answer"
    assert notes == []


@pytest.mark.parametrize("inside_event", [True, False], ids=["inside-an-event", "between-events"])
def test_a_stream_cut_off_before_any_text_is_retried(route: str, inside_event: bool) -> None:
    with FakeOpenAI([CutOff("", inside_event), Text("whole")]) as server:
        llm, notes = model(server, route)
        assert llm.complete(REQUEST).text == "whole"
    assert len(notes) == 1


def test_ctrl_c_stops_the_reply_and_keeps_what_arrived(route: str) -> None:
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 2:
            raise KeyboardInterrupt

    with FakeOpenAI([Text("one two three four five", chunk_size=4)]) as server:
        llm, _ = model(server, route)
        completion = llm.complete(REQUEST, on_text=on_text)
    assert completion.interrupted and completion.text == "one two "


def free_port() -> int:
    """A port on 127.0.0.1 with nothing listening on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_fails_at_once_naming_the_url(route: str) -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    llm, notes = model(base, route, retries=5)
    llm.settings = ModelSettings("openai/test-model", base, "k", retries=5, backoff=1.0)
    with pytest.raises(ModelError) as caught:
        llm.complete(REQUEST)
    assert notes == []  # not one retry (five would say so, and wait 31 s)
    assert (
        str(caught.value)
        == f"cannot connect to {base} (connection refused): is the server running?"
    )


def test_an_unknown_host_fails_at_once_naming_the_url(route: str, monkeypatch) -> None:
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    llm, notes = model("http://no-such-host.invalid/v1", route, retries=5)
    with pytest.raises(ModelError, match=r"cannot connect to http://no-such-host.invalid/v1 \("):
        llm.complete(REQUEST)
    assert notes == []


def test_the_price_is_unknown_for_a_model_litellm_does_not_know(route: str) -> None:
    with FakeOpenAI([Text("hi")]) as server:
        llm, _ = model(server, route)
        assert llm.complete(REQUEST).usage.cost is None


def test_the_route_taken() -> None:
    direct = ModelSettings("openai/m", "http://127.0.0.1:1/v1")
    assert isinstance(get_model(direct, {}), DirectModel)
    assert isinstance(get_model(direct, {}, via_litellm=True), LiteLLMModel)
    for hosted in ("openai/m", "gpt-4o", "sonnet", "claude-haiku-4-5", "deepseek", "gemini"):
        assert isinstance(get_model(ModelSettings(hosted), {}), DirectModel), hosted
    for other in ("ollama/llama3", "azure/gpt-4o", "bedrock/claude", "my-model"):
        assert isinstance(get_model(ModelSettings(other), {}), LiteLLMModel), other
    keyed = get_model(direct, {"OPENAI_API_KEY": "sk-env"})
    assert keyed.settings.api_key == "sk-env"
    assert get_model(
        ModelSettings("openai/m", direct.api_base, "sk-flag"), {}
    ).settings.api_key == ("sk-flag")
    # A proxy the direct route speaks to keeps it; another kind sends the model to litellm.
    assert get_model(direct, {"HTTP_PROXY": "http://proxy:3128"}).proxy.port == 3128
    socks = {"all_proxy": "socks5://proxy:1080"}
    assert isinstance(get_model(direct, socks), LiteLLMModel)
    assert isinstance(get_model(direct, socks | {"no_proxy": "127.0.0.1"}), DirectModel)


def test_aliases_and_lazy_import() -> None:
    assert resolve("sonnet").startswith("anthropic/") and resolve("my/model") == "my/model"
    code = "import coder.seams.llm, coder.cli, sys; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_direct_route_never_imports_litellm() -> None:
    """Not for the price, the context window, nor tokens the server did not count (those are
    estimated at four characters a token)."""
    no_usage = Raw(b'data: {"choices": [{"delta": {"content": "12345678"}}]}\n\n')
    with FakeOpenAI([Text("hi"), no_usage]) as server:
        code = (
            "import sys\n"
            "from coder.seams.llm import ModelSettings, get_model\n"
            "from coder.seams.model import Message, Request\n"
            f"llm = get_model(ModelSettings('openai/m', {server.base_url!r}), {{}})\n"
            "request = Request((Message('user', 'hello'),))\n"
            "answer = llm.complete(request)\n"
            "print(answer.text, answer.usage.cost, llm.context_window())\n"
            "print(llm.complete(request).usage)\n"
            "print('litellm' in sys.modules)"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
    assert out.stdout.splitlines() == [
        "hi None None",
        "Usage(prompt_tokens=2, completion_tokens=2, cost=None)",
        "False",
    ], out.stderr


def test_preloading_imports_litellm_in_the_background_for_the_models_needing_it() -> None:
    code = (
        "import sys, threading\n"
        "from coder.seams.llm import preload_for, via_litellm\n"
        "base = 'http://127.0.0.1:1/v1'\n"
        "print(preload_for(['openai/m'], base, {}, False), via_litellm.loaded())\n"
        "assert 'litellm' not in sys.modules\n"
        "print(preload_for(['sonnet', 'ollama/llama3'], base, {}, False))\n"
        "via_litellm.preload()\n"
        "names = [t.name for t in threading.enumerate()]\n"
        "print(names.count('import litellm'), via_litellm.load().__name__,"
        " via_litellm.loaded().__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "None", "True", "1", "litellm", "litellm"], out.stderr


def test_what_retry_after_asks_for() -> None:
    from email.utils import formatdate

    from coder.seams.llm.failures import retry_after

    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert 8 < retry_after({"retry-after": formatdate(time.time() + 10, usegmt=True)}) <= 10
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None and retry_after(None) is None


def test_without_any_key(route: str, monkeypatch) -> None:
    """The direct route sends no key (a local server needs none); litellm's client refuses to
    send the request, which is said at once, not retried as the server error litellm calls it."""
    monkeypatch.delenv("OPENAI_API_KEY")
    notes: list[str] = []
    with FakeOpenAI([Text("hi")]) as server:
        settings = ModelSettings("openai/test-model", server.base_url, retries=5)
        llm = ROUTES[route](settings, on_retry=notes.append)
        if route == "direct":
            assert llm.complete(REQUEST).text == "hi"
            assert "authorization" not in server.headers[0]
        else:
            with pytest.raises(
                ModelError, match="no API key for openai/test-model: pass --api-key"
            ):
                llm.complete(REQUEST)
            assert server.requests == []
    assert notes == []
