"""An email message as one document: its headers, its body, and each attachment read
as the child document it is (under an "Attachment: name" heading), or named in the
notes when it cannot be read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document, Link
from ...domain.document.extraction_budget import ExtractionBudget
from ...domain.document.fallback_title import TITLE_NOTES
from ...domain.document.link_list import with_link_list
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.metadata import DocumentMetadata
from ...domain.document.omissions import LEFT_OUT_PREFIX, Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.mail.mail_message import MailAttachment, MailMessage
from ...domain.text.raw_text import raw_document

ReadHtml = Callable[[bytes, "str | None"], Awaitable[Document]]
ReadAttachment = Callable[[MailAttachment], Awaitable[Document]]


async def mail_document(message: MailMessage, *, read_html: ReadHtml,
                        read_attachment: ReadAttachment,
                        budget: ExtractionBudget | None = None) -> Document:
    """The message's document: a heading (its subject), a paragraph per shown header,
    the body's blocks, then each attachment's blocks one level below its heading.

    `budget` is the message's running budget, which `read_attachment` spends from too:
    an attachment refused on its own is named in the notes and the rest is read, but once
    the message as a whole is past its budget the message is `too_large`."""
    budget = budget if budget is not None else ExtractionBudget()
    tally = OmissionTally()
    tally.add(Omission.ALTERNATIVE_BODY, message.alternatives)
    tally.add(Omission.IMAGE_WITHOUT_TEXT, message.inline_images)
    notes: list[str] = []
    links: list[Link] = []
    drafts = [BlockDraft(BlockKind.HEADING, text=message.subject or "(no subject)", level=1)]
    drafts += [BlockDraft(BlockKind.PARAGRAPH, text=f"{name}: {value}")
               for name, value in message.headers if name != "Subject"]
    body = await _body(message, read_html)
    if body is not None:
        budget.spend_characters(len(body.text), "the message's body")
        drafts += _below(body, 1)
        links += body.links
    for attachment in message.attachments:
        try:
            child = await read_attachment(attachment)
        except SheafError as exc:
            if budget.exhausted:
                raise SheafError(ErrorKind.TOO_LARGE,
                                 f"the message with its attachments is too large: reading "
                                 f"attachment {attachment.name}, {exc.message}") from None
            tally.add(Omission.ATTACHMENT)
            notes.append(f"attachment {attachment.name} ({attachment.media_type}) not read: "
                         f"{exc.kind.value}: {exc.message}")
            continue
        drafts.append(BlockDraft(BlockKind.HEADING, text=f"Attachment: {attachment.name}",
                                 level=2))
        drafts += _below(child, 2)
        links += child.links
        # The child's own account of what it left out; its title is its heading here.
        notes += [f"attachment {attachment.name}: {n}" for n in child.notes
                  if n != LEFT_OUT_PREFIX + "nothing" and n not in TITLE_NOTES]
    metadata = DocumentMetadata(title=message.subject,
                                authors=(message.sender,) if message.sender else (),
                                published=message.date[:10] if message.date else None)
    # One list of the message's links (its body's and its attachments'), at the end.
    drafts = with_link_list(drafts, links)
    return assemble_document(drafts, metadata=metadata, links=links,
                             notes=[*notes, tally.note()])


async def _body(message: MailMessage, read_html: ReadHtml) -> Document | None:
    if message.text is not None and message.text.strip():
        return raw_document(message.text, "text/plain")
    if message.html is not None:
        try:
            return await read_html(message.html, message.html_charset)
        except SheafError as exc:
            if exc.kind is not ErrorKind.EMPTY:
                raise
    return None


def _below(document: Document, levels: int) -> list[BlockDraft]:
    """The document's blocks with its headings `levels` deeper (at most 6)."""
    return [attrs.evolve(b.draft, level=min(b.draft.level + levels, 6))
            if b.kind is BlockKind.HEADING else b.draft for b in document.blocks]
