"""Prometheus metrics in the text exposition format (version 0.0.4), written here: a
handful of counters, one histogram family and gauges read when scraped do not need a
client library.

`sheaf serve` counts its requests by route and status and times them; `sheaf worker
--metrics-port` counts jobs by outcome, times them and reads the queue's depth when
scraped. Both answer `GET /metrics`."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

Labels = tuple[tuple[str, str], ...]
Gauge = Callable[[], Awaitable[list[tuple[Labels, float]]]]
SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
                   60.0, 300.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: Labels, extra: Labels = ()) -> str:
    pairs = (*labels, *extra)
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{_escaped(v)}"' for k, v in pairs) + "}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if value != int(value) else str(int(value))


class MetricsRegistry:
    """Counters, histograms and gauges of one process, by name and labels."""

    def __init__(self) -> None:
        self._help: dict[str, tuple[str, str]] = {}
        self._counters: dict[str, dict[Labels, float]] = {}
        self._histograms: dict[str, dict[Labels, list[float]]] = {}
        self._gauges: dict[str, Gauge] = {}

    def counter(self, name: str, help_text: str) -> None:
        self._help[name] = ("counter", help_text)
        self._counters.setdefault(name, {})

    def histogram(self, name: str, help_text: str) -> None:
        self._help[name] = ("histogram", help_text)
        self._histograms.setdefault(name, {})

    def gauge(self, name: str, help_text: str, read: Gauge) -> None:
        """A gauge whose values `read()` gives at each scrape (a failing read is left
        out of that scrape, never an error of the endpoint)."""
        self._help[name] = ("gauge", help_text)
        self._gauges[name] = read

    def add(self, name: str, labels: Labels = (), amount: float = 1.0) -> None:
        series = self._counters[name]
        series[labels] = series.get(labels, 0.0) + amount

    def observe(self, name: str, seconds: float, labels: Labels = ()) -> None:
        # Per bucket counts, then the sum and the count.
        series = self._histograms[name].setdefault(
            labels, [0.0] * (len(SECONDS_BUCKETS) + 2))
        for index, bound in enumerate(SECONDS_BUCKETS):
            if seconds <= bound:
                series[index] += 1
        series[-2] += seconds
        series[-1] += 1

    async def render(self) -> str:
        lines: list[str] = []
        for name, (kind, help_text) in sorted(self._help.items()):
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
            if kind == "counter":
                for labels, value in sorted(self._counters[name].items()):
                    lines.append(f"{name}{_labels(labels)} {_number(value)}")
            elif kind == "histogram":
                for labels, series in sorted(self._histograms[name].items()):
                    for bound, count in zip(SECONDS_BUCKETS, series, strict=False):
                        lines.append(f"{name}_bucket{_labels(labels, (('le', _number(bound)),))}"
                                     f" {_number(count)}")
                    lines.append(f"{name}_bucket{_labels(labels, (('le', '+Inf'),))} "
                                 f"{_number(series[-1])}")
                    lines.append(f"{name}_sum{_labels(labels)} {_number(series[-2])}")
                    lines.append(f"{name}_count{_labels(labels)} {_number(series[-1])}")
            else:
                try:
                    values = await self._gauges[name]()
                except Exception:  # the database away: this scrape goes without it
                    values = []
                for labels, value in sorted(values):
                    lines.append(f"{name}{_labels(labels)} {_number(value)}")
        return "\n".join(lines) + "\n"


def http_metrics(registry: MetricsRegistry) -> Any:
    """An aiohttp middleware counting and timing every request by its route's pattern
    (never the raw path: ids would make a series each) and status."""
    registry.counter("sheaf_http_requests_total", "HTTP requests by method, route and "
                                                  "status")
    registry.histogram("sheaf_http_request_seconds", "HTTP request latency by route")

    @web.middleware
    async def measured(request: web.Request,
                       handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                       ) -> web.StreamResponse:
        began = time.perf_counter()
        status = 500
        try:
            response = await handler(request)
            status = response.status
            return response
        except web.HTTPException as exc:
            status = exc.status
            raise
        finally:
            info = request.match_info.route.resource
            route = info.canonical if info is not None else "unmatched"
            registry.add("sheaf_http_requests_total", (
                ("method", request.method), ("route", route), ("status", str(status))))
            registry.observe("sheaf_http_request_seconds", time.perf_counter() - began,
                             (("route", route),))

    return measured


def metrics_handler(registry: MetricsRegistry) -> Callable[[web.Request],
                                                           Awaitable[web.Response]]:
    async def metrics(_: web.Request) -> web.Response:
        return web.Response(body=(await registry.render()).encode("utf-8"),
                            headers={"Content-Type": CONTENT_TYPE})

    return metrics


def process_metrics(registry: MetricsRegistry, started: float) -> None:
    """The process's uptime, as every exporter gives it."""
    async def uptime() -> list[tuple[Labels, float]]:
        return [((), time.time() - started)]

    registry.gauge("sheaf_process_start_time_seconds", "when this process started "
                   "(Unix time)", _constant(started))
    registry.gauge("sheaf_process_uptime_seconds", "seconds since this process started",
                   uptime)


def _constant(value: float) -> Gauge:
    async def read() -> list[tuple[Labels, float]]:
        return [((), value)]

    return read


__all__ = ["CONTENT_TYPE", "Labels", "MetricsRegistry", "http_metrics", "metrics_handler",
           "process_metrics"]
