"""The offline server keeps only the latest requests, so a long session's memory is flat."""

from __future__ import annotations

import httpx
import pytest

from pixiu_cli.conversation.offline.server import CONTROL_TOKEN_HEADER, DEFAULT_REQUEST_LOG


def _ask(client, text: str) -> None:
    client.chat.completions.create(model="deepseek-v4-pro", messages=[{"role": "user", "content": text}])


def test_the_log_keeps_the_last_n_requests(make_server, make_client):
    server = make_server(request_log=3, control=True)
    client = make_client(server)
    for i in range(7):
        _ask(client, f"第 {i} 个问题")
    kept = [r.json["messages"][0]["content"] for r in server.requests]
    assert kept == ["第 4 个问题", "第 5 个问题", "第 6 个问题"]
    logged = httpx.get(f"{server.url}/_pixiu/requests", headers={CONTROL_TOKEN_HEADER: server.control_token}).json()
    assert len(logged["requests"] if isinstance(logged, dict) else logged) == 3


def test_the_default_log_is_bounded_and_zero_keeps_none(make_server, make_client):
    assert 0 < DEFAULT_REQUEST_LOG <= 1000
    server = make_server(request_log=0)
    _ask(make_client(server), "你好")
    assert server.requests == []
    with pytest.raises(ValueError):
        make_server(request_log=-1)


def test_the_apps_in_process_server_keeps_a_few(tmp_path, monkeypatch):
    from pixiu_cli.app import OFFLINE_REQUEST_LOG, start_offline_server
    from pixiu_cli.kernel.settings import load_settings

    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    server = start_offline_server(load_settings())
    try:
        assert server._state.requests.maxlen == OFFLINE_REQUEST_LOG <= 16
    finally:
        server.stop()
        server.cache.close()
