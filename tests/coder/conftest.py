"""Fixtures shared by the tests of coder."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["direct", "litellm"])
def route(request) -> str:
    """Which way a model's requests go: straight to the server over HTTP, or through litellm.
    A test taking it runs once for each."""
    return request.param
