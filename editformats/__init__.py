"""Edit formats: turn a model's reply into file edits and apply them in memory.

Pure: text in, data out. No disk, git, console or model.
"""

from editformats.edit import (
    Applied,
    ApplyResult,
    Chunk,
    Edit,
    EditFormat,
    Failure,
    Reply,
    ToolCall,
)
from editformats.errors import ReplyError, TruncatedReply
from editformats.registry import FORMATS, get_format

__all__ = [
    "FORMATS",
    "Applied",
    "ApplyResult",
    "Chunk",
    "Edit",
    "EditFormat",
    "Failure",
    "Reply",
    "ReplyError",
    "ToolCall",
    "TruncatedReply",
    "get_format",
]
