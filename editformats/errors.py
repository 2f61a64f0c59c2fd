"""The one exception whose message is written for the model.

ReplyError: the reply could not be read as edits in the requested format (a parse error),
or its edits could not be applied. Its text says where the reply broke or which edits
failed, and is built by the pure functions in `editformats.feedback`.
"""


class ReplyError(Exception):
    """The model's reply could not be used; the message tells the model how to fix it."""
