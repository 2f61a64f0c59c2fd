"""Whether to trust an edit: several candidates and the choice among them, round-trip
correctness, and the equivalence judge both use."""
