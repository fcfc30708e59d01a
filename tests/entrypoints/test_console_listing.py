"""The console script's own `sheaf list` (ADR-0024): whenever it answers, it answers as
the click command does, byte for byte and with the same exit code; it leaves to click
whatever it cannot answer so."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sheaf.entrypoints.cli.cli import sheaf
from sheaf.entrypoints.cli.console_listing import answered
from tests.entrypoints.cli_runner import run
from tests.entrypoints.test_startup_imports import imported
from tests.property_examples import examples


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Two stores with other documents, a home whose default store is a third, and paths
    that are no store."""
    folder = tmp_path_factory.mktemp("listing")
    for name, text in {"tides.md": "# Tides\n\nSeagrass grew.\n",
                       "foxes.md": "# Foxes\n\nFoxes eat at night.\n",
                       "kelp.md": "Kelp shelters fish.\n"}.items():
        (folder / name).write_text(text)
    home = folder / "home"
    default = home / ".local" / "share" / "sheaf" / "sheaf.duckdb"
    for store, sources, space in ((folder / "a.duckdb", ["tides.md", "foxes.md"], "default"),
                                  (folder / "a.duckdb", ["kelp.md"], "other"),
                                  (folder / "b.duckdb", ["kelp.md"], "default"),
                                  (default, ["foxes.md"], "default")):
        done = run("ingest", *(folder / s for s in sources), "--space", space,
                   "--store", store)
        assert done.exit_code == 0, done.output
    (folder / "folder.duckdb").mkdir()
    yield {"a": str(folder / "a.duckdb"), "b": str(folder / "b.duckdb"),
           "missing": str(folder / "missing.duckdb"), "folder": str(folder / "folder.duckdb"),
           "home": str(home), "url": "postgresql://nobody@127.0.0.1:1/kb",
           "odd": "s3://bucket/kb"}


def _tokens(places: dict[str, str]) -> st.SearchStrategy[list[str]]:
    space = st.sampled_from(["default", "other", "nowhere", "", "-x"])
    store = st.sampled_from([places[k] for k in ("a", "b", "missing", "folder", "url",
                                                 "odd")] + [""])
    one = st.one_of(
        st.just(["--json"]),
        space.map(lambda s: ["--space", s]), space.map(lambda s: [f"--space={s}"]),
        store.map(lambda p: ["--store", p]), store.map(lambda p: [f"--store={p}"]),
        st.sampled_from([["--embedder", "hashing"], ["-h"], ["extra"], ["--"],
                         ["--space"], ["--store"], ["--json=1"], ["--blobs", "s3://b/p"]]))
    return st.lists(one, max_size=4).map(lambda parts: [w for part in parts for w in part])


def _environments(places: dict[str, str]) -> st.SearchStrategy[dict[str, str]]:
    return st.fixed_dictionaries({}, optional={
        "SHEAF_STORE": st.sampled_from([places["a"], places["b"], places["missing"], ""]),
        "LOG_LEVEL": st.sampled_from(["debug", "loud"]),
        "SHEAF_EMBEDDER": st.sampled_from(["hashing", "nonsense"]),
        "SHEAF_LOCK_WAIT": st.just("soon"),
        "XDG_DATA_HOME": st.just(os.path.join(places["home"], ".local", "share"))})


def _clean_environment(monkeypatch: pytest.MonkeyPatch, home: str) -> dict[str, str]:
    for name in list(os.environ):
        if name.startswith("SHEAF_") or name in ("LOG_LEVEL", "XDG_DATA_HOME"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", home)
    return dict(os.environ)


def _answer(args: list[str], environ: dict[str, str], encoding: str = "utf-8"
            ) -> tuple[int | None, str]:
    """What `answered` returns and prints, on a stdout taking `encoding`."""
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, newline="")
    with contextlib.redirect_stdout(out):
        code = answered(args, environ)
    out.flush()
    return code, out.buffer.getvalue().decode(encoding)  # type: ignore[attr-defined]


@settings(max_examples=examples(120), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_whenever_it_answers_it_answers_as_the_click_command(
        stores: dict[str, str], monkeypatch: pytest.MonkeyPatch, data: st.DataObject) -> None:
    base = _clean_environment(monkeypatch, stores["home"])
    args = data.draw(_tokens(stores), label="args")
    extra = data.draw(_environments(stores), label="environment")
    code, printed = _answer(args, base | extra)
    event("answered" if code is not None else "left to click")
    if code is None:
        return  # left to click, which then runs as it always did
    clicked = CliRunner().invoke(sheaf, ["list", *args], env=extra, catch_exceptions=False)
    assert (code, printed) == (clicked.exit_code, clicked.stdout)


def test_it_answers_the_plain_cases_and_leaves_the_rest(
        stores: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    base = _clean_environment(monkeypatch, stores["home"])
    for args, extra in (([], {}), (["--json"], {}), (["--space", "other"], {"SHEAF_STORE":
                                                                              stores["a"]}),
                        ([f"--store={stores['b']}", "--json"], {}),
                        (["--space=nowhere"], {"SHEAF_STORE": stores["a"]})):
        code, printed = _answer(args, base | extra)
        assert code == 0, (args, extra)
        assert printed or args == ["--space=nowhere"], (args, extra)
    for args, extra in ((["-h"], {}), (["--embedder", "hashing"], {}),
                        (["--store", stores["missing"]], {}),
                        (["--store", stores["folder"]], {}), (["--store", stores["url"]], {}),
                        ([], {"SHEAF_EMBEDDER": "hashing"}), ([], {"LOG_LEVEL": "debug"})):
        assert _answer(args, base | extra)[0] is None, (args, extra)


def test_the_console_script_lists_without_click_attrs_or_duckdb(
        stores: dict[str, str]) -> None:
    script = str(Path(sys.executable).parent / "sheaf")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": stores["home"],
           "SHEAF_STORE": stores["a"]}
    assert not imported(["list", "--json"], env, program=(script,)) & {
        "click", "attrs", "duckdb", "anyio", "hashlib"}
    done = subprocess.run([script, "list"], capture_output=True, text=True, env=env,
                          check=False, timeout=60)
    assert done.returncode == 0 and "Tides" in done.stdout and "Foxes" in done.stdout


def test_what_click_would_print_otherwise_is_left_to_click(
        stores: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    base = _clean_environment(monkeypatch, stores["home"])
    env = base | {"SHEAF_STORE": stores["a"]}
    assert _answer([], env)[0] == 0
    assert _answer([], env, encoding="ascii")[0] is None  # click wraps such a stdout
    monkeypatch.setattr(sys, "stdout", None)
    assert answered([], env) is None


def test_a_full_disk_fails_as_the_click_command_fails(stores: dict[str, str]) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": stores["home"],
           "SHEAF_STORE": stores["a"]}
    script = str(Path(sys.executable).parent / "sheaf")
    outcomes = []
    for program in ([script], [sys.executable, "-m", "sheaf.entrypoints.cli.cli"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([*program, "list"], stdout=full, stderr=subprocess.PIPE,
                                  text=True, env=env, check=False, timeout=60)
        outcomes.append((done.returncode, done.stderr))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] != 0 and "No space left on device" in outcomes[0][1]
