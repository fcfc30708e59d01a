from __future__ import annotations

import pytest

from sheaf.domain.analysis.section_labels import label_heading, normalise_heading


@pytest.mark.parametrize(("heading", "label"), [
    ("Abstract", "abstract"), ("1. Introduction", "introduction"), ("II. BACKGROUND", "background"),
    ("2.3 Related Work", "related_work"), ("Literature review", "related_work"),
    ("Materials and methods", "methods"), ("2 Methodology", "methods"),
    ("Experimental", "methods"), ("Patients and Methods", "methods"),
    ("3. Results", "results"), ("Results and Discussion", "results_and_discussion"),
    ("4 DISCUSSION", "discussion"), ("Concluding remarks", "conclusion"),
    ("5. Conclusions", "conclusion"), ("Limitations", "limitations"),
    ("Acknowledgments", "acknowledgements"), ("Funding", "funding"),
    ("Competing interests", "declarations"), ("Authors’ contributions", "declarations"),
    ("Data Availability Statement", "declarations"), ("Ethics declarations", "declarations"),
    ("References", "references"), ("Bibliography", "references"),
    ("Works cited", "references"), ("Appendix A", "appendix"),
    ("Supporting information", "supplementary"), ("A. Supplementary material", "supplementary"),
    ("Einleitung", "introduction"), ("Ergebnisse", "results"), ("Literaturverzeichnis",
                                                                 "references"),
    ("Résultats", "results"), ("Méthodes", "methods"), ("Remerciements", "acknowledgements"),
    ("Introducción", "introduction"), ("Discusión", "discussion"),
    ("Conclusiones", "conclusion"), ("Métodos", "methods"),
    ("Methods for estimating drift", "methods"), ("The apparent acceleration", "other"),
    ("Keywords", "keywords"),
])
def test_labels(heading: str, label: str) -> None:
    assert label_heading(heading) == label


def test_normalisation() -> None:
    assert normalise_heading("2.3. Data & Code:") == "data and code"
    assert normalise_heading("IV. RESULTS") == "results"
