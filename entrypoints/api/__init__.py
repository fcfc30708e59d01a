"""`sheaf.Knowledge`, the async facade every interface sits on: its wiring, settings and one JSON
form."""
