"""`GET /v1/documents` a page at a time: `?limit=N` (1 to 1000) and `?cursor=` (a page's
`next_cursor`). Without either the whole space is listed, as before paging existed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...domain.errors import ErrorKind, SheafError
from ..api import serialisation
from ..api.knowledge_api import KnowledgeApi


async def documents_payload(knowledge: KnowledgeApi, query: Mapping[str, str]
                            ) -> dict[str, Any]:
    """The listing's JSON: `documents`, and `next_cursor` (None on the last page)."""
    if "limit" not in query and "cursor" not in query:
        documents = await knowledge.documents()
        return {"documents": [serialisation.document_summary(d) for d in documents],
                "next_cursor": None}
    limit = None
    if query.get("limit"):
        try:
            limit = int(query["limit"])
        except ValueError:
            raise SheafError(ErrorKind.INVALID_QUERY, f"limit must be a whole number, "
                                                      f"not {query['limit'][:40]!r}") from None
    page = await knowledge.documents_page(limit, query.get("cursor") or None)
    return {"documents": [serialisation.document_summary(d) for d in page.documents],
            "next_cursor": page.next_cursor}
