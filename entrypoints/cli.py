"""The `sheaf` command line."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from sheaf.adapters.filesystem_file_reader import FilesystemFileReader
from sheaf.adapters.package_version import version_info
from sheaf.application.content_resolver import PREFERENCES, Preference
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.entrypoints import evaluation_commands, knowledge_commands, serve_command
from sheaf.entrypoints.composition import build_extraction, build_resolver
from sheaf.entrypoints.configuration import ENVIRONMENT, configure_logging, http_settings
from sheaf.entrypoints.demo import run_demo
from sheaf.entrypoints.local_input import output_name
from sheaf.entrypoints.mcp import command as mcp_command
from sheaf.entrypoints.rendering import FORMATS, SUFFIXES, render

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_FETCH, EXIT_CONTENT = 0, 1, 2, 3, 4


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns (and exits with) the process exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    configure_logging()
    if args.version:
        print(version_info().describe())
        return EXIT_OK
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code: int = args.run(args)
    except SheafError as exc:
        print(f"sheaf: error: {exc}", file=sys.stderr)
        return _exit_code(exc)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # a bug or an unreadable store: one line, details on debug
        logging.getLogger("sheaf").debug("unexpected failure", exc_info=True)
        print(f"sheaf: error: internal: {type(exc).__name__}: {exc} "
              "(LOG_LEVEL=debug shows the traceback)", file=sys.stderr)
        return EXIT_FAILED
    return code


def _exit_code(error: SheafError) -> int:
    if error.kind in (ErrorKind.DOCUMENT_NOT_FOUND, ErrorKind.STORE_VERSION,
                      ErrorKind.QUOTE_NOT_FOUND, ErrorKind.OUT_OF_RANGE):
        return EXIT_FAILED
    return EXIT_FETCH if error.kind.is_fetch_failure else EXIT_CONTENT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sheaf",
        description="Turn URLs, PDFs, HTML pages and text files into clean, structured, "
                    "quotable knowledge.",
        epilog="environment: " + "; ".join(f"{k}: {v}" for k, v in ENVIRONMENT.items()),
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    version = sub.add_parser("version", help="version and where the code was loaded from")
    version.add_argument("--json", action="store_true")
    version.set_defaults(run=_cmd_version)

    resolve = sub.add_parser("resolve", help="fetch a URL and print its text")
    resolve.add_argument("url")
    resolve.add_argument("--json", action="store_true", help="metadata, diagnostics and text")
    resolve.add_argument("--prefer", choices=PREFERENCES, default="auto")
    resolve.add_argument("--password", help="password of an encrypted PDF")
    _network_flags(resolve)
    resolve.set_defaults(run=_cmd_resolve)

    demo = sub.add_parser("demo", help="run the main job on the bundled samples, offline")
    demo.set_defaults(run=lambda args: anyio.run(run_demo))

    extract = sub.add_parser("extract", help="extract local files or URLs")
    extract.add_argument("inputs", nargs="+", metavar="INPUT")
    extract.add_argument("--format", choices=FORMATS, default="markdown")
    extract.add_argument("--output-dir", type=Path,
                         help="write one <name>.md|.txt|.json per input here")
    extract.add_argument("--base-url", help="URL that relative links in local HTML resolve to")
    extract.add_argument("--password", help="password of encrypted PDFs")
    extract.add_argument("--prefer", choices=PREFERENCES, default="auto")
    _network_flags(extract)
    extract.set_defaults(run=_cmd_extract)
    knowledge_commands.register(sub, _network_flags)
    evaluation_commands.register(sub)
    serve_command.register(sub)
    mcp_command.register(sub)
    return parser


def _network_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-private", action="store_true",
                        help="allow loopback and private network addresses")
    parser.add_argument("--max-bytes", type=int, help="largest body, in bytes")
    parser.add_argument("--timeout", type=float, help="total seconds per fetch")


def _cmd_version(args: argparse.Namespace) -> int:
    info = version_info()
    if args.json:
        print(json.dumps({"version": info.version, "origin": info.origin,
                          "location": info.location, "commit": info.commit,
                          "dirty": info.dirty}))
    else:
        print(info.describe())
    return EXIT_OK


def _settings(args: argparse.Namespace) -> Any:
    return http_settings(allow_private=args.allow_private, max_bytes=args.max_bytes,
                         timeout=args.timeout)


def _cmd_resolve(args: argparse.Namespace) -> int:
    async def run() -> str:
        client, resolver = build_resolver(_settings(args))
        async with client:
            prefer: Preference = args.prefer
            content = await resolver.resolve(args.url, prefer=prefer, password=args.password)
        if args.json:
            return json.dumps(content.as_dict(), ensure_ascii=False, indent=2) + "\n"
        return content.text + "\n"

    sys.stdout.write(anyio.run(run))
    return EXIT_OK


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _cmd_extract(args: argparse.Namespace) -> int:
    settings = _settings(args)

    async def run() -> int:
        extraction = build_extraction()
        files = FilesystemFileReader()
        client, resolver = build_resolver(settings, extraction=extraction)
        failures = 0
        async with client:
            for source in args.inputs:
                try:
                    if _is_url(source):
                        content = await resolver.resolve(source, prefer=args.prefer,
                                                         password=args.password)
                        document = content.document
                        extra: dict[str, Any] = {"source": content.source.value,
                                                 "url": content.final_url,
                                                 "diagnostics": content.diagnostics.messages()}
                    else:
                        local = await files.read(source, settings.max_bytes)
                        location = args.base_url or Path(local.path).as_uri()
                        result = await extraction.extract(local.data, declared_type=local.type_hint,
                                                          location=location,
                                                          password=args.password)
                        document = result.document
                        extra = {"source": result.source.value, "path": source,
                                 "routing": result.decision.reason}
                except SheafError as exc:
                    if len(args.inputs) == 1:
                        raise
                    failures += 1
                    print(f"sheaf: error: {source}: {exc}", file=sys.stderr)
                    continue
                output = render(document, args.format, extra)
                if args.output_dir:
                    args.output_dir.mkdir(parents=True, exist_ok=True)
                    target = args.output_dir / (output_name(source) + SUFFIXES[args.format])
                    tmp = target.with_suffix(target.suffix + ".part")
                    tmp.write_text(output, encoding="utf-8")
                    tmp.replace(target)
                else:
                    sys.stdout.write(output)
        return EXIT_FAILED if failures else EXIT_OK

    return anyio.run(run)


if __name__ == "__main__":
    raise SystemExit(main())
