"""The direct route against what servers really send, beyond the fake's well-formed streams:
comments and CRLF, a whole answer to a streamed request, malformed events, error events, a
web page, a huge reply, calls interleaved by index, a stream dropped before any text."""

from __future__ import annotations

import json

import pytest

from coder.errors import ModelError, UsageError
from coder.seams.llm import DirectModel, ModelSettings
from coder.seams.model import Message, Request
from editformats.formats import diff_func

from ..fake_openai import CutOff, FakeOpenAI, Raw, Status, Text

REQUEST = Request((Message("user", "hello"),))


def direct(server: FakeOpenAI, retries: int = 2) -> tuple[DirectModel, list[str]]:
    notes: list[str] = []
    settings = ModelSettings(
        "openai/m", server.base_url, "k", timeout=5, retries=retries, backoff=0.01
    )
    return DirectModel(settings, on_retry=notes.append), notes


def sse(*events: dict | str, end: str = "\n\n") -> bytes:
    """A server-sent event stream of these events (dicts as JSON)."""
    return "".join(
        f"data: {json.dumps(e) if isinstance(e, dict) else e}{end}" for e in events
    ).encode()


def delta(**fields) -> dict:
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": None}]}


def test_comments_event_names_and_crlf_are_read() -> None:
    body = b": keep-alive\r\n\r\nevent: message\r\n" + sse(
        delta(content="one "), delta(content="two"), "[DONE]", end="\r\n\r\n"
    )
    with FakeOpenAI([Raw(body)]) as server:
        assert direct(server)[0].complete(REQUEST).text == "one two"


def test_a_stream_without_done_ends_with_the_body() -> None:
    body = sse(delta(content="all"), {"choices": [], "usage": {"prompt_tokens": 3}})
    with FakeOpenAI([Raw(body)]) as server:
        completion = direct(server)[0].complete(REQUEST)
    assert completion.text == "all" and completion.usage.prompt_tokens == 3


def test_a_whole_answer_to_a_streamed_request_is_read() -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "replace_lines", "arguments": "{}"},
    }
    answer = {
        "choices": [
            {"message": {"content": "hi", "tool_calls": [call]}, "finish_reason": "length"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
    }
    with FakeOpenAI([Raw(json.dumps(answer).encode(), "application/json")]) as server:
        completion = direct(server)[0].complete(REQUEST)
    assert completion.text == "hi" and completion.truncated
    assert [(c.name, c.id) for c in completion.tool_calls] == [("replace_lines", "c1")]
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (5, 2)


def test_calls_interleaved_by_index_are_kept_apart_and_in_order() -> None:
    def piece(index: int, arguments: str, **head) -> dict:
        return delta(tool_calls=[{"index": index, **head, "function": {"arguments": arguments}}])

    body = sse(
        piece(1, "", id="b", type="function"),
        piece(0, '{"x":', id="a", type="function"),
        piece(1, '{"y": 2}'),
        piece(0, " 1}"),
        "[DONE]",
    )
    with FakeOpenAI([Raw(body)]) as server:
        calls = direct(server)[0].complete(Request(REQUEST.messages, tools=(diff_func.TOOL,)))
    assert [(c.id, c.arguments) for c in calls.tool_calls] == [("a", '{"x": 1}'), ("b", '{"y": 2}')]


@pytest.mark.parametrize(
    "body",
    [
        sse(delta(content="so far "), '{"broken'),
        sse(delta(content="so far "), "[1, 2]"),
        sse(delta(content="so far "), {"choices": [{"delta": {"content": 3}}]}),
        sse(delta(content="so far "), {"choices": "nope"}),
    ],
    ids=["not-json", "not-an-object", "content-not-text", "choices-not-a-list"],
)
def test_a_malformed_event_is_a_clear_error_keeping_what_arrived(body: bytes) -> None:
    with FakeOpenAI([Raw(body)]) as server:
        llm, notes = direct(server)
        with pytest.raises(ModelError, match="cannot read") as caught:
            llm.complete(REQUEST)
    assert caught.value.partial == "so far " and notes == []


def test_an_error_event_before_any_text_is_retried_then_explained() -> None:
    overloaded = sse({"error": {"message": "Overloaded", "type": "server_error"}})
    with FakeOpenAI([Raw(overloaded), Raw(overloaded)]) as server:
        llm, notes = direct(server, retries=1)
        with pytest.raises(ModelError, match="provider kept failing \\(Overloaded\\)"):
            llm.complete(REQUEST)
    assert len(notes) == 1


def test_a_web_page_is_not_taken_for_an_empty_answer() -> None:
    page = Raw(b"<html><body>Welcome to nginx!</body></html>", "text/html")
    with FakeOpenAI([page]) as server, pytest.raises(ModelError, match="without server-sent"):
        direct(server)[0].complete(REQUEST)


def test_an_empty_stream_is_an_empty_answer() -> None:
    """As through litellm: llama.cpp's server sends one when it cannot follow a tool's schema,
    and the model then hears that its reply had no edits."""
    with FakeOpenAI([Raw(b"")]) as server:
        completion = direct(server)[0].complete(REQUEST)
    assert completion.text == "" and completion.tool_calls == ()


def test_a_stream_dropped_before_any_text_is_retried() -> None:
    with FakeOpenAI([CutOff(""), Raw(b'data: {"choi'), Text("whole")]) as server:
        llm, notes = direct(server)
        assert llm.complete(REQUEST).text == "whole"
    assert len(notes) == 2 and "could not reach" in notes[0]


def test_a_huge_reply_arrives_whole() -> None:
    text = "".join(f"line {n} of a long reply\n" for n in range(200_000))  # 5 MB
    with FakeOpenAI([Text(text, chunk_size=2_000)]) as server:
        assert direct(server)[0].complete(REQUEST).text == text


def test_a_single_megabyte_event_is_read() -> None:
    body = sse(delta(content="x" * 1_000_000), "[DONE]")
    with FakeOpenAI([Raw(body)]) as server:
        assert len(direct(server)[0].complete(REQUEST).text) == 1_000_000


def test_an_error_body_that_is_not_json_is_shown() -> None:
    with FakeOpenAI([Status(502, body={"detail": "upstream gone"})] * 3) as server:
        llm, notes = direct(server)
        llm.settings = ModelSettings("openai/m", server.base_url, timeout=5, retries=2, backoff=0)
        with pytest.raises(ModelError, match="upstream gone"):
            llm.complete(REQUEST)
    assert len(notes) == 2


def test_an_api_base_that_is_not_a_url_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not an http:// or https:// URL"):
        DirectModel(ModelSettings("openai/m", "localhost:8080/v1"))


def test_a_query_in_the_api_base_is_kept() -> None:
    with FakeOpenAI([Text("ok")]) as server:
        settings = ModelSettings("openai/m", server.base_url + "?api-version=1", timeout=5)
        assert DirectModel(settings).complete(REQUEST).text == "ok"
    assert server.headers[0][":path"] == "/v1/chat/completions?api-version=1"


def test_a_context_window_in_the_settings_keeps_the_history_to_half_of_it(tmp_path) -> None:
    """A server litellm's map does not know (the local llama.cpp, --context-window): the
    history sent is kept to about half the window, the latest turns whole."""
    import io

    from coder.chat.session import Session
    from coder.edits.workspace import Workspace
    from coder.terminal import Terminal
    from editformats import get_format

    old = [
        Message(role, f"{role} {n} " + "x" * 200)
        for n in range(10)
        for role in ("user", "assistant")
    ]
    sent = []
    for window in (450, None):
        with FakeOpenAI([Text("An answer.")]) as server:
            settings = ModelSettings("openai/m", server.base_url, "k", context_window=window)
            out = io.StringIO()
            chat = Session(
                model=DirectModel(settings),
                fmt=get_format("diff"),
                ws=Workspace(tmp_path),
                repo=None,
                terminal=Terminal(out=out, err=out),
                history=list(old),
            )
            chat.ask("What does it do?")
        sent.append("\n".join(m["content"] for m in server.requests[0]["messages"]))
    small, unknown = sent
    assert "user 8 " in small and "assistant 9 " in small and "user 7 " not in small
    assert "user 0 " in unknown
