"""Start-up of the `sheaf` command as whole processes, against `python -c pass`.

    .venv/bin/python -P bench/startup.py [--runs 20] [--documents 20] [--checkout]

What is timed is sheaf as a user installs it: a wheel of this checkout installed into a
fresh virtual environment (bench/installed_wheel.py), its `sheaf` script against its own
`python -c pass`. (`--checkout` times this environment's editable install instead, whose
`python -c pass` also loads the editable finder, about 8 ms, which flatters every ratio.)
Each command runs `--runs` times, the commands interleaved round by round so that a busy
machine slows them alike; printed per command: min and median wall time and their ratios
to `python -c pass` measured in the same rounds, and the least CPU time (user + system)
of a run with its ratio, which waiting for a core on a shared machine does not inflate
(the issue's targets: `--version` within 3x, `list` on a small store within 5x). The
store is a small one made for the run (`--documents` generated notes, about ten snippets
each). `sheaf list` prints the listing the store keeps beside it (ADR-0024); `sheaf list,
no listing` has it deleted before each run, so it opens the store (and writes the listing
again as it closes). The same commands are then timed while `sheaf serve` holds the
store, so those that open it run through it (ADR-0022), `sheaf list` with the listing
the store left.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

WORDS = ["tide", "seagrass", "shoot", "density", "estuary", "sediment", "current",
         "salinity", "growth", "season", "harbour", "survey", "transect", "quadrat",
         "biomass", "nutrient", "light", "turbidity"]


def notes(folder: Path, count: int, rng: random.Random) -> None:
    for number in range(count):
        sections = []
        for heading in ("Methods", "Results", "Discussion"):
            body = "\n\n".join(" ".join(rng.choices(WORDS, k=60)).capitalize() + "."
                               for _ in range(3))
            sections.append(f"## {heading}\n\n{body}")
        (folder / f"note{number:03d}.md").write_text(f"# Note {number}\n\n"
                                                     + "\n\n".join(sections) + "\n")


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (CPU time is what a busy machine's waiting for a
    core leaves out)."""
    cpu = cpu_of_children()
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-500:]}")
    return elapsed, cpu_of_children() - cpu


def measure(commands: dict[str, list[str]], runs: int, env: dict[str, str],
            before: dict[str, Callable[[], None]] | None = None
            ) -> dict[str, list[tuple[float, float]]]:
    """`before[name]`, when given, runs untimed before each run of that command."""
    before = before or {}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for name, argv in commands.items():  # one warm-up each: the page cache, .pyc files
        before.get(name, lambda: None)()
        timed(argv, env)
    for _ in range(runs):
        for name, argv in commands.items():
            before.get(name, lambda: None)()
            times[name].append(timed(argv, env))
    return times


def report(title: str, times: dict[str, list[tuple[float, float]]]) -> None:
    def column(name: str, which: int) -> list[float]:
        return [run[which] for run in times[name]]

    base = "python -c pass"
    base_min, base_median = min(column(base, 0)), statistics.median(column(base, 0))
    base_cpu = min(column(base, 1))
    print(f"\n{title}")
    print(f"{'command':<28} {'min ms':>8} {'median ms':>10} {'x min':>6} {'x median':>9} "
          f"{'cpu ms':>7} {'x cpu':>6}")
    for name in times:
        wall, cpu = column(name, 0), column(name, 1)
        low, middle, spent = min(wall), statistics.median(wall), min(cpu)
        print(f"{name:<28} {low * 1000:8.1f} {middle * 1000:10.1f} {low / base_min:6.2f} "
              f"{middle / base_median:9.2f} {spent * 1000:7.1f} "
              f"{spent / base_cpu if base_cpu else float('nan'):6.2f}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_holder(store: Path, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not Path(f"{store}.holder").exists():
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("sheaf serve did not start: "
                             + (server.stderr.read().decode() if server.stderr else ""))
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--checkout", action="store_true",
                        help="time this environment's (editable) sheaf, not an installed wheel")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if args.checkout:
            python, sheaf = sys.executable, str(Path(sys.executable).parent / "sheaf")
        else:
            sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run with -P
            from bench.installed_wheel import build_wheel, install_wheel

            (folder / "wheel").mkdir()
            installed = install_wheel(build_wheel(folder / "wheel"), folder / "venv")
            python, sheaf = str(installed[0]), str(installed[1])
        (folder / "notes").mkdir()
        notes(folder / "notes", args.documents, random.Random(7))
        store = folder / "kb.duckdb"
        env = {**os.environ, "SHEAF_STORE": str(store), "HOME": scratch}
        env.pop("SHEAF_EMBEDDER", None)
        timed([sheaf, "ingest", str(folder / "notes")], env)
        listing = Path(f"{store}.listing")
        kept = Path(f"{store}.listing.kept")
        opened = {"sheaf list": lambda: kept.exists() and shutil.copy2(kept, listing),
                  "sheaf list, no listing": lambda: listing.unlink(missing_ok=True)}
        on_store = {
            "python -c pass": [python, "-c", "pass"],
            "sheaf list": [sheaf, "list"],
            "sheaf list, no listing": [sheaf, "list"],
            "sheaf search --mode bm25": [sheaf, "search", "seagrass density", "--mode",
                                         "bm25"],
        }
        commands = {"python -c pass": on_store["python -c pass"],
                    "sheaf --version": [sheaf, "--version"],
                    "sheaf --help": [sheaf, "--help"], **on_store}
        print(f"{args.runs} runs each, {args.documents} documents in the store, "
              f"{os.cpu_count()} CPUs, sheaf "
              + ("of this environment (editable)" if args.checkout else "installed from a wheel"))
        report("the store free", measure(commands, args.runs, env, opened))
        # A holder never closes the store, so it writes no listing: the one the store
        # left (still current while nothing is written) is put back before each `list`.
        shutil.copy2(listing, kept)
        server = subprocess.Popen([sheaf, "serve", "--port", str(free_port())], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_holder(store, server)
            report("while `sheaf serve` holds the store (through it)",
                   measure(on_store, args.runs, env, opened))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
