"""Adapters: the ports implemented over real libraries, plus an in-memory fake of each."""
