"""`sheaf.Knowledge`, the async facade every interface sits on, and `KnowledgeApi`, what it
answers: its wiring, settings and one JSON form."""
