"""Exercism exercises: load them, run their tests, clean the test output. No model."""
