"""The metrics endpoint: listen addresses, HTTP behaviour, and the event-loop lag probe."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import socket
import time
from pathlib import Path

import pytest

from engine.config.metrics_settings import MetricsSettings
from engine.live.activity import ActivityRecorder, probe_loop_lag
from engine.live.exposition import CONTENT_TYPE, SidecarCollector
from engine.live.metrics_server import ListenAddressError, MetricsServer, parse_listen_address
from engine.live.tracker import SessionTracker

TIMEOUT = 30.0


@pytest.mark.parametrize(("text", "expected"), [
    ("9477", ("127.0.0.1", 9477)), (":9477", ("127.0.0.1", 9477)), ("0.0.0.0:9477", ("0.0.0.0", 9477)),
    ("example.org:80", ("example.org", 80)), ("[::1]:9477", ("::1", 9477)), ("0", ("127.0.0.1", 0)),
])
def test_listen_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen_address(text) == expected


@pytest.mark.parametrize("text", ["", "host", "host:", "1:2:3", "::1:9477", "70000", "-1", "x:y"])
def test_bad_listen_addresses_say_what_is_expected(text: str) -> None:
    with pytest.raises(ListenAddressError, match="--metrics"):
        parse_listen_address(text)


def _get(url: str, path: str = "/metrics", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").split("/")[0].rsplit(":", 1)
    connection = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=TIMEOUT)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_endpoint_serves_the_collector_and_the_process_and_releases_its_port(tmp_path: Path) -> None:
    recorder = ActivityRecorder()
    collector = SidecarCollector(SessionTracker([tmp_path]), recorder, MetricsSettings(host="box-1"))
    server = MetricsServer(collector, "127.0.0.1", 0).start()
    try:
        status, headers, body = _get(server.url)
        assert status == 200 and headers["content-type"] == CONTENT_TYPE
        assert b'ctxscope_sessions_followed{host="box-1"} 0.0\n' in body
        assert b"\nprocess_cpu_seconds_total " in body
        recorder.record_lag(0.5, at=time.monotonic())  # read at scrape time, not at start-up
        status, headers, zipped = _get(server.url, headers={"Accept-Encoding": "gzip"})
        assert headers["content-encoding"] == "gzip"
        assert b'ctxscope_event_loop_lag_seconds{host="box-1"} 0.5\n' in gzip.decompress(zipped)
        assert _get(server.url, "/other")[0] == 404
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    finally:
        server.close()
    with socket.create_server(("127.0.0.1", port)):  # the port is free again
        pass


def test_a_taken_port_is_an_os_error(tmp_path: Path) -> None:
    collector = SidecarCollector(SessionTracker([tmp_path]), ActivityRecorder())
    with socket.create_server(("127.0.0.1", 0)) as taken, pytest.raises(OSError):
        MetricsServer(collector, "127.0.0.1", taken.getsockname()[1])


async def test_the_lag_probe_sees_a_blocked_event_loop() -> None:
    recorder = ActivityRecorder()
    probe = asyncio.create_task(probe_loop_lag(recorder, interval=0.05))
    try:
        await asyncio.sleep(0.1)
        time.sleep(0.4)  # blocking the loop on purpose: this is the lag to detect
        deadline = time.monotonic() + TIMEOUT
        while (recorder.totals().loop_lag_seconds or 0) < 0.3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        probe.cancel()
    lag = recorder.totals().loop_lag_seconds
    assert lag is not None and lag >= 0.3


def test_lag_samples_older_than_the_window_are_forgotten() -> None:
    recorder = ActivityRecorder()
    recorder.record_lag(2.0, at=100.0)
    recorder.record_lag(0.1, at=150.0)
    assert recorder.totals().loop_lag_seconds == 2.0
    recorder.record_lag(0.2, at=161.0)  # 61 s after the big one
    assert recorder.totals().loop_lag_seconds == 0.2
