"""The one exception whose message is written for the model.

ReplyError: the reply could not be read as edits in the requested format (a parse error),
or its edits could not be applied. Its text says where the reply broke or which edits
failed, and is built by the pure functions in `editformats.feedback`.

└── TruncatedReply: the reply ends inside an edit (a fence or block never closed), so it was
    cut off; nothing of it is applied.
"""


class ReplyError(Exception):
    """The model's reply could not be used; the message tells the model how to fix it."""


class TruncatedReply(ReplyError):
    """The reply stops in the middle of an edit: it was cut off, or a block was never closed."""


def truncated(where: str) -> TruncatedReply:
    """The error for a reply that ends inside an edit; where names the edit and its line."""
    return TruncatedReply(
        f"Your reply ends inside {where}, which is never closed: the reply was cut off (or the"
        " closing line is missing), so none of its edits were applied. Send the edits again,"
        " complete; if the reply was too long, send fewer or smaller edits."
    )
