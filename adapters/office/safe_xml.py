"""Parsing XML from untrusted containers with every entity declaration refused.

OOXML and EPUB parts never need a DTD with entities; a part that declares them is
trying an exponential expansion ("billion laughs") or to pull in a local file or URL
(external entities). expat is driven directly so such a declaration stops the parse
with a typed error instead of being expanded or ignored.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, TreeBuilder
from xml.parsers import expat

from ...domain.errors import ErrorKind, SheafError


class _Refused(Exception):
    pass


def parse_xml(data: bytes, part: str) -> Element:
    """The element tree of `data`, tags as `{namespace}local`; `unsafe_content` for any
    entity or internal DTD subset, `corrupt` for XML that does not parse."""
    builder = TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")

    def start(tag: str, attributes: dict[str, str]) -> None:
        builder.start(_clark(tag), {_clark(k): v for k, v in attributes.items()})

    def end(tag: str) -> None:
        builder.end(_clark(tag))

    def doctype(name: str, system_id: str | None, public_id: str | None,
                has_internal_subset: bool) -> None:
        if has_internal_subset or system_id:
            raise _Refused(f"{part} declares a document type with its own definitions")

    def entity(*_: object) -> None:
        raise _Refused(f"{part} declares XML entities (entity expansion or external "
                       "entities)")

    def external(*_: object) -> int:
        raise _Refused(f"{part} references an external entity")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.ExternalEntityRefHandler = external
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except _Refused as exc:
        raise SheafError(ErrorKind.UNSAFE_CONTENT, str(exc)) from None
    except expat.ExpatError as exc:
        raise SheafError(ErrorKind.CORRUPT, f"{part} is not well-formed XML: {exc}") from None
    root: Element = builder.close()
    return root


def _clark(name: str) -> str:
    namespace, separator, local = name.rpartition("}")
    return "{" + namespace + "}" + local if separator else name
