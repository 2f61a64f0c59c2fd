"""Applying a reply safely: parse and apply in memory, vet the paths it writes, write every file
or none, and commit without losing the user's own work."""
