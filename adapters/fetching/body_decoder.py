"""Decoding a Content-Encoding incrementally without ever holding more than the cap."""

from __future__ import annotations

import zlib

from ...domain.errors import ErrorKind, SheafError

ACCEPT_ENCODING = "gzip, deflate"


class CappedBody:
    """Accumulates a body chunk by chunk, decompressing as it goes.

    Both the bytes received and the bytes decompressed are held to `max_bytes`;
    each decompression step is asked for at most the remaining allowance plus one
    byte, so a bomb is stopped after one bounded step, not after inflating.
    """

    def __init__(self, encoding: str | None, max_bytes: int, url: str) -> None:
        self._max = max_bytes
        self._url = url
        self._received = 0
        self._parts: list[bytes] = []
        self._size = 0
        coding = (encoding or "identity").strip().lower()
        if coding in ("gzip", "x-gzip"):
            self._inflater: zlib._Decompress | None = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            # Servers send either zlib-wrapped or raw deflate under this name; 32 + MAX_WBITS
            # auto-detects zlib and gzip headers, raw deflate is retried below.
            self._inflater = zlib.decompressobj(32 + zlib.MAX_WBITS)
        elif coding in ("identity", ""):
            self._inflater = None
        else:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"unsupported Content-Encoding {encoding!r}", url=url)
        self._raw_fallback = coding == "deflate"
        self._started = False

    def feed(self, chunk: bytes) -> None:
        self._received += len(chunk)
        if self._received > self._max:
            self._too_large("received")
        if self._inflater is None:
            self._append(chunk)
            return
        data = chunk
        while data:
            try:
                out = self._inflater.decompress(data, self._max - self._size + 1)
            except zlib.error as exc:
                if self._raw_fallback and not self._started:
                    self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._raw_fallback = False
                    continue
                raise SheafError(ErrorKind.CORRUPT, f"undecodable compressed body: {exc}",
                                 url=self._url) from None
            self._started = True
            self._append(out)
            data = self._inflater.unconsumed_tail
            if self._inflater.eof:
                break

    def finish(self) -> bytes:
        if self._inflater is not None and not self._inflater.eof and self._started:
            self._append(self._inflater.flush(self._max - self._size + 1))
        return b"".join(self._parts)

    def _append(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self._max:
            self._too_large("decompressed")
        if data:
            self._parts.append(data)

    def _too_large(self, what: str) -> None:
        self._parts.clear()
        raise SheafError(ErrorKind.TOO_LARGE,
                         f"body exceeds the {self._max} byte limit ({what})", url=self._url)
