"""Bounded concurrency: coroutines a few at a time, CPU work on worker threads."""
