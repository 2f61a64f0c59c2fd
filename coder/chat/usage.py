"""The lines that tell the user what the model's replies cost: each reply, and the session."""

from __future__ import annotations

from coder.seams.model import Usage


def spent(usage: Usage) -> str:
    """The session's running total: tokens both ways, and the cost from litellm's local price
    map (unknown for a model it has no price for)."""
    cost = "cost unknown" if usage.cost is None else f"${usage.cost:.4f}"
    return (
        f"Session: {usage.prompt_tokens:,} tokens sent, {usage.completion_tokens:,} received,"
        f" {cost}."
    )


def reply_line(reply: Usage, session: Usage) -> str:
    """What one reply cost, in tokens and, when litellm prices the model, money, with the
    session's cost so far; "cost unknown" when it does not."""
    tokens = f"Tokens: {reply.prompt_tokens:,} sent, {reply.completion_tokens:,} received"
    if reply.cost is None:
        return f"{tokens}, cost unknown."
    return f"{tokens}. Cost: ${reply.cost:.4f} this reply, ${session.cost or 0:.4f} session."
