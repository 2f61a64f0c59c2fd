"""The edit formats themselves: what each asks the model for and how it reads the reply."""
