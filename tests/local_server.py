"""A real aiohttp.web server on loopback whose routes tests declare as they go."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class LocalServer:
    """Serves declared routes on 127.0.0.1 at an ephemeral port; records every request."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.port = 0
        self.seen: list[tuple[str, dict[str, str]]] = []
        self._handlers: dict[str, Handler] = {}
        self._runner: web.AppRunner | None = None

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def route(self, path: str, handler: Handler) -> None:
        self._handlers[path] = handler

    def add(self, path: str, body: bytes | str = b"", *, status: int = 200,
            content_type: str | None = None, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else body
        extra = dict(headers or {})
        if content_type is not None:
            extra["Content-Type"] = content_type

        async def handler(request: web.Request) -> web.StreamResponse:
            return web.Response(status=status, body=data, headers=extra)

        self._handlers[path] = handler

    def redirect(self, path: str, to: str, status: int = 302) -> None:
        self.add(path, status=status, headers={"Location": to})

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.path_qs, dict(request.headers)))
        handler = self._handlers.get(request.path_qs) or self._handlers.get(request.path)
        if handler is None:
            return web.Response(status=404, text="not found")
        return await handler(request)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
