"""The prompts the MCP server offers: the tasks sheaf is for, written as instructions a
model follows with sheaf's tools, so that every answer ends in verbatim quotes with their
citations (and says so when the knowledge base does not hold the passage)."""

from __future__ import annotations

import attrs

from ...domain.errors import ErrorKind, SheafError

_CITE = ("Cite every passage you use as get_exact_quote returns it: the exact words, the "
         "title, the URL or path, the section, the pages and the character offsets. When "
         "get_exact_quote answers quote_not_found, the words are not in the document: say "
         "so, and never present a paraphrase as a quote.")


@attrs.frozen
class PromptArgument:
    name: str
    description: str
    required: bool = True


@attrs.frozen
class Prompt:
    """A prompt by name: what it is for, its arguments and the text it gives, with
    `{argument}` where each argument's value goes."""

    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    text: str

    def render(self, given: dict[str, str] | None) -> str:
        """The prompt's text with `given`'s values in; a missing required argument, or
        one the prompt does not take, is `invalid_query` naming it."""
        given = dict(given or {})
        known = {argument.name for argument in self.arguments}
        unknown = sorted(set(given) - known)
        if unknown:
            raise SheafError(ErrorKind.INVALID_QUERY, f"prompt {self.name} takes no "
                             f"argument {', '.join(unknown)} (it takes "
                             f"{', '.join(sorted(known))})")
        values = {}
        for argument in self.arguments:
            value = (given.get(argument.name) or "").strip()
            if not value and argument.required:
                raise SheafError(ErrorKind.INVALID_QUERY,
                                 f"prompt {self.name} needs {argument.name}: "
                                 f"{argument.description}")
            values[argument.name] = value
        text = self.text
        if "document_id" in values and not values["document_id"]:
            text = text.replace("{scope}", "the knowledge base")
        else:
            text = text.replace("{scope}", "document {document_id}")
        return text.format(**values)


PROMPTS = {prompt.name: prompt for prompt in (
    Prompt(
        "cite_passage", "Cite a passage",
        "Find the passage that says something and quote it verbatim with its citation.",
        (PromptArgument("topic", "what the passage should say, in your own words"),
         PromptArgument("document_id", "a document id, URL or path to look in (default: "
                        "every document)", required=False)),
        "Find where {scope} says: {topic}\n\n"
        "Search with search_knowledge (add document_id to keep to one document), read the "
        "best hits in their context with read_document, then quote the passage that says "
        "it with get_exact_quote, using the hit's own words as text. " + _CITE),
    Prompt(
        "summarise_document", "Summarise a document with citations",
        "A short summary of one document in which every statement carries a quote.",
        (PromptArgument("document_id", "the document's id, URL or path"),),
        "Summarise {scope} in a few short paragraphs.\n\n"
        "Read its sections with get_sections and their text with read_document (its "
        "answers say where to read on). Back every statement of the summary with a "
        "verbatim quote from get_exact_quote, given after the statement. Leave out what "
        "you cannot quote. " + _CITE),
    Prompt(
        "check_claim", "Check a claim against the sources",
        "Whether the stored documents support a claim, contradict it or say nothing of it, "
        "with the quotes that show it.",
        (PromptArgument("claim", "the statement to check"),
         PromptArgument("document_id", "a document id, URL or path to check it against "
                        "(default: every document)", required=False)),
        "Check this claim against {scope}: {claim}\n\n"
        "Search with search_knowledge for passages about it (try the claim's key terms "
        "too), and read the promising ones with read_document. Answer with one verdict: "
        "supported, contradicted, or not found in the sources, then the verbatim quotes "
        "from get_exact_quote that decide it. Not finding support is a verdict of its "
        "own: do not fill the gap from what you know. " + _CITE),
)}
