"""Parsing XML from untrusted containers with every entity declaration refused.

OOXML, OpenDocument and EPUB parts never need a DTD with entities; a part that declares
them is trying an exponential expansion ("billion laughs") or to pull in a local file or
URL (external entities). expat is driven directly so such a declaration stops the parse
with a typed error instead of being expanded or ignored.

EPUB 2 books (their NCX and XHTML chapters) and XHTML 1.x name a standard public DTD in
their DOCTYPE. Those DOCTYPEs are accepted by their public identifier and nothing is
ever fetched: the DTD's named character entities (`&nbsp;`, `&eacute;`) are resolved
from the HTML entity table, which is what those DTDs define them as. An internal subset
or an unknown external DTD stays refused.

OOXML files saved as ISO 29500 Strict name their vocabularies under
`purl.oclc.org/ooxml/`; their tags are read under the Transitional namespaces.
"""

from __future__ import annotations

from html.entities import name2codepoint
from xml.etree.ElementTree import Element, TreeBuilder
from xml.parsers import expat

from ...domain.errors import ErrorKind, SheafError

PUBLIC_DOCTYPES = frozenset({
    "-//NISO//DTD ncx 2005-1//EN",
    "-//W3C//DTD XHTML 1.0 Strict//EN",
    "-//W3C//DTD XHTML 1.0 Transitional//EN",
    "-//W3C//DTD XHTML 1.0 Frameset//EN",
    "-//W3C//DTD XHTML 1.1//EN",
    "-//W3C//DTD XHTML Basic 1.0//EN",
    "-//W3C//DTD XHTML Basic 1.1//EN",
    "-//W3C//DTD XHTML 1.1 plus MathML 2.0//EN",
    "-//W3C//DTD XHTML 1.1 plus MathML 2.0 plus SVG 1.1//EN",
    "-//W3C//DTD XHTML+RDFa 1.0//EN",
    "-//W3C//DTD SVG 1.1//EN",
    "+//ISBN 0-9673008-1-9//DTD OEB 1.0.1 Package//EN",
    "+//ISBN 0-9673008-1-9//DTD OEB 1.0.1 Document//EN",
    "-//OASIS//DTD DocBook XML V4.5//EN",
})
"""Public identifiers of the DTDs EPUB 2, OEB and XHTML 1.x documents name: standard
DTDs that declare markup and character entities only, never fetched."""


class _Refused(Exception):
    pass


def parse_xml(data: bytes, part: str) -> Element:
    """The element tree of `data`, tags as `{namespace}local`; `unsafe_content` for any
    entity declaration, internal DTD subset or unknown external DTD, `corrupt` for XML
    that does not parse."""
    builder = TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")
    public_dtd = [False]

    def start(tag: str, attributes: dict[str, str]) -> None:
        builder.start(_clark(tag), {_clark(k): v for k, v in attributes.items()})

    def end(tag: str) -> None:
        builder.end(_clark(tag))

    def doctype(name: str, system_id: str | None, public_id: str | None,
                has_internal_subset: bool) -> None:
        if has_internal_subset:
            raise _Refused(f"{part} declares a document type with its own definitions "
                           "(an internal DTD subset)")
        if public_id is not None and " ".join(public_id.split()) in PUBLIC_DOCTYPES:
            public_dtd[0] = True
        elif system_id or public_id:
            raise _Refused(f"{part} names an external DTD sheaf does not know "
                           f"({public_id or system_id!r}); only the public DOCTYPEs of "
                           "EPUB 2, NCX and XHTML 1.x are accepted")

    def entity(*_: object) -> None:
        raise _Refused(f"{part} declares XML entities (entity expansion or external "
                       "entities)")

    def external(*_: object) -> int:
        raise _Refused(f"{part} references an external entity")

    def skipped(name: str, is_parameter: bool) -> None:
        # Only reached under a public DTD (expat skips entities it cannot see defined
        # when the document names an external subset it does not read).
        codepoint = name2codepoint.get(name)
        if is_parameter or codepoint is None or not public_dtd[0]:
            raise _Refused(f"{part} uses the entity &{name}; that no known DTD defines")
        builder.data(chr(codepoint))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.ExternalEntityRefHandler = external
    parser.SkippedEntityHandler = skipped
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except _Refused as exc:
        raise SheafError(ErrorKind.UNSAFE_CONTENT, str(exc)) from None
    except expat.ExpatError as exc:
        raise SheafError(ErrorKind.CORRUPT, f"{part} is not well-formed XML: {exc}") from None
    root: Element = builder.close()
    return root


_STRICT = "http://purl.oclc.org/ooxml/"


def _clark(name: str) -> str:
    namespace, separator, local = name.rpartition("}")
    if not separator:
        return name
    if namespace.startswith(_STRICT):
        namespace = _transitional(namespace)
    return "{" + namespace + "}" + local


def _transitional(namespace: str) -> str:
    """ISO 29500 Strict's namespace for an OOXML vocabulary as its Transitional one
    (`purl.oclc.org/ooxml/wordprocessingml/main` is
    `schemas.openxmlformats.org/wordprocessingml/2006/main`): the elements are the
    same, so one reader serves both."""
    area, _, rest = namespace[len(_STRICT):].partition("/")
    if not rest:
        return namespace
    return f"http://schemas.openxmlformats.org/{area}/2006/{rest}"
