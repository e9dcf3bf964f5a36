"""Fixtures for the offline server tests: fresh servers per test and real SDK clients."""

from __future__ import annotations

import pytest
from openai import DefaultHttpx2Client, OpenAI

from pixiu_cli.conversation.llm.client import verified_tls_context
from pixiu_cli.conversation.offline import OfflineServer


@pytest.fixture
def make_server():
    """Start servers with any options; all are stopped at the end of the test."""
    started: list[OfflineServer] = []

    def make(**options) -> OfflineServer:
        server = OfflineServer(**options).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def offline(make_server) -> OfflineServer:
    """A fresh DeepSeek-profile server, started for tests: its /_pixiu control routes are
    open to callers that present its token (see `control_headers`)."""
    return make_server(control=True)


@pytest.fixture
def control_headers(offline) -> dict[str, str]:
    from pixiu_cli.conversation.offline.server import CONTROL_TOKEN_HEADER

    return {CONTROL_TOKEN_HEADER: offline.control_token}


@pytest.fixture
def make_client():
    clients: list[OpenAI] = []

    def make(server: OfflineServer, api_key: str = "sk-test", **options) -> OpenAI:
        options.setdefault("max_retries", 0)
        # The SDK's default HTTP client loads the CA store again for every client (~20 ms);
        # the product builds one context per process (conversation/llm/client.py), and so do these.
        options.setdefault("http_client", DefaultHttpx2Client(verify=verified_tls_context()))
        client = OpenAI(base_url=server.base_url, api_key=api_key, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(offline, make_client) -> OpenAI:
    return make_client(offline)


@pytest.fixture
def raw_http():
    """Plain HTTP (no SDK) against a server: ``call(server, method, path, body, headers)``
    returns ``(status, headers, body_bytes)``. ``body`` may be bytes or a JSON value."""
    import http.client
    import json

    def call(server: OfflineServer, method: str, path: str, body=None, headers=None):
        conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
        try:
            if body is not None and not isinstance(body, bytes):
                body = json.dumps(body, ensure_ascii=False).encode("utf-8")
            all_headers = {"Content-Type": "application/json"}
            all_headers.update(headers or {})
            conn.request(method, path, body=body, headers=all_headers)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    return call
