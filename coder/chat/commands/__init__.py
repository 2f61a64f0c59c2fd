"""Slash commands, from one registry: /help and tab completion are generated from it. Each
module registers its commands when imported; /help lists them in the order imported here."""

# isort: off
from coder.chat.commands import files, history, shell, requests, context  # noqa: F401

# isort: on
from coder.chat.commands.registry import COMMANDS, Chat, Command, command, dispatch

__all__ = ["COMMANDS", "Chat", "Command", "command", "dispatch"]
