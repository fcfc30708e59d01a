"""`sheaf verify CLAIM`: does any stored document say this?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..api import serialisation
from ..api.serialisation import as_received
from ..api.settings import READING
from .cli_options import json_option, settings_for, store_options
from .cli_session import echo_json, with_knowledge_api

if TYPE_CHECKING:
    from ..api.knowledge_api import KnowledgeApi


def register(group: click.Group) -> None:
    group.add_command(verify)


@click.command()
@click.argument("claim")
@click.option("--doc", "documents", multiple=True, metavar="DOC",
              help="only this document (id, URL or path); repeat for several")
@click.option("--k", "k", type=click.IntRange(min=1, max=50), default=5, show_default=True,
              help="passages searched for each sentence of the claim")
@json_option
@store_options
def verify(claim: str, documents: tuple[str, ...], k: int, as_json: bool,
           store: Path | None, space: str, embedder: str | None) -> None:
    """Check CLAIM against the stored documents, sentence by sentence.

    Each sentence is verified (the passage, with its citation) only when a document has
    its words exactly or with tolerated differences (spacing, line breaks, line-end
    hyphens, invisible characters, ligatures, typographic quotes and dashes, Unicode
    normalisation, citation markers, the first letter's case, a closing stop). Otherwise
    it is not_verified (the closest passage and what differs: a number, a negation, a
    replaced, missing or extra word, a unit, the order) or not_found. Exit 0 only when
    every sentence is verified, 1 otherwise."""
    from .exit_codes import EXIT_FAILED
    from .verification_output import citation, echo_closest, echo_failure

    async def work(kb: KnowledgeApi) -> int | None:
        found = as_received(serialisation.claim_check(await kb.verify(
            claim, document=list(documents) or None, k=k)))
        if as_json:
            echo_json(found)
        else:
            for checked in found["sentences"]:
                click.echo(f"{checked['status']}: {checked['sentence']}")
                for passage in checked["support"]:
                    click.echo(f"   {passage['text']}")
                    click.echo(f"   {citation(passage)}")
                if checked["status"] != "verified":
                    echo_closest(checked["closest"], checked["status"])
        if found["status"] == "verified":
            return None
        failed = sum(s["status"] != "verified" for s in found["sentences"])
        echo_failure("claim_not_verified", f"{failed} of {len(found['sentences'])} "
                                           f"sentences not verified ({found['status']})")
        return EXIT_FAILED

    with_knowledge_api(settings_for(READING, store=store, space=space, embedder=embedder),
                       work)
