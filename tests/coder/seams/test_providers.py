"""The direct route to hosted providers, against fakes on 127.0.0.1 that obey each provider's
rules (reached through the provider's base-URL variable): Anthropic's Messages API, the quirks
of the OpenAI-compatible providers, prices from litellm's map, proxies; and the same
conversation through the direct route and through litellm, request by request."""

from __future__ import annotations

import contextlib
import io
import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from benchmark.oracle import reply_for
from coder.chat.commit_message import COMMIT_PROMPT
from coder.chat.session import Session
from coder.edits.workspace import Workspace
from coder.errors import ModelError, UsageError
from coder.seams.llm import DirectModel, LiteLLMModel, ModelSettings, get_model, prices, wire
from coder.seams.llm.providers import BASE_VARIABLES, PROVIDERS, find
from coder.seams.llm.proxy import Unsupported, for_url
from coder.seams.model import Message, Request
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import get_format

from ..fake_anthropic import FakeAnthropic
from ..fake_openai import Calls, FakeOpenAI, Raw, Status, Text
from ..gitrepo import make_repo

REQUEST = Request((Message("system", "Be brief."), Message("user", "hello")))
START = "def area(w, h):\n    return 0\n"


def sonnet(server: FakeAnthropic, retries: int = 2, **env) -> DirectModel:
    settings = ModelSettings("sonnet", timeout=5, retries=retries, backoff=0.01)
    environ = {"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": server.base_url, **env}
    model = get_model(settings, environ)
    assert isinstance(model, DirectModel)
    return model


def test_anthropic_streams_text_with_its_headers_usage_and_price() -> None:
    pieces: list[str] = []
    with FakeAnthropic([Text("Hello there", chunk_size=3)]) as server:
        completion = sonnet(server).complete(REQUEST, on_text=pieces.append)
    assert completion.text == "Hello there" and len(pieces) == 4
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (11, 7)
    assert completion.usage.cost == pytest.approx(11 * 3e-6 + 7 * 15e-6)
    sent, headers = server.requests[0], server.headers[0]
    assert headers[":path"] == "/v1/messages" and headers["x-api-key"] == "sk-ant"
    assert headers["anthropic-version"] == "2023-06-01" and "authorization" not in headers
    assert sent["system"] == [{"type": "text", "text": "Be brief."}]
    assert sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]
    assert sent["model"] == "claude-sonnet-4-5" and sent["max_tokens"] == 64000


def test_anthropic_tool_use_is_a_call_and_its_answer_a_tool_result() -> None:
    tool = get_format("diff-func").tool
    arguments = json.dumps({"explanation": "x", "edits": []})
    with FakeAnthropic([Calls((("replace_lines", arguments),)), Text("done")]) as server:
        llm = sonnet(server)
        first = llm.complete(Request(REQUEST.messages, tools=(tool,)))
        (call,) = first.tool_calls
        assert (call.name, json.loads(call.arguments), call.id) == (
            "replace_lines",
            {"explanation": "x", "edits": []},
            "toolu_1_0",
        )
        answered = (
            *REQUEST.messages,
            Message("assistant", "", first.tool_calls),
            Message("tool", "applied", tool_call_id=call.id),
            Message("user", "thanks"),
        )
        assert llm.complete(Request(answered, tools=(tool,), tool_choice="none")).text == "done"
    assert server.rejected == []
    second = server.requests[1]
    assert second["tool_choice"] == {"type": "none"}
    assert server.requests[0]["tool_choice"] == {"type": "tool", "name": "replace_lines"}
    assert second["messages"][1:] == [
        {"role": "assistant", "content": [{"type": "tool_use", **_use(call)}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1_0", "content": "applied"},
                {"type": "text", "text": "thanks"},
            ],
        },
    ]


def _use(call) -> dict:
    return {"id": call.id, "name": call.name, "input": json.loads(call.arguments)}


def test_anthropic_overloaded_and_rate_limited_are_retried_as_asked() -> None:
    script = [
        Status(529, "Overloaded"),
        Status(
            429,
            "Number of request tokens has exceeded your rate limit",
            headers=(("retry-after", "0"),),
        ),
        Text("at last"),
    ]
    notes: list[str] = []
    with FakeAnthropic(script) as server:
        llm = sonnet(server, retries=3)
        llm.on_retry = notes.append
        assert llm.complete(REQUEST).text == "at last"
    assert notes[0].startswith("the provider had a server error; retrying in")
    assert notes[1] == "rate limited (429); retrying in 0 s"


def test_anthropic_errors_are_said_in_its_words() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    overloaded = Raw(f"event: error\ndata: {json.dumps(error)}\n\n".encode())
    too_long = "prompt is too long: 210000 tokens > 200000 maximum"
    for steps, retries, words in [
        ([overloaded] * 2, 1, r"provider kept failing \(Overloaded\)"),
        ([Status(401, "invalid x-api-key")], 0, r"rejected the API key .* \(invalid x-api-key\)"),
        ([Status(400, too_long)], 0, "too long for anthropic/claude-sonnet-4-5"),
    ]:
        with FakeAnthropic(steps) as server, pytest.raises(ModelError, match=words):
            sonnet(server, retries=retries).complete(REQUEST)


def test_the_fake_rejects_what_anthropic_rejects() -> None:
    """The rules hold: an OpenAI-style request sent to the Messages API is refused, with its
    error shape, and coder shows the provider's words."""
    with FakeAnthropic([]) as server:
        llm = get_model(
            ModelSettings("openai/claude-x", server.base_url + "/v1/messages", "k", retries=0), {}
        )
        with pytest.raises(ModelError, match="404|Not Found"):
            llm.complete(REQUEST)
    from .. import anthropic_rules

    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    base = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    for broken, words in [
        ({**base, "seed": 1}, "seed: Extra inputs"),
        ({k: v for k, v in base.items() if k != "max_tokens"}, "max_tokens: Field required"),
        ({**base, "messages": [{"role": "system", "content": "x"}]}, "'user' or 'assistant'"),
        ({**base, "messages": [base["messages"][0]] * 2}, "roles must alternate"),
        ({**base, "temperature": 1.5}, "less than or equal to 1"),
    ]:
        with pytest.raises(anthropic_rules.Rejected, match=words):
            anthropic_rules.check(broken, headers)
    unanswered = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {"role": "user", "content": "and?"},
    ]
    with pytest.raises(anthropic_rules.Rejected, match="without `tool_result` blocks"):
        anthropic_rules.check({**base, "messages": unanswered}, headers)


def test_no_key_for_a_hosted_provider_is_said_before_sending() -> None:
    llm = get_model(ModelSettings("sonnet", retries=3), {})
    with pytest.raises(
        ModelError, match="no API key for anthropic/claude-sonnet-4-5: .*ANTHROPIC_API_KEY"
    ):
        llm.complete(REQUEST)


def test_a_base_url_variable_that_is_not_a_url_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="ANTHROPIC_BASE_URL 'localhost:1' is not an http"):
        get_model(ModelSettings("sonnet"), {"ANTHROPIC_BASE_URL": "localhost:1"})


@pytest.mark.parametrize(
    ("name", "provider", "model"),
    [
        ("gpt-4o", "openai", "gpt-4o"),
        ("o3-mini", "openai", "o3-mini"),
        ("4o", "openai", "gpt-4o"),
        ("claude-opus-4-1", "anthropic", "claude-opus-4-1"),
        ("deepseek", "deepseek", "deepseek-chat"),
        ("openrouter/anthropic/claude-sonnet-4.5", "openrouter", "anthropic/claude-sonnet-4.5"),
        ("groq/llama-3.3-70b-versatile", "groq", "llama-3.3-70b-versatile"),
        ("xai/grok-4", "xai", "grok-4"),
        ("mistral/mistral-large-latest", "mistral", "mistral-large-latest"),
        ("together_ai/meta-llama/Llama-3-70b", "together_ai", "meta-llama/Llama-3-70b"),
        ("fireworks_ai/llama-v3p1-70b", "fireworks_ai", "accounts/fireworks/models/llama-v3p1-70b"),
        ("gemini", "gemini", "gemini-2.5-pro"),
    ],
)
def test_which_provider_a_name_is(name: str, provider: str, model: str) -> None:
    found = find(name)
    assert found is not None and (found[0].name, found[1]) == (provider, model)


@pytest.mark.parametrize(
    "name", ["ollama/llama3", "azure/gpt-4o", "my-model", "bedrock/x", "openai/"]
)
def test_other_models_are_left_to_litellm(name: str) -> None:
    assert find(name) is None


@pytest.mark.parametrize(
    ("name", "left_out", "has"),
    [
        ("openai/o3", {"temperature", "max_tokens"}, {"max_completion_tokens": 50, "seed": 3}),
        ("openai/gpt-5", {"temperature", "max_tokens"}, {"max_completion_tokens": 50}),
        ("openai/gpt-4o", {"max_completion_tokens"}, {"temperature": 0.0, "max_tokens": 50}),
        ("mistral/mistral-large-latest", {"seed", "stream_options"}, {"random_seed": 3}),
        ("groq/llama-3.3-70b-versatile", set(), {"seed": 3, "temperature": 0.0}),
    ],
)
def test_each_provider_gets_only_what_it_takes(name: str, left_out: set, has: dict) -> None:
    provider, model = find(name)
    request = Request(REQUEST.messages, seed=3, max_tokens=50)
    sent = wire.body(model, request, ModelSettings(name), provider.quirks)
    assert not left_out & set(sent), sent
    assert {k: sent.get(k) for k in has} == has


def test_each_provider_is_reached_at_its_base_url_variable_with_its_key() -> None:
    for provider in PROVIDERS.values():
        if provider.wire != "openai":
            continue
        with FakeOpenAI([Text("ok")]) as server:
            environ = {provider.keys[0]: f"key-{provider.name}", provider.bases[0]: server.base_url}
            llm = get_model(ModelSettings(f"{provider.name}/some-model", retries=0), environ)
            assert llm.complete(REQUEST).text == "ok", provider.name
        assert server.headers[0]["authorization"] == f"Bearer key-{provider.name}"
        assert server.rejected == []


def test_every_base_url_variable_of_a_repositorys_env_waits_for_leave(tmp_path: Path) -> None:
    from coder.chat.repo_settings import read_dotenv

    (tmp_path / ".env").write_text("".join(f"{v}=http://evil.example\n" for v in BASE_VARIABLES))
    assert set(read_dotenv(tmp_path, {}).bases) == BASE_VARIABLES


def test_prices_and_windows_come_from_the_map_and_are_unknown_without_it(monkeypatch) -> None:
    assert prices.context_window(("claude-sonnet-4-5",)) == 200_000
    assert prices.usage(("nope", "gpt-4o"), (1000, 100)).cost == pytest.approx(0.0035)
    for cached in (prices._text, prices._lookup, prices._whole):
        cached.cache_clear()
    monkeypatch.setattr(prices, "map_path", lambda: None)
    try:
        assert prices.usage(("gpt-4o",), (1000, 100)).cost is None
        assert prices.context_window(("gpt-4o",)) is None
    finally:
        for cached in (prices._text, prices._lookup, prices._whole):
            cached.cache_clear()


def test_anthropic_never_imports_litellm() -> None:
    with FakeAnthropic([Text("hi")]) as server:
        code = (
            "import sys\n"
            "from coder.seams.llm import ModelSettings, get_model\n"
            "from coder.seams.model import Message, Request\n"
            "env = {'ANTHROPIC_API_KEY': 'k', 'ANTHROPIC_BASE_URL': sys.argv[1]}\n"
            "llm = get_model(ModelSettings('sonnet'), env)\n"
            "answer = llm.complete(Request((Message('user', 'hello'),)))\n"
            "print(answer.text, answer.usage.cost is not None, llm.context_window())\n"
            "print('litellm' in sys.modules)"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, server.base_url],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.stdout.splitlines() == ["hi True 200000", "False"], out.stderr


# Proxies


def test_which_proxy_a_url_goes_through() -> None:
    env = {"https_proxy": "http://user:p%40ss@proxy:3128", "no_proxy": ".internal, 10.0.0.0/8"}
    chosen = for_url("https://api.openai.com/v1", env)
    assert (chosen.host, chosen.port) == ("proxy", 3128)
    assert chosen.authorization == "Basic dXNlcjpwQHNz"  # user:p@ss
    assert for_url("http://api.openai.com/v1", env) is None  # no http_proxy
    assert for_url("https://llm.internal/v1", env) is None
    assert for_url("https://10.1.2.3:8000/v1", env) is None
    assert for_url("https://api.x.ai", {"HTTPS_PROXY": "proxy:8080"}).port == 8080
    assert for_url("https://api.x.ai", {"ALL_PROXY": "http://p:1"}).host == "p"
    assert for_url("https://api.x.ai", {"https_proxy": "http://p:1", "NO_PROXY": "*"}) is None
    with pytest.raises(Unsupported):
        for_url("https://api.x.ai", {"https_proxy": "socks5://p:1"})
    with pytest.raises(UsageError, match="port that is not a number"):
        for_url("https://api.x.ai", {"https_proxy": "http://p:notaport"})


class RecordingProxy:
    """An http:// proxy on 127.0.0.1: it forwards plain requests (absolute URLs) to their
    server, and records each CONNECT, answering it with refuse (a status line) when given."""

    def __init__(self, refuse: str = "HTTP/1.1 403 Forbidden"):
        self.seen: list[str] = []
        self.refuse = refuse
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(client,), daemon=True).start()

    def _one(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                head += client.recv(65536)
            top, _, rest = head.partition(b"\r\n\r\n")
            lines = top.decode().split("\r\n")
            self.seen.append("\n".join(lines))
            method, target, _ = lines[0].split(" ")
            if method == "CONNECT":
                client.sendall(f"{self.refuse}\r\nContent-Length: 0\r\n\r\n".encode())
                return
            length = next(
                int(v)
                for k, _, v in (line.partition(": ") for line in lines)
                if k.lower() == "content-length"
            )
            while len(rest) < length:
                rest += client.recv(65536)
            host, port = target.split("/")[2].split(":")
            path = "/" + target.split("/", 3)[3]
            with socket.create_connection((host, int(port))) as upstream:
                request = [f"{method} {path} HTTP/1.1"] + [
                    line for line in lines[1:] if not line.lower().startswith("proxy-")
                ]
                upstream.sendall("\r\n".join(request).encode() + b"\r\n\r\n" + rest)
                while data := upstream.recv(65536):
                    client.sendall(data)

    def close(self) -> None:
        # Wake the thread in accept() first: a closed descriptor's number is soon reused by
        # the next test's server, whose connections that thread would otherwise take.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()


def test_an_http_server_is_reached_through_the_proxy() -> None:
    proxy = RecordingProxy()
    try:
        with FakeOpenAI([Text("proxied")]) as server:
            env = {"http_proxy": proxy.url.replace("http://", "http://me:pw@")}
            llm = get_model(ModelSettings("openai/m", server.base_url, "k"), env)
            assert llm.complete(REQUEST).text == "proxied"
    finally:
        proxy.close()
    (seen,) = proxy.seen
    assert seen.startswith(f"POST {server.base_url}/chat/completions HTTP/1.1")
    assert "Proxy-Authorization: Basic bWU6cHc=" in seen
    assert "proxy-authorization" not in server.headers[0]


def test_an_https_provider_is_reached_through_a_connect_tunnel() -> None:
    """The proxy is asked for a tunnel to the provider's host and port, with the credentials;
    this one refuses, which is said at once, naming the proxy (no TLS fake is needed)."""
    proxy = RecordingProxy("HTTP/1.1 407 Proxy Authentication Required")
    notes: list[str] = []
    try:
        env = {"ANTHROPIC_API_KEY": "k", "HTTPS_PROXY": proxy.url.replace("//", "//u:p@")}
        llm = get_model(ModelSettings("sonnet", retries=3), env, on_retry=notes.append)
        with pytest.raises(ModelError) as caught:
            llm.complete(REQUEST)
    finally:
        proxy.close()
    assert proxy.seen[0].startswith("CONNECT api.anthropic.com:443 HTTP/1.")
    assert "Proxy-Authorization: Basic dTpw" in proxy.seen[0]
    assert str(caught.value) == (
        f"cannot connect to https://api.anthropic.com (through the proxy {proxy.url})"
        " (the proxy would not open a tunnel: 407 Proxy Authentication Required)"
    )
    assert notes == []


# The same conversation on both routes


def _meaning(body: dict) -> dict:
    """What a request asks, whatever client wrote it: the system text, the turns as blocks,
    the tools, the tool choice, the temperature."""
    if "system" in body or body.get("messages", [{}])[0].get("role") != "system":
        system = body.get("system") or []
        turns = [{"role": m["role"], "content": _blocks(m["content"])} for m in body["messages"]]
        tools = [
            {k: t[k] for k in ("name", "description", "input_schema") if k in t}
            for t in body.get("tools", [])
        ]
        return {
            "system": [s["text"] for s in system] if isinstance(system, list) else [system],
            "turns": turns,
            "tools": tools,
            "tool_choice": body.get("tool_choice"),
            "temperature": body.get("temperature"),
            "max_tokens": body.get("max_tokens"),
        }
    messages = []
    for m in body["messages"]:
        calls = [
            (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in m.get("tool_calls") or []
        ]
        messages.append((m["role"], m.get("content") or "", calls, m.get("tool_call_id")))
    return {
        "messages": messages,
        "tools": body.get("tools"),
        "tool_choice": body.get("tool_choice"),
        "temperature": body.get("temperature"),
        "max_tokens": body.get("max_tokens"),
    }


def _blocks(content) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in content]


def _respond(script: list, anthropic: bool):
    """Commit-message requests get a line; every other request the next step of script."""
    steps = list(script)

    def respond(body: dict):
        system = body.get("system") if anthropic else body["messages"][0]["content"]
        text = system[0]["text"] if isinstance(system, list) and system else system
        if text == COMMIT_PROMPT:
            return Text("Compute the area")
        return steps.pop(0)

    return respond


def _conversation(root: Path, model, fmt: str) -> list[bool]:
    out = io.StringIO()
    session = Session(
        model=model,
        fmt=get_format(fmt),
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out, yes=True),
        files=["shapes.py"],
    )
    return [session.turn("compute the area").applied, session.turn("and name it").applied]


def _steps(fmt: str) -> list:
    wanted = ["def area(w, h):\n    return w * h\n", "def area(w, h):\n    return w * h  # area\n"]
    steps = []
    for old, new in zip([START, wanted[0]], wanted, strict=True):
        completion = reply_for(fmt, {"shapes.py": old}, {"shapes.py": new})
        if completion.tool_calls:
            steps.append(Calls(tuple((c.name, c.arguments) for c in completion.tool_calls)))
        else:
            steps.append(Text(completion.text))
    name = get_format(fmt).tool["function"]["name"] if get_format(fmt).tool else None
    bad = (
        Calls(((name, json.dumps({"explanation": "x", "edits": [{"path": "shapes.py"}]})),))
        if name
        else Text("shapes.py\n```\n<<<<<<< ORIGINAL\nnope\n=======\nx\n>>>>>>> UPDATED\n```\n")
    )
    return [bad, *steps]  # the first reply fails and is reflected on


@pytest.mark.parametrize("fmt", ["diff", "diff-func"])
@pytest.mark.parametrize("name", ["sonnet", "gpt-4o"])
def test_the_same_conversation_on_both_routes(tmp_path: Path, name: str, fmt: str) -> None:
    anthropic = name == "sonnet"
    fake = FakeAnthropic if anthropic else FakeOpenAI
    variable = "ANTHROPIC_BASE_URL" if anthropic else "OPENAI_BASE_URL"
    seen, files, logs = {}, {}, {}
    for route in ("direct", "litellm"):
        (tmp_path / route).mkdir()
        root = make_repo(tmp_path / route, {"shapes.py": START})
        with fake(_respond(_steps(fmt), anthropic)) as server:
            settings = ModelSettings(name, timeout=20, retries=0)
            if route == "direct":
                environ = {
                    "ANTHROPIC_API_KEY": "sk-t",
                    "OPENAI_API_KEY": "sk-t",
                    variable: server.base_url,
                }
                model = get_model(settings, environ)
                assert isinstance(model, DirectModel)
            else:
                model = LiteLLMModel(
                    settings.__class__(
                        **{**settings.__dict__, "api_base": server.base_url, "api_key": "sk-t"}
                    )
                )
            assert _conversation(root, model, fmt) == [True, True]
        assert server.rejected == [], server.rejected
        seen[route] = [_meaning(b) for b in server.requests]
        files[route] = (root / "shapes.py").read_text()
        logs[route] = subprocess.run(
            ["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True
        ).stdout
    assert len(seen["direct"]) == len(seen["litellm"]) == 5  # 3 edits, 2 commit messages
    for direct, litellm in zip(seen["direct"], seen["litellm"], strict=True):
        assert direct == litellm
    assert files["direct"] == files["litellm"] and "# area" in files["direct"]
    assert logs["direct"] == logs["litellm"]
