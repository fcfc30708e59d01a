"""Bearer tokens that reach one space, to read it or to write it too (`SHEAF_API_TOKENS`).

One entry per token, `SPACE:read:TOKEN` or `SPACE:write:TOKEN`, entries apart by
whitespace or commas; `*` as the space reaches every space. The token is last, so it may
hold colons (never whitespace or commas). `SHEAF_API_TOKEN`, the single token of before,
still reaches every space to read and write."""

from __future__ import annotations

import re

import attrs

from ...domain.errors import configuration_error
from .bearer_token import bearer_matches

EVERY_SPACE = "*"
_ENTRY = re.compile(r"(?P<space>[^:\s,]+):(?P<mode>read|write):(?P<token>[^\s,]+)")


@attrs.frozen
class TokenScope:
    """What one bearer token may do: read `space` (every space for `*`), and write it
    too when `write`."""

    token: str = attrs.field(repr=False)
    space: str
    write: bool

    def allows(self, space: str, writing: bool) -> bool:
        return self.space in (space, EVERY_SPACE) and (self.write or not writing)

    def describe(self) -> str:
        where = "every space" if self.space == EVERY_SPACE else f"space {self.space!r}"
        return f"{'read and write' if self.write else 'read'} {where}"


def parse_token_scopes(text: str | None, variable: str = "SHEAF_API_TOKENS"
                       ) -> tuple[TokenScope, ...]:
    """The scopes `text` lists; a configuration error naming the entry that is not
    `SPACE:read|write:TOKEN`, or a token given twice."""
    scopes: list[TokenScope] = []
    for entry in (text or "").replace(",", " ").split():
        found = _ENTRY.fullmatch(entry)
        if found is None:
            shown = entry.split(":")[0] + ":…" if ":" in entry else "…"
            raise configuration_error(variable, f"wants SPACE:read:TOKEN or "
                                                f"SPACE:write:TOKEN entries, not {shown!r}")
        scopes.append(TokenScope(found["token"], found["space"], found["mode"] == "write"))
    tokens = [s.token for s in scopes]
    if len(set(tokens)) != len(tokens):
        raise configuration_error(variable, "names one token twice: give each token "
                                            "one scope")
    return tuple(scopes)


def scope_of(header: str, token: str | None, scopes: tuple[TokenScope, ...]
             ) -> TokenScope | None:
    """The scope an `Authorization` header's bearer token has: the unscoped `token`
    reaches everything; None for a missing or unknown token. Every token is compared (in
    constant time), so how many are configured does not show in the time taken."""
    found: TokenScope | None = None
    if token is not None and bearer_matches(header, token):
        found = TokenScope(token, EVERY_SPACE, True)
    for scope in scopes:
        if bearer_matches(header, scope.token) and found is None:
            found = scope
    return found




def is_write(method: str, path: str) -> bool:
    """Whether a request changes the store: ingesting or deleting documents (a quote is
    a POST that only reads)."""
    return path.startswith("/v1/documents") and method in ("POST", "PUT", "PATCH", "DELETE")
