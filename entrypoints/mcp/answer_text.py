"""The short text an MCP answer carries beside its structured content: what a model reads
when its client shows only text, so each passage keeps its citation next to it."""

from __future__ import annotations

from typing import Any


def answer_text(tool: str, answer: dict[str, Any]) -> str:
    """A compact rendering of a tool's structured answer."""
    if "error" in answer:
        failed = f"error {answer['error']['kind']}: {answer['error']['message']}"
        return failed if "verification" not in answer["error"] else "\n".join(
            [failed, *_verification(answer["error"]["verification"])])
    lines: list[str] = []
    if "results" in answer and tool == "search_knowledge":
        lines += _passages(answer["results"], answer.get("shown_from", 0))
    elif "sentences" in answer:  # verify_claim
        for checked in answer["sentences"]:
            lines.append(f"{checked['status']}: {checked['sentence']}")
            lines += _passages(checked["support"], 0)
    elif "quotes" in answer:
        lines += _passages(answer["quotes"], answer.get("shown_from", 0))
    elif "documents" in answer:
        lines += [f"- {d['id']}: {d.get('title') or '(untitled)'} "
                  f"({_where(d)}, {d.get('characters')} characters)"
                  for d in answer["documents"]]
    elif "sections" in answer:
        lines.append(f"sections of {answer.get('document_id')}:")
        lines += [f"{'  ' * max(0, s['level'] - 1)}- {s['label']}: "
                  f"{s.get('heading') or '(no heading)'} [{s['start']}-{s['end']}]"
                  for s in answer["sections"]]
    elif "results" in answer:  # ingest_file on a folder
        counts = ", ".join(f"{n} {status}" for status, n in answer["counts"].items())
        lines.append(f"{answer['folder']}: {counts or 'no files'}")
        lines += [_ingested(r) for r in answer["results"]]
    elif tool == "get_document":
        lines += _document(answer)
    elif "removed" in answer:
        removed = answer["removed"]
        lines.append(f"removed {removed['id']}: {removed.get('title') or ''}".rstrip())
    elif "text" in answer:  # read_document
        lines.append(f"{answer.get('title') or answer['document_id']} "
                     f"[{answer['start']}-{answer['end']} of {answer['characters']}]"
                     f"{_section(answer.get('section_path'))}")
        lines.append(answer["text"])
        if answer.get("next"):
            following = answer["next"]
            lines.append(f"(continues: read_document document_id={following['document_id']} "
                         f"start={following['start']} end={following['end']})")
    else:  # ingest_url
        lines.append(_ingested(answer))
    for key, count in (answer.get("omitted") or {}).items():
        if count:
            lines.append(f"({count} more {key} left out for size)")
    if answer.get("next_cursor"):
        lines.append(f"({answer['total'] - answer['shown_to']} more: call again with the "
                     f"same arguments and cursor={answer['next_cursor']})")
    return "\n".join(lines)


def _verification(record: dict[str, Any]) -> list[str]:
    """The closest passages of a failed quote or claim check, with their citations."""
    closest = [record["closest"]] if record.get("closest") else [
        s["closest"] for s in record.get("sentences", []) if s.get("closest")]
    if not closest:
        return ["(no passage of the documents is close to it)"]
    return ["closest passage (the document's own words; it does not say the request):",
            *_passages(closest, 0)]


def _passages(items: list[dict[str, Any]], first: int) -> list[str]:
    """Hits and quotes (the serialiser's records), each under its citation line."""
    lines = []
    for number, item in enumerate(items, start=first + 1):
        pages = list(item.get("pages") or [])
        pages_text = "" if not pages else f", page {pages[0]}" if len(pages) == 1 \
            else f", pages {pages[0]}-{pages[-1]}"
        lines.append(f"[{number}] {item.get('title') or item['document_id']}"
                     f"{_section(item.get('heading_path') or item.get('section_path'))}"
                     f"{pages_text}, {_where(item)}, characters {item['start']}-{item['end']} "
                     f"of {item['document_id']}")
        context = item.get("context")
        lines.append(context["text"] if isinstance(context, dict) else item["text"])
        if item.get("continues"):
            following = item["continues"]
            lines.append(f"(cut for size; read_document start={following['start']} "
                         f"end={following['end']} reads on)")
    return lines


def _section(path: list[str] | None) -> str:
    return f" § {' > '.join(path)}" if path else ""


def _where(record: dict[str, Any]) -> str:
    location = record.get("location") or {}
    return str(record.get("url") or location.get("url") or location.get("path")
               or location.get("file_name") or "no location")


def _document(record: dict[str, Any]) -> list[str]:
    """A document's record (get_document): what it is, where it came from, its size and
    versions, and what its extraction noted."""
    lines = [f"{record['id']}: {record.get('title') or '(untitled)'} ({_where(record)})",
             f"{record.get('content')} ({record.get('content_type')}), "
             f"{record.get('characters')} characters, version {record.get('version')} "
             f"of {record.get('versions')}"]
    lines += [f"- {note}" for note in record.get("diagnostics") or ()]
    return lines


def _ingested(result: dict[str, Any]) -> str:
    title = result.get("title") or result.get("source") or ""
    if result.get("error_kind"):
        return f"{result.get('status')}: {result.get('source')}: {result['error_kind']}: " \
               f"{result.get('message')}"
    return f"{result.get('status')}: {result.get('document_id')} {title}".rstrip()
