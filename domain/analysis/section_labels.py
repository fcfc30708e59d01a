"""Canonical section labels for headings: "2. Materials and Methods" is `methods`."""

from __future__ import annotations

import re

_NUMBERING = re.compile(r"^\s*(?:(?:\d+|[ivxlc]+|[a-z])(?:\.\d+)*[.):]?\s+)", re.IGNORECASE)
_PUNCTUATION = re.compile(r"[^\w\s]+")

# Most specific first: "results and discussion" before "results" and "discussion".
LABEL_PATTERNS: tuple[tuple[str, str], ...] = (
    ("results_and_discussion", r"results? (?:and|&) discussions?|resultados y discusi[oó]n|"
                               r"ergebnisse und diskussion|r[ée]sultats et discussion"),
    ("abstract", r"abstract|summary|synopsis|zusammenfassung|r[ée]sum[ée]|resumen|"
                 r"kurzfassung|graphical abstract|highlights"),
    ("keywords", r"key ?words?|index terms|schl[üu]sselw[öo]rter|mots[ -]cl[ée]s|"
                 r"palabras clave"),
    ("introduction", r"introduction|einleitung|einf[üu]hrung|introducci[óo]n|overview|"
                     r"motivation"),
    ("background", r"background|preliminaries|hintergrund|contexte|antecedentes|"
                   r"theoretical (?:background|framework)"),
    ("related_work", r"related (?:work|research|literature)|literature review|prior work|"
                     r"previous work|state of the art|stand der forschung|"
                     r"travaux (?:connexes|ant[ée]rieurs)|trabajos? relacionados?"),
    ("methods", r"(?:materials?|patients?|subjects?|participants?) and methods?|methods?|"
                r"methodology|methodologies|experimental(?: (?:setup|design|section|"
                r"procedures?))?|approach|study design|methoden|m[ée]thodes?|"
                r"m[ée]thodologie|m[ée]todos?|metodolog[ií]a|materiales y m[ée]todos|"
                r"mat[ée]riel et m[ée]thodes"),
    ("results", r"results?|findings|experiments?(?: and results)?|evaluation|ergebnisse|"
                r"r[ée]sultats|resultados"),
    ("discussion", r"discussions?|diskussion|discusi[óo]n|general discussion"),
    ("conclusion", r"conclusions?|concluding remarks|summary and conclusions?|"
                   r"conclusions? and (?:future work|outlook|perspectives)|future work|"
                   r"fazit|schlussfolgerungen?|schluss|conclusiones?"),
    ("limitations", r"limitations?(?: of (?:the|this) study)?|strengths and limitations|"
                    r"threats to validity|einschr[äa]nkungen|limites|limitaciones"),
    ("acknowledgements", r"acknowledge?ments?|acknowledgments?|thanks|danksagung|"
                         r"remerciements|agradecimientos"),
    ("funding", r"funding(?: information| sources?| statement)?|financial support|"
                r"finanzierung|financement|financiaci[óo]n"),
    ("declarations", r"declarations?|ethics(?: approval| statement| declarations?)?|"
                     r"(?:competing|conflicts?) of interests?|conflict of interest statement|"
                     r"competing interests?|author(?:s'?|s’)? contributions?|contributions|"
                     r"data availability(?: statement)?|availability of data(?: and "
                     r"materials?)?|consent(?: for publication)?|informed consent statement|"
                     r"institutional review board statement|credit authorship contribution "
                     r"statement|code availability"),
    ("references", r"references?(?: and notes)?|bibliography|literature cited|works cited|"
                   r"cited literature|literaturverzeichnis|literatur|r[ée]f[ée]rences|"
                   r"bibliographie|referencias|bibliograf[ií]a"),
    ("appendix", r"appendi(?:x|ces)(?: [a-z0-9]+)?|anhang|annexe|ap[ée]ndice"),
    ("supplementary", r"supplementary(?: (?:material|materials|information|data|files?))?|"
                      r"supporting information|supplemental(?: information| material)?|"
                      r"additional files?|electronic supplementary material"),
)
_COMPILED = tuple((label, re.compile(rf"^(?:{pattern})$")) for label, pattern in LABEL_PATTERNS)
_PREFIX = tuple((label, re.compile(rf"^(?:{pattern})\b")) for label, pattern in LABEL_PATTERNS
                if label in ("methods", "results", "discussion", "conclusion", "appendix",
                             "supplementary"))

# Words that name a canonical section when they head one of its own, but are also common
# subsection titles ("3.1 Overview" of the methods): a subsection so titled keeps its
# parent's label.
WEAK_NAMES = frozenset({
    "overview", "motivation", "approach", "summary", "synopsis", "evaluation", "findings",
    "experiment", "experiments", "highlights", "thanks", "contributions", "future work",
    "experimental", "schluss", "limites",
})
# Banners of a journal page: article types and access labels, never a section's name.
_ARTICLE_TYPE = re.compile(
    r"^(?:(?:original|research|review|methods?|methodology|software|database|technical|"
    r"data|short|brief|rapid|full|regular|invited|special|focused|mini|systematic|"
    r"clinical|case|open|free|editorial|perspective|opinion|hypothesis|commentary)"
    r"(?: (?:research|review|article|paper|report|communication|note|letter|access|"
    r"contribution|study|articles|reports))+|research|article|review|open access|"
    r"letter|editorial|correspondence|perspective|commentary|case report|erratum|"
    r"corrigendum|retraction|viewpoint|preprint|(?:this )?article is open access)$")

AFTER_REFERENCES = frozenset({"appendix", "supplementary", "acknowledgements", "funding",
                              "declarations"})
SCIENTIFIC_CORE = frozenset({"introduction", "methods", "results", "discussion",
                             "conclusion", "references", "results_and_discussion"})


def normalise_heading(text: str) -> str:
    """Lower case, numbering ("2.3", "IV.", "A.") and punctuation removed."""
    stripped = _NUMBERING.sub("", text.strip())
    return " ".join(_PUNCTUATION.sub(" ", stripped.lower().replace("&", " and ")).split())


def is_article_type(text: str) -> bool:
    """Whether a heading is a journal's banner ("Research Article", "Open Access",
    "Methodology article") rather than a section's name."""
    return bool(_ARTICLE_TYPE.match(normalise_heading(text)))


def is_weak_name(text: str) -> bool:
    """Whether a heading's label comes from a word that is also a common subsection
    title ("Overview", "Approach", "Evaluation")."""
    return normalise_heading(text) in WEAK_NAMES


def section_number(text: str) -> tuple[str, ...]:
    """The heading's number as parts: "3.1 Overview" is ("3", "1"); none is ()."""
    match = re.match(r"^\s*(\d+(?:\.\d+)*)\.?\s", text)
    return tuple(match.group(1).split(".")) if match else ()


def label_heading(text: str) -> str:
    """The canonical label of a heading, or `other` (always for a banner)."""
    key = normalise_heading(text)
    if _ARTICLE_TYPE.match(key):
        return "other"
    for label, pattern in _COMPILED:
        if pattern.match(key):
            return label
    # "Methods for estimating X", "Results of the survey": the label word leads.
    for label, pattern in _PREFIX:
        if pattern.match(key) and len(key.split()) <= 6:
            return label
    return "other"
