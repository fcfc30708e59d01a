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

AFTER_REFERENCES = frozenset({"appendix", "supplementary", "acknowledgements", "funding",
                              "declarations"})
SCIENTIFIC_CORE = frozenset({"introduction", "methods", "results", "discussion",
                             "conclusion", "references", "results_and_discussion"})


def normalise_heading(text: str) -> str:
    """Lower case, numbering ("2.3", "IV.", "A.") and punctuation removed."""
    stripped = _NUMBERING.sub("", text.strip())
    return " ".join(_PUNCTUATION.sub(" ", stripped.lower().replace("&", " and ")).split())


def label_heading(text: str) -> str:
    """The canonical label of a heading, or `other`."""
    key = normalise_heading(text)
    for label, pattern in _COMPILED:
        if pattern.match(key):
            return label
    # "Methods for estimating X", "Results of the survey": the label word leads.
    for label, pattern in _PREFIX:
        if pattern.match(key) and len(key.split()) <= 6:
            return label
    return "other"
