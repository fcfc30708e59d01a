"""How a record's source is named in the CLI's plain output, from its JSON form: a title
to recognise it by and the place to find it again."""

from __future__ import annotations

from typing import Any


def shown_title(record: dict[str, Any]) -> str:
    """The title, else the file's name (an untitled note), else the document id."""
    location = record.get("location") or {}
    return str(record.get("title") or location.get("file_name")
               or record.get("document_id") or record.get("id"))


def cited_source(record: dict[str, Any]) -> str:
    """The URL, else the file's `file:` URI or path, else an upload's file name, else
    the document id: what a citation points at (`DocumentLocation.cited`)."""
    location = record.get("location") or {}
    return str(record.get("url") or location.get("url") or location.get("file_uri")
               or location.get("path") or location.get("file_name")
               or record.get("document_id") or record.get("id"))
