"""The page renderer port over a headless Chromium driven through the DevTools protocol.

The browser connects nowhere by itself. Every request a page makes (the document,
scripts, frames, XHR and fetch, workers) is paused by the DevTools `Fetch` domain and
fetched by sheaf's own guarded HTTP client, which judges it by the same rules as any
fetch (private and loopback addresses refused unless allowed, against the address
actually connected to), then handed to the page; what that client refuses fails in the
page. What the `Fetch` domain does not see (websockets, DNS prefetch, the browser's own
background traffic) has nowhere to go: every host name resolves to nothing
(`--host-resolver-rules`), every connection goes to a proxy on a closed loopback port,
loopback included (`<-loopback>`), and background networking, updates, sync and
safe browsing are off. Service workers are removed before any page script runs.
Nothing is downloaded: Debian's `chromium` is used where it is installed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

from ...application.ports.http_client import HttpClient, HttpResponse
from ...application.ports.page_renderer import RenderedPage
from ...domain.errors import ErrorKind, SheafError
from .devtools_connection import DevToolsConnection

logger = logging.getLogger("sheaf.render")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding",
                          "connection", "keep-alive", "set-cookie", "set-cookie2",
                          "strict-transport-security", "alt-svc"})
_NO_SERVICE_WORKERS = ("try { Object.defineProperty(Navigator.prototype, 'serviceWorker',"
                       " {get: () => undefined}); } catch (e) {}")


@attrs.frozen
class RenderBudget:
    """What one page may cost."""

    seconds: float = 30.0
    requests: int = 300
    bytes: int = 50 * 1024 * 1024
    memory: int = 1024 * 1024 * 1024
    """Memory of the whole browser process tree (`tree_memory`); past it the browser
    is killed and the render fails with `too_complex`."""
    settle: float = 0.5
    """Quiet seconds (no request pending) after the load event before the DOM is read."""


def find_chromium() -> str | None:
    """The browser sheaf renders with: SHEAF_CHROMIUM, else one on the PATH."""
    named = os.environ.get("SHEAF_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


class ChromiumRenderer:
    """Renders pages in one headless Chromium, started on first use and killed (its
    whole process group) by `aclose`. One page at a time."""

    def __init__(self, http: HttpClient, *, executable: str | None = None,
                 budget: RenderBudget | None = None) -> None:
        self._http = http
        self._executable = executable
        self.budget = budget or RenderBudget()
        self._process: asyncio.subprocess.Process | None = None
        self._profile: str | None = None
        self._connection: DevToolsConnection | None = None
        self._page: _PageRun | None = None
        self._lock = asyncio.Lock()

    async def render(self, response: HttpResponse) -> RenderedPage:
        async with self._lock:
            connection = await self._browser()
            page = _PageRun(connection, self._http, response, self.budget)
            self._page = page
            try:
                return await self._watched(page)
            finally:
                self._page = None
                await page.close()

    async def _watched(self, page: _PageRun) -> RenderedPage:
        budget = self.budget

        async def memory_watch() -> None:
            while True:
                await asyncio.sleep(0.25)
                if self._process is not None and tree_memory(self._process.pid) > budget.memory:
                    page.over = SheafError(ErrorKind.TOO_COMPLEX, "the page took more than "
                                           f"{budget.memory // 2**20} MiB of browser memory",
                                           url=page.first.url)
                    await self._kill()
                    return

        watch = asyncio.get_running_loop().create_task(memory_watch())
        try:
            return await asyncio.wait_for(page.run(), budget.seconds)
        except TimeoutError:
            await self._kill()  # a page that will not finish may be spinning the browser
            raise SheafError(ErrorKind.TIMEOUT, f"the page did not render within "
                             f"{budget.seconds:g} s", url=page.first.url) from None
        except SheafError:
            if page.over is not None:
                raise page.over from None
            raise
        finally:
            watch.cancel()

    async def _browser(self) -> DevToolsConnection:
        if self._connection is not None and self._process is not None \
                and self._process.returncode is None:
            return self._connection
        await self._kill()
        executable = self._executable or find_chromium()
        if executable is None:
            raise SheafError(ErrorKind.CONFIGURATION, "rendering needs Chromium: install "
                             "Debian's chromium package (apt install chromium) or set "
                             "SHEAF_CHROMIUM to a Chromium or Chrome executable")
        self._profile = tempfile.mkdtemp(prefix="sheaf-chromium-")
        self._process = await asyncio.create_subprocess_exec(
            executable, *_flags(self._profile), "about:blank",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
        endpoint = await self._endpoint(Path(self._profile) / "DevToolsActivePort")
        self._connection = await DevToolsConnection.open(endpoint, self._on_event)
        return self._connection

    async def _endpoint(self, active_port: Path) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.returncode is not None:
                raise SheafError(ErrorKind.CONFIGURATION, "Chromium exited on start "
                                 f"(status {self._process.returncode})")
            with contextlib.suppress(OSError, ValueError):
                port, path = active_port.read_text().split("\n")[:2]
                if port and path:
                    return f"ws://127.0.0.1:{int(port)}{path}"
            await asyncio.sleep(0.05)
        await self._kill()
        raise SheafError(ErrorKind.TIMEOUT, "Chromium did not open its DevTools port")

    async def _on_event(self, method: str, params: dict[str, Any],
                        session: str | None) -> None:
        page = self._page
        if page is not None:
            await page.on_event(method, params, session)

    async def _kill(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.close()
            self._connection = None
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                await self._process.wait()
            self._process = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    async def aclose(self) -> None:
        await self._kill()


class _PageRun:
    """One page's target, its intercepted requests and its budget."""

    def __init__(self, connection: DevToolsConnection, http: HttpClient,
                 first: HttpResponse, budget: RenderBudget) -> None:
        self.connection, self.http, self.first, self.budget = connection, http, first, budget
        self.target: str | None = None
        self.sessions: set[str] = set()
        self.requests = 0
        self.bytes = 0
        self.pending = 0
        self.refused: list[str] = []
        self.loaded = asyncio.Event()
        self.last_activity = time.monotonic()
        self.served_document = False
        self.over: SheafError | None = None

    async def run(self) -> RenderedPage:
        send = self.connection.send
        created = await send("Target.createTarget", {"url": "about:blank"})
        self.target = created["targetId"]
        attached = await send("Target.attachToTarget", {"targetId": self.target,
                                                        "flatten": True})
        session = attached["sessionId"]
        await self._prepare(session)
        await send("Page.enable", session_id=session)
        await send("Page.navigate", {"url": self.first.url}, session_id=session)
        await self.loaded.wait()
        while self.pending or time.monotonic() - self.last_activity < self.budget.settle:
            await asyncio.sleep(0.05)
        if self.over is not None:
            raise self.over
        found = await send("Runtime.evaluate", {
            "expression": "document.documentElement ? document.documentElement.outerHTML"
                          " : ''", "returnByValue": True}, session_id=session)
        html = str(found.get("result", {}).get("value") or "")
        return RenderedPage(("<!DOCTYPE html>" + html).encode(), self.first.url,
                            self.requests, tuple(self.refused))

    async def _prepare(self, session: str) -> None:
        """What each page and frame session gets before any of its scripts run."""
        self.sessions.add(session)
        send = self.connection.send
        await send("Fetch.enable", {"patterns": [{"urlPattern": "*",
                                                  "requestStage": "Request"}]},
                   session_id=session)
        await send("Target.setAutoAttach", {"autoAttach": True,
                                            "waitForDebuggerOnStart": True,
                                            "flatten": True}, session_id=session)
        with contextlib.suppress(SheafError):  # workers have no Page domain
            await send("Page.addScriptToEvaluateOnNewDocument",
                       {"source": _NO_SERVICE_WORKERS}, session_id=session)

    async def on_event(self, method: str, params: dict[str, Any], session: str | None
                       ) -> None:
        if method == "Fetch.requestPaused" and session is not None:
            await self._answer(params, session)
        elif method == "Page.loadEventFired":
            self.loaded.set()
        elif method == "Target.attachedToTarget" and session is not None:
            child = params["sessionId"]
            await self._prepare(child)
            await self.connection.send("Runtime.runIfWaitingForDebugger", session_id=child)

    async def _answer(self, params: dict[str, Any], session: str) -> None:
        request, ident = params["request"], params["requestId"]
        url, method = str(request["url"]), str(request.get("method", "GET"))
        self.pending += 1
        self.last_activity = time.monotonic()
        try:
            refusal = self._refusal(url, method)
            if refusal is None and not self.served_document and url == self.first.url:
                self.served_document = True
                response = self.first
            elif refusal is None:
                self.requests += 1
                try:
                    response = await self.http.get(url, accept=str(
                        request.get("headers", {}).get("Accept", "*/*")))
                except SheafError as exc:
                    refusal = f"{exc.kind.value}: {exc.message}"
            if refusal is not None:
                self.refused.append(f"{url}: {refusal}")
                await self.connection.send("Fetch.failRequest", {
                    "requestId": ident, "errorReason": "BlockedByClient"}, session_id=session)
                return
            self.bytes += len(response.body)
            if self.bytes > self.budget.bytes:
                self.over = SheafError(ErrorKind.TOO_LARGE, "the page's requests came to "
                                       f"more than {self.budget.bytes} bytes", url=self.first.url)
                self.loaded.set()
            headers = [{"name": k, "value": v} for k, v in response.headers
                       if k.lower() not in _HOP_HEADERS]
            await self.connection.send("Fetch.fulfillRequest", {
                "requestId": ident, "responseCode": response.status,
                "responseHeaders": headers,
                "body": base64.b64encode(response.body).decode()}, session_id=session)
        finally:
            self.pending -= 1
            self.last_activity = time.monotonic()

    def _refusal(self, url: str, method: str) -> str | None:
        scheme = url.split(":", 1)[0].lower()
        if scheme not in ("http", "https"):
            return f"{scheme}: URLs are not fetched for a page"
        if method != "GET":
            return f"{method} requests are not made for a page (only GET)"
        if self.requests >= self.budget.requests:
            return f"over the page's budget of {self.budget.requests} requests"
        if self.over is not None:
            return "the page is over its budget"
        return None

    async def close(self) -> None:
        if self.target is not None:
            with contextlib.suppress(SheafError):
                await self.connection.send("Target.closeTarget", {"targetId": self.target})


def _flags(profile: str) -> list[str]:
    flags = [
        "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        f"--user-data-dir={profile}", "--remote-debugging-port=0",
        "--remote-debugging-address=127.0.0.1",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--disable-extensions", "--disable-breakpad",
        "--disable-domain-reliability", "--disable-client-side-phishing-detection",
        "--safebrowsing-disable-auto-update", "--no-pings", "--disable-quic",
        "--disable-features=IsolateOrigins,site-per-process,NetworkPrediction,"
        "OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,"
        "InterestFeedContentSuggestions,CertificateTransparencyComponentUpdater",
        "--disable-site-isolation-trials", "--dns-prefetch-disable",
        # What the Fetch domain does not pause has nowhere to go.
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "--deny-permission-prompts", "--mute-audio", "--hide-scrollbars",
        "--js-flags=--max-old-space-size=512", "--disable-dev-shm-usage",
    ]
    if os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to start as root with it
    return flags


def tree_memory(group: int) -> int:
    """Memory of every process in process group `group`, in bytes: the proportional set
    size (shared pages divided among the processes sharing them), so a browser's dozen
    processes are not counted as a dozen copies of the same libraries (Linux /proc;
    resident size where smaps_rollup cannot be read)."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != group:  # pgrp is the fifth field of /proc/PID/stat
                continue
            total += _proportional(Path(entry.path)) or int(fields[21]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total


def _proportional(process: Path) -> int | None:
    try:
        for line in (process / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
