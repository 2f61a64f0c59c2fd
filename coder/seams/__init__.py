"""The outside systems, each behind one module: the model protocol and its fakes, litellm,
the local llama.cpp server, and git."""
