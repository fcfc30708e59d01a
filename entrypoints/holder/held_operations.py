"""What a store's holder and the processes going through it say to each other
(ADR-0022): the `KnowledgeApi` operations, by name, over the holder's loopback API.

A request is `POST /v1/held/NAME` with `{"space": ..., "arguments": {...}}`, the
arguments named as the method names them. The answer is the result in `value_codec`'s
plain form (records as their fields, times in ISO 8601), which decodes back into the
very records a direct call returns. `ingest_many` answers in JSON lines:
`{"progress": ...}` as each source finishes, or `{"failure": {"kind", "detail"}}` when
the batch stops. A refused request is a problem document naming its kind.
"""

from __future__ import annotations

OPERATIONS_PATH = "/v1/held/"
