"""A tool-calling agent loop over sheaf, scripted so that no language model is needed.

    .venv/bin/python -P examples/agent_loop.py

A real agent sends `Knowledge.tools()` to its model and passes each tool call the model
makes to `kb.call_tool(name, arguments)`, feeding the JSON answer back. Here a scripted
"model" plays that part: it ingests a local article (served on 127.0.0.1), searches it,
and checks the passage it wants to cite, so that what it finally says is the article's
own words, with a citation.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from aiohttp import web

from sheaf import Knowledge

ARTICLE = Path(__file__).resolve().parents[1] / "entrypoints" / "samples" / "article.html"
QUESTION = "When are urban foxes most active, and why?"

# Each step of the script sees the answers so far and returns the next tool call, or
# None when it is ready to answer; just as a model would, reading the transcript.
Step = Callable[[list[dict[str, Any]]], tuple[str, dict[str, Any]] | None]


def script(article_url: str) -> list[Step]:
    return [
        lambda answers: ("ingest_url", {"url": article_url}),
        lambda answers: ("search_knowledge", {"query": "foxes active at night people",
                                              "k": 3}),
        lambda answers: ("get_exact_quote", {
            "document_id": answers[1]["results"][0]["document_id"],
            # the model quotes the first sentence of the best passage, rewrapped as it
            # copied it: sheaf verifies it (line breaks are a tolerated difference) and
            # answers with the document's exact words; a changed word would not verify
            "text": first_sentence(answers[1]["results"][0]["text"]).replace(" ", "\n", 3)}),
    ]


def first_sentence(text: str) -> str:
    body = " ".join(line for line in text.splitlines() if not line.startswith("#"))
    return body.split(". ")[0].strip().rstrip(".") + "."


async def serve_article() -> tuple[web.AppRunner, str]:
    async def article(request: web.Request) -> web.Response:
        return web.Response(body=ARTICLE.read_bytes(), content_type="text/html")

    app = web.Application()
    app.router.add_get("/night-shifts", article)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}/night-shifts"


async def main() -> int:
    runner, url = await serve_article()
    try:
        with tempfile.TemporaryDirectory(prefix="sheaf-agent-") as folder:
            async with Knowledge.open(Path(folder) / "agent.duckdb",
                                      allow_private_network=True) as kb:
                print(f"tools offered to the model: "
                      f"{', '.join(t['function']['name'] for t in kb.tools())}")
                print(f"question: {QUESTION}\n")
                answers: list[dict[str, Any]] = []
                for step in script(url):
                    call = step(answers)
                    if call is None:
                        break
                    name, arguments = call
                    print(f"-> {name}({json.dumps(arguments)})")
                    answer = await kb.call_tool(name, arguments)
                    if "error" in answer:
                        print(f"<- error: {answer['error']}")
                        return 1
                    print(f"<- {json.dumps(answer, ensure_ascii=False)[:300]}...\n")
                    answers.append(answer)
                quote = cite = answers[-1]["quotes"][0]
                print("answer, with its citation:")
                print(f'  The article says: "{quote["text"]}"')
                print(f"  -- {cite['title']}, {' > '.join(cite['section_path']) or '-'}, "
                      f"{cite['url']}, characters {cite['start']}-{cite['end']} "
                      f"({quote['status']}, {quote['match']} match)")
                print("\ncontext block for a prompt (300 tokens):")
                print(await kb.context_block(QUESTION, max_tokens=300))
    finally:
        await runner.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
