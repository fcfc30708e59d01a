"""Deciding what a body is from what was sent, and which files of a folder are worth reading."""
