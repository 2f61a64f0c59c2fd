"""coder: the chat tool — CLI, session, commands, git, model seam, terminal I/O."""
