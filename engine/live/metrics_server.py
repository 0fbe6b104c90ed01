"""The HTTP endpoint of ``ctxscope watch --metrics HOST:PORT``: ``GET /metrics`` in the Prometheus text format.

Served from a daemon thread and a small pool of workers, so a scrape never waits for the sidecar and the sidecar
never waits for a scrape; idle connections are closed after a few seconds and the pool never grows. The exposition
is :meth:`~engine.live.exposition.SidecarCollector.render` followed by
``prometheus_client``'s process collector (CPU seconds, resident memory, open files, start time).
"""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest

from engine.live.exposition import CONTENT_TYPE, SidecarCollector

__all__ = ["DEFAULT_HOST", "ListenAddressError", "MetricsServer", "parse_listen_address"]

DEFAULT_HOST = "127.0.0.1"
"""Where the endpoint listens when only a port is given: metrics name sessions, so nothing is exposed by default."""
_GZIP_LEVEL = 1
"""A scrape of 1,000 sessions is about 1.5 MB of text; level 1 shrinks it ~15× for a fraction of level 9's CPU."""

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class ListenAddressError(ValueError):
    """``--metrics`` is not ``PORT`` or ``HOST:PORT``."""


def parse_listen_address(text: str) -> tuple[str, int]:
    """``(host, port)`` from ``PORT``, ``:PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` (loopback when no host is given).

    Raises:
        ListenAddressError: not one of those forms, or the port is out of range.
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        host, port = "", text.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ListenAddressError(f"--metrics {text!r}: write an IPv6 address in brackets, e.g. [::1]:9477")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ListenAddressError(f"--metrics {text!r}: expected PORT or HOST:PORT with a port from 0 to 65535")
    return host or DEFAULT_HOST, int(port)


WORKERS = 4
"""Threads that serve requests: a scrape takes milliseconds, so a few serve any number of Prometheus servers."""
WAITING = 16
"""Accepted connections that may wait for a worker; past that a new connection is closed at once."""
IDLE_TIMEOUT_S = 5.0
"""A connection that sends nothing for this long is closed (each read waits at most this long)."""


class _Server(WSGIServer):
    """A WSGI server with a fixed pool of :data:`WORKERS` threads and at most :data:`WAITING` connections waiting.

    ``ThreadingMixIn`` started a thread per connection and waited on its socket forever: 80 idle connections pinned
    80 threads (docs/fleet.md, The endpoint's limits).
    """

    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Before binding: a failed bind calls server_close, which shuts the pool down.
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="ctxscope-metrics-worker")
        self._slots = threading.BoundedSemaphore(WORKERS + WAITING)
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # full: the client retries on its next scrape
            return
        try:
            self._pool.submit(self._serve_one, request, client_address)
        except RuntimeError:  # the pool is shut down: the server is closing
            self._slots.release()
            self.shutdown_request(request)

    def _serve_one(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except OSError:
            pass  # an idle or vanished client: nothing to report
        finally:
            self.shutdown_request(request)
            self._slots.release()

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


class _QuietHandler(WSGIRequestHandler):
    timeout = IDLE_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not worth a line on ``watch``'s output."""


def _server_class(host: str) -> type[_Server]:
    family = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][0]

    class Server(_Server):
        address_family = family

    return Server


class MetricsServer:
    """Serves ``collector`` at ``http://HOST:PORT/metrics`` until :meth:`close`."""

    def __init__(self, collector: SidecarCollector, host: str, port: int) -> None:
        """Bind the socket (raises :class:`OSError` when the address is taken) without serving yet."""
        self.collector = collector
        self._process = CollectorRegistry(auto_describe=False)
        ProcessCollector(registry=self._process)
        self._server = make_server(host, port, self._app, server_class=_server_class(host),
                                   handler_class=_QuietHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="ctxscope-metrics", daemon=True)

    @property
    def url(self) -> str:
        """Where the metrics are, with the port actually bound (``--metrics 0`` picks a free one)."""
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/metrics"

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=10)
        self._server.server_close()

    def body(self) -> bytes:
        """One scrape: the sidecar's families, then the process's."""
        return self.collector.render() + generate_latest(self._process)

    def _app(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") not in ("/metrics", "/"):
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ctxscope serves /metrics\n"]
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            start_response("405 Method Not Allowed", [("Allow", "GET, HEAD")])
            return [b""]
        body = self.body()
        headers = [("Content-Type", CONTENT_TYPE)]
        if "gzip" in environ.get("HTTP_ACCEPT_ENCODING", ""):
            body = gzip.compress(body, compresslevel=_GZIP_LEVEL)
            headers.append(("Content-Encoding", "gzip"))
        headers.append(("Content-Length", str(len(body))))
        start_response("200 OK", headers)
        return [body] if environ.get("REQUEST_METHOD") == "GET" else [b""]
