"""Serving a store another sheaf process finds held, and reaching it from that process
(ADR-0022): the holder's API, its client and `HeldKnowledge`."""
