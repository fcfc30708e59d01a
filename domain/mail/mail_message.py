"""An email message (RFC 5322 with MIME parts) taken apart: the headers a reader sees,
its text body (or HTML body when it has no text one), and its attachments' bytes.

The standard library's parser reads the message (no I/O); this module only decides
which part is the body, which parts are attachments and which are alternatives of the
body (an HTML copy of the text), and bounds how many parts a message may have.
"""

from __future__ import annotations

import email.errors
import email.policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

import attrs

from ..errors import ErrorKind, SheafError

SHOWN_HEADERS = ("From", "To", "Cc", "Date", "Subject")
MAX_PARTS = 500
_PARSE_ERRORS = (email.errors.MessageError, ValueError, TypeError, LookupError,
                 AttributeError, IndexError, UnicodeError)


@attrs.frozen
class MailAttachment:
    """A part the sender attached (or a message forwarded inside this one)."""

    name: str
    media_type: str
    data: bytes


@attrs.frozen
class MailMessage:
    """What a reader of the message sees, in order."""

    headers: tuple[tuple[str, str], ...]
    subject: str | None
    sender: str | None
    date: str | None
    """ISO 8601, when the Date header parses."""
    text: str | None
    html: bytes | None
    html_charset: str | None
    attachments: tuple[MailAttachment, ...]
    alternatives: int
    """Bodies left out because they repeat the one kept (an HTML copy of the text)."""
    inline_images: int


def parse_mail(body: bytes) -> MailMessage:
    """The message in `body`; `corrupt` when it has no headers, `too_large` past
    `MAX_PARTS` parts."""
    try:
        message = BytesParser(policy=email.policy.default).parsebytes(body)
        return _taken_apart(message)
    except SheafError:
        raise
    except _PARSE_ERRORS as exc:
        raise SheafError(ErrorKind.CORRUPT, f"not a readable email message: {exc}") from None


def _taken_apart(message: Message) -> MailMessage:
    if not message.keys():
        raise SheafError(ErrorKind.CORRUPT, "not an email message: it has no headers")
    shown = ((name, _header(message, name)) for name in SHOWN_HEADERS)
    headers = tuple((name, value) for name, value in shown if value)
    parts = list(message.walk())
    if len(parts) > MAX_PARTS:
        raise SheafError(ErrorKind.TOO_LARGE,
                         f"the message has {len(parts)} MIME parts, over {MAX_PARTS}")
    text: str | None = None
    html: bytes | None = None
    html_charset: str | None = None
    attachments: list[MailAttachment] = []
    text_parts = html_parts = inline_images = 0
    for part in _leaves(message):
        media = part.get_content_type()
        disposition = part.get_content_disposition()
        filename = part.get_filename()
        if media == "message/rfc822":
            inner = part.get_payload()
            nested = inner[0] if isinstance(inner, list) and inner else None
            data = nested.as_bytes() if isinstance(nested, Message) else b""
            name = filename or (str(nested["Subject"]) if isinstance(nested, Message)
                                and nested["Subject"] else "forwarded message")
            attachments.append(MailAttachment(f"{name}", media, data))
            continue
        if disposition == "attachment" or (filename and disposition != "inline"):
            attachments.append(MailAttachment(filename or "attachment", media,
                                              _payload(part)))
            continue
        if media == "text/plain":
            text_parts += 1
            if text is None:
                text = _text(part)
            else:
                text += "\n\n" + _text(part)
        elif media == "text/html":
            html_parts += 1
            if html is None:
                html, html_charset = _payload(part), part.get_content_charset()
        elif media.startswith("image/"):
            inline_images += 1
        elif filename:
            attachments.append(MailAttachment(filename, media, _payload(part)))
    # An HTML part beside a text part repeats it (multipart/alternative): the text is
    # what the author wrote, the HTML copy is counted as left out.
    alternatives = html_parts if text_parts else max(html_parts - 1, 0)
    if text is not None:
        html = None
    date = None
    raw_date = message["Date"]
    if raw_date is not None:
        try:
            date = parsedate_to_datetime(str(raw_date)).isoformat()
        except (TypeError, ValueError, IndexError):
            date = None
    subject = _header(message, "Subject") or None
    sender = _header(message, "From") or None
    return MailMessage(headers, subject, sender, date, text, html, html_charset,
                       tuple(attachments), alternatives, inline_images)


def _header(message: Message, name: str) -> str:
    """A header's text, white space collapsed. Raw 8-bit bytes (sent without RFC 2047
    encoding, as old clients do) are read in the message's charset, else Windows-1252,
    instead of as replacement characters."""
    value = message[name]
    if value is None:
        return ""
    text = str(value)
    if "\ufffd" in text or any("\udc80" <= c <= "\udcff" for c in text):
        raw = next((v for k, v in message.raw_items() if k.lower() == name.lower()), "")
        data = str(raw).encode("utf-8", "surrogateescape")
        for charset in (message.get_content_charset() or "utf-8", "cp1252"):
            try:
                text = data.decode(charset)
                break
            except (UnicodeDecodeError, LookupError):
                continue
    return " ".join(text.split())


def _leaves(message: Message) -> list[Message]:
    """The parts that hold content, a forwarded message counted as one part."""
    if message.get_content_type() == "message/rfc822":
        return [message]
    if message.is_multipart():
        payload = message.get_payload()
        found: list[Message] = []
        for part in payload if isinstance(payload, list) else []:
            if isinstance(part, Message):
                found += _leaves(part)
        return found
    return [message]


def _payload(part: Message) -> bytes:
    data = part.get_payload(decode=True)
    return data if isinstance(data, bytes) else b""


def _text(part: Message) -> str:
    if isinstance(part, EmailMessage):
        try:
            content = part.get_content()
            if isinstance(content, str):
                return content
        except _PARSE_ERRORS:
            pass
    charset = part.get_content_charset() or "utf-8"
    try:
        return _payload(part).decode(charset, "replace")
    except LookupError:
        return _payload(part).decode("utf-8", "replace")
