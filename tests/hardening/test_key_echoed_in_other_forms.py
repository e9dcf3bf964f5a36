"""A server echoes the key in another form than it was sent — without its `sk-` prefix,
reversed, in upper case, as hex, as the base64 of `Bearer <key>`, or a fragment of it — in
its error body. Once each was shown on stderr and stored in clear in `turns.error` and every
backup; now each is found by value (redact.scrub) and masked wherever it is shown or stored."""

from __future__ import annotations

import base64
import json

import pytest

from tests.bad_server import BadServer, send_body
from tests.helpers import clean_env, pixiu_in_process

KEY = "sk-7f3a9c1e5b2d8f4a6c0e9b7d3f1a5c8e"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def after(prefix: str) -> int:
    """Where the key's own characters begin in the base64 of `prefix` + the key (what comes
    before them encodes the prefix, which is no secret)."""
    return len(b64(prefix)) + 4


# each form, and where in it the key's own characters begin
FORMS = {
    "no prefix": (KEY[3:], 0),
    "reversed": (KEY[::-1], 0),
    "upper case": (KEY.upper(), 0),
    "hex": (KEY.encode().hex(), 6),
    "base64 of Bearer": (b64(f"Bearer {KEY}"), after("Bearer sk-")),
    "base64 of the header": (b64(f"Authorization: Bearer {KEY}"), after("Authorization: Bearer sk-")),
    "fragment": (KEY[9:29], 0),
}


def needles(form: str, start: int) -> list[bytes]:
    """The key's part of the form, and any 16 characters of it (what a reader could still put
    together)."""
    own = form[start:]
    return [own.encode()] + [own[i : i + 16].encode() for i in range(0, len(own) - 15, 4)]


@pytest.fixture
def echoing():
    server = BadServer()
    yield server
    server.stop()


def test_a_key_echoed_in_another_form_is_never_shown_or_stored(echoing, tmp_path, monkeypatch):
    from pixiu_cli.domain import redact

    monkeypatch.setattr(redact, "_SECRETS", set())  # no secret known beforehand, as in a new process
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_API_KEY=KEY, PIXIU_BASE_URL=echoing.base_url, PIXIU_MODEL="m", PIXIU_MAX_RETRIES="0")
    shown = []
    for label, (form, _) in FORMS.items():

        def echo(handler, form=form):
            assert handler.headers["Authorization"] == f"Bearer {KEY}"
            body = {"error": {"message": f"invalid credential {form} rejected", "type": "invalid_request_error"}}
            send_body(handler, "application/json", json.dumps(body).encode(), status=400)

        echoing.respond = echo
        done = pixiu_in_process(env, "ask", "--continue", f"第 {label} 问")
        assert done.returncode == 1 and "Traceback" not in done.stderr.decode()
        stderr = done.stderr.decode()
        assert "请求被模型服务拒绝（400）：invalid credential " in stderr and "rejected" in stderr, stderr
        shown.append((label, done.stdout + done.stderr))
    backup = pixiu_in_process(env, "backup")
    assert backup.returncode == 0, backup.stderr
    files = [p for p in home.rglob("*") if p.is_file() and p.name != "config.toml"]
    assert any(p.parent.name == "backups" for p in files)
    stored = [(str(p), p.read_bytes()) for p in files]
    for label, (form, start) in FORMS.items():
        for where, data in [*shown, *stored]:
            assert not [n for n in needles(form, start) if n in data], (label, where)
