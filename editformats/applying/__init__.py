"""Applying edits in memory: which file each changes, where its text stands, what it leaves."""
