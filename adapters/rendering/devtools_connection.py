"""The Chrome DevTools Protocol over one websocket: commands with replies, and events
handed to one callback (flattened sessions: each message names its session)."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from ...domain.errors import ErrorKind, SheafError

logger = logging.getLogger("sheaf.render")

EventHandler = Callable[[str, dict[str, Any], str | None], Awaitable[None]]


class DevToolsConnection:
    """A connection to a browser's DevTools endpoint on loopback."""

    def __init__(self, websocket: aiohttp.ClientWebSocketResponse,
                 session: aiohttp.ClientSession, on_event: EventHandler) -> None:
        self._websocket = websocket
        self._session = session
        self._on_event = on_event
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, on_event: EventHandler) -> DevToolsConnection:
        # trust_env stays off: the browser's own endpoint is never reached through a proxy.
        session = aiohttp.ClientSession()
        try:
            websocket = await session.ws_connect(url, max_msg_size=256 * 1024 * 1024)
        except BaseException:
            await session.close()
            raise
        return cls(websocket, session, on_event)

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session_id: str | None = None) -> dict[str, Any]:
        """The command's result; its error as `SheafError(INTERNAL)`."""
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = reply
        try:
            await self._websocket.send_str(json.dumps(message))
            answer = await reply
        except (aiohttp.ClientError, ConnectionError) as exc:
            raise SheafError(ErrorKind.INTERNAL, f"the browser closed its connection "
                             f"({exc})") from None
        finally:
            self._waiting.pop(ident, None)
        if "error" in answer:
            raise SheafError(ErrorKind.INTERNAL, f"browser refused {method}: "
                             f"{answer['error'].get('message')}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    async def _read(self) -> None:
        try:
            async for frame in self._websocket:
                if frame.type is not aiohttp.WSMsgType.TEXT:
                    continue
                message = json.loads(frame.data)
                if "id" in message:
                    waiting = self._waiting.get(message["id"])
                    if waiting is not None and not waiting.done():
                        waiting.set_result(message)
                elif "method" in message:
                    task = asyncio.get_running_loop().create_task(self._dispatch(message))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
        finally:
            gone = SheafError(ErrorKind.INTERNAL, "the browser closed its connection")
            for waiting in self._waiting.values():
                if not waiting.done():
                    waiting.set_exception(gone)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        try:
            await self._on_event(message["method"], message.get("params", {}),
                                 message.get("sessionId"))
        except SheafError as exc:  # a closed browser mid-event: the render fails on its own
            logger.debug("browser event %s: %s", message["method"], exc)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self._reader.cancel()
        await self._websocket.close()
        await self._session.close()
