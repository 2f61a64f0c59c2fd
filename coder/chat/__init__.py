"""The chat: the command line's settings, the session's turns, the slash commands, the prompt
loop, and what follows an edit (checks, commit message, /pick, architect mode)."""
