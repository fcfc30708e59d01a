"""Which representation to ask for first: PDF from scholarly hosts, HTML elsewhere."""

from __future__ import annotations

from urllib.parse import urlsplit

PDF_FIRST = "application/pdf, text/html;q=0.9, */*;q=0.1"
HTML_FIRST = "text/html, application/xhtml+xml;q=0.9, application/pdf;q=0.8, */*;q=0.1"

SCHOLARLY_HOSTS = frozenset(
    {
        # DOI resolvers and preprint servers
        "doi.org", "dx.doi.org", "arxiv.org", "export.arxiv.org", "biorxiv.org", "medrxiv.org",
        "chemrxiv.org", "osf.io", "ssrn.com", "papers.ssrn.com", "hal.science",
        "researchsquare.com", "preprints.org",
        # publishers and aggregators
        "link.springer.com", "springeropen.com", "biomedcentral.com", "nature.com",
        "sciencedirect.com", "cell.com", "onlinelibrary.wiley.com", "journals.plos.org",
        "frontiersin.org", "mdpi.com", "tandfonline.com", "journals.sagepub.com", "sagepub.com",
        "pubs.acs.org", "pubs.rsc.org", "ieeexplore.ieee.org", "dl.acm.org", "jstor.org",
        "academic.oup.com", "elifesciences.org", "peerj.com", "science.org", "pnas.org",
        "cambridge.org", "journals.aps.org", "iopscience.iop.org", "bmj.com", "thelancet.com",
        "jamanetwork.com", "nejm.org", "hindawi.com", "aclanthology.org", "openreview.net",
        "proceedings.mlr.press", "papers.nips.cc", "proceedings.neurips.cc", "semanticscholar.org",
        "europepmc.org", "pmc.ncbi.nlm.nih.gov", "pubmed.ncbi.nlm.nih.gov",
    }
)
_NCBI = "ncbi.nlm.nih.gov"


def is_scholarly_host(url: str) -> bool:
    """True for DOI resolvers, preprint servers and publishers on the maintained list."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().rstrip(".")
    if any(host == h or host.endswith("." + h) for h in SCHOLARLY_HOSTS):
        return True
    # www.ncbi.nlm.nih.gov hosts far more than papers; only its /pmc/ tree is scholarly.
    return (host == _NCBI or host.endswith("." + _NCBI)) and parts.path.startswith("/pmc")


def accept_header_for(url: str) -> str:
    """The Accept header to send: PDF first for scholarly hosts, HTML first otherwise."""
    return PDF_FIRST if is_scholarly_host(url) else HTML_FIRST
