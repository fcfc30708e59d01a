"""Issue 30's hostile inputs beyond one `sheaf extract`: amplification inside containers
and images (extracted like the other cases), and scenarios that need a store, a
terminal, a kill or a race. `bench/hostile_inputs.py` runs them with its own cases and
prints them in its table (case, input size, wall, peak, outcome); each scenario's wall
time and peak memory are those of the sheaf process it attacks.
"""

from __future__ import annotations

import os
import pty
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import amplification_inputs as amplification

SHEAF = Path(sys.executable).with_name("sheaf")
Outcome = tuple[int, float, float, str]
"""Input bytes, wall seconds, peak MB of the attacked process, what happened."""


def amplification_cases() -> dict[str, tuple[str, Callable[[], bytes]]]:
    """Extraction cases: a part read many times, one string behind many cells, frames
    that add up past any page, nesting past the recursion limit."""
    return {
        "pptx-slide-250-times": (".pptx", amplification.pptx_one_slide_listed),
        "pptx-shared-notes": (".pptx", amplification.pptx_shared_notes),
        "xlsx-one-string-cells": (".xlsx", amplification.xlsx_one_string_many_cells),
        "docx-200k-char-cell": (".docx", amplification.docx_huge_cell),
        "docx-20k-controls": (".docx", amplification.docx_nested_content_controls),
        "tiff-40x8000px-frames": (".tiff", amplification.tiff_frames),
        "tiff-then-30000px": (".tiff", amplification.tiff_small_then_huge),
    }


def generate_in_child(name: str, path: Path) -> None:
    """Write case `name`'s input to `path` from a child interpreter: generating a large
    image would leave this process large, and a child forked from it would then report
    this process's memory as its own peak (Linux keeps the larger of the two across
    exec)."""
    program = ("import sys; sys.path.insert(0, sys.argv[3]); "
               "from bench.hostile_inputs import CASES; "
               "open(sys.argv[2], 'wb').write(CASES[sys.argv[1]][1]())")
    subprocess.run([sys.executable, "-c", program, name, str(path),
                    str(Path(__file__).resolve().parents[1])], check=True)


def _child(arguments: list[str], *, env: dict[str, str] | None = None,
           timeout: float = 120.0, stdout: int | None = subprocess.DEVNULL,
           stderr: int | None = subprocess.PIPE) -> tuple[float, float, int | None, str]:
    """`sheaf ARGUMENTS`: (seconds, peak MB, exit code or None when killed, stderr)."""
    started = time.monotonic()
    process = subprocess.Popen([str(SHEAF), *arguments], stdout=stdout, stderr=stderr,
                               stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})},
                               start_new_session=True)
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - started > timeout:
            os.killpg(process.pid, signal.SIGKILL)
            _, status, usage = os.wait4(process.pid, 0)
            status = -1
            break
        time.sleep(0.02)
    process.returncode = os.waitstatus_to_exitcode(status) if status != -1 else -9
    errors = process.stderr.read().decode(errors="replace") if process.stderr else ""
    code = None if status == -1 else process.returncode
    return time.monotonic() - started, usage.ru_maxrss / 1024, code, errors


def _kind(code: int | None, errors: str) -> str:
    if code is None:
        return "TIMEOUT"
    if code == 0:
        return "OK"
    for line in errors.splitlines():
        if line.startswith("sheaf: error: "):
            return line[len("sheaf: error: "):].split(":", 1)[0]
    return f"exit {code}"


def filename_not_utf8(folder: Path) -> Outcome:
    path = Path(os.fsdecode(bytes(folder) + b"/report-\xff\xfe.txt"))
    path.write_text("A report whose file name is not UTF-8.\n")
    seconds, peak, code, errors = _child(["ingest", str(path)],
                                         env={"SHEAF_STORE": str(folder / "kb.duckdb")})
    return path.stat().st_size, seconds, peak, _kind(code, errors) + (
        "" if code == 0 else f" ({errors.strip().splitlines()[-1][:60]})")


HOSTILE_TEXT = ("# Title \x1b]0;pwned\x07\n\nClipboard \x1b]52;c;SGVsbG8=\x07, a link "
                "\x1b]8;;http://evil.example\x1b\\here\x1b]8;;\x1b\\, \x1b[2J\x1b[H a cleared "
                "screen and \u202ereversed\u202c text.\n")
_RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def _on_terminal(arguments: list[str], env: dict[str, str]) -> tuple[float, str]:
    leader, follower = pty.openpty()
    started = time.monotonic()
    process = subprocess.Popen([str(SHEAF), *arguments], stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=follower, env={**os.environ, **env})
    os.close(follower)
    chunks = []
    while select.select([leader], [], [], 60)[0]:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(leader)
    return time.monotonic() - started, b"".join(chunks).decode("utf-8", errors="replace")


def terminal_escapes(folder: Path) -> Outcome:
    source = folder / "hostile.md"
    source.write_text(HOSTILE_TEXT)
    forged = folder / "two\nlines.txt"
    forged.write_text("A file whose name holds a newline.\n")
    env = {"SHEAF_STORE": str(folder / "kb.duckdb")}
    _child(["ingest", str(source), str(forged)], env=env)
    seconds, shown = _on_terminal(["show", str(source), "--markdown"], env)
    more, listed = _on_terminal(["list"], env)
    leaked = sum(shown.count(c) + listed.count(c) for c in _RAW)
    rows = len([line for line in listed.splitlines() if line.strip()])
    outcome = (f"{leaked} raw controls reached the terminal; list printed {rows} rows "
               "for 2 documents")
    return source.stat().st_size, seconds + more, 0.0, outcome


def _blobs(store: Path) -> set[str]:
    return {p.name for p in (store.with_suffix(".blobs") / "raw").glob("??/*")}


def remove_killed(folder: Path) -> Outcome:
    store = folder / "kb.duckdb"
    env = {"SHEAF_STORE": str(store)}
    source = folder / "doomed.txt"
    source.write_text("The document whose removal is killed half-way.\n" * 200)
    _child(["ingest", str(source)], env=env)
    before = _blobs(store)
    started = time.monotonic()
    process = subprocess.Popen([str(SHEAF), "remove", str(source)], stderr=subprocess.PIPE,
                               stdout=subprocess.DEVNULL,
                               env={**os.environ, **env,
                                    "SHEAF_TEST_PAUSE_AT": "remove-committed"})
    assert process.stderr is not None
    ready = select.select([process.stderr], [], [], 60)[0]
    paused = bool(ready) and b"paused" in process.stderr.readline()
    os.kill(process.pid, signal.SIGKILL)
    _, _, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    left_after_kill = len(_blobs(store) & before)
    _child(["status"], env=env)
    left = len(_blobs(store) & before)
    where = "after its commit" if paused else "(no pause point: the removal ran to its end)"
    return (source.stat().st_size, seconds, usage.ru_maxrss / 1024,
            f"killed {where}: {left_after_kill} blobs left; after the next open {left}")


def _crashed_store(folder: Path) -> Path:
    """A store whose ingest was killed with 300 KB in its write-ahead log."""
    sources = folder / "sources"
    sources.mkdir()
    rng = random.Random(30)
    words = ["harbour", "lantern", "stone", "river", "cloud", "marble", "quay", "tide",
             "buoy", "ferry"]
    for n in range(60):
        (sources / f"n{n:02}.txt").write_text(f"Note {n}\n\n" + " ".join(
            rng.choice(words) for _ in range(600)))
    store = folder / "kb.duckdb"
    wal = Path(f"{store}.wal")
    process = subprocess.Popen([str(SHEAF), "ingest", str(sources), "--store", str(store)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if wal.exists() and wal.stat().st_size >= 300_000:
            break
        time.sleep(0.01)
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()
    for leftover in (Path(f"{store}.holder"),):
        leftover.unlink(missing_ok=True)
    return store


def damaged_log(folder: Path) -> Outcome:
    store = _crashed_store(folder)
    wal = Path(f"{store}.wal")
    log = bytearray(wal.read_bytes())
    rng = random.Random(7)
    for _ in range(8):
        log[rng.randrange(len(log) // 3, len(log))] ^= 0xFF
    wal.write_bytes(bytes(log))
    seconds, peak, code, errors = _child(["status", "--store", str(store)])
    opened = _kind(code, errors)
    more, repair_peak, repaired, repair_errors = _child(["repair", "--store", str(store)])
    after = _child(["status", "--store", str(store)])
    outcome = (f"open: {opened}"
               + (" (names sheaf repair)" if "sheaf repair" in errors else "")
               + f"; repair: {_kind(repaired, repair_errors)}; then open: "
               f"{_kind(after[2], after[3])}")
    return len(log), seconds + more, max(peak, repair_peak), outcome


def mcp_flip_race(folder: Path) -> Outcome:
    """A writer flips `flip.md` between a file and a link to a secret while 200
    `ingest_file` calls run; run in a child interpreter of its own."""
    program = f'''
import os, threading, anyio
from pathlib import Path
from mcp import Client
from sheaf import Knowledge
from sheaf.entrypoints.mcp.server import ServerSettings, build_server
root = Path({str(folder)!r}); allowed, secret = root / "allowed", root / "secret"
allowed.mkdir(); secret.mkdir()
(secret / "keys.md").write_text("# Keys\\n\\nhunter2 opens the vault.\\n")
flip = allowed / "flip.md"; flip.write_text("# Harmless\\n\\nNothing here.\\n")
stop = threading.Event()
def writer():
    n = 0
    while not stop.is_set():
        n += 1
        link, plain = allowed / f".l{{n}}", allowed / f".p{{n}}"
        link.symlink_to(secret / "keys.md"); os.replace(link, flip)
        plain.write_text(f"# Harmless\\n\\nNothing here {{n}}.\\n"); os.replace(plain, flip)
async def main():
    async with Knowledge.open(root / "kb.duckdb", embedder="hashing") as kb, \\
            Client(build_server(kb, ServerSettings.of(folders=(allowed,)))) as client:
        thread = threading.Thread(target=writer, daemon=True); thread.start()
        leaked_at = None
        for call in range(1, 201):
            await client.call_tool("ingest_file", {{"path": "flip.md"}})
            if leaked_at is None:
                for document in await kb.documents():
                    if "hunter2" in (await kb.document(document.id)).markdown:
                        leaked_at = call
        stop.set(); thread.join()
        print(f"secret ingested after {{leaked_at}} calls" if leaked_at
              else "secret never ingested in 200 calls")
anyio.run(main)
'''
    started = time.monotonic()
    with subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out = process.stdout.read().decode() if process.stdout else ""
        err = process.stderr.read().decode() if process.stderr else ""
    seconds = time.monotonic() - started
    outcome = out.strip().splitlines()[-1] if out.strip() else \
        f"exit {process.returncode}: {(err.strip().splitlines() or [''])[-1][:60]}"
    return 0, seconds, usage.ru_maxrss / 1024, outcome


SCENARIOS: dict[str, Callable[[Path], Outcome]] = {
    "filename-not-utf8": filename_not_utf8,
    "terminal-escapes": terminal_escapes,
    "remove-kill-9": remove_killed,
    "wal-damaged": damaged_log,
    "mcp-flip-race": mcp_flip_race,
}


def run_scenario(name: str, root: Path) -> Outcome:
    """One scenario in a fresh folder under `root` (removed after)."""
    folder = root / name
    folder.mkdir()
    try:
        return SCENARIOS[name](folder)
    except Exception as exc:  # the benchmark reports; it does not stop
        return 0, 0.0, 0.0, f"benchmark failed: {type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
