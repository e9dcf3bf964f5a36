"""A base URL with credentials (`http://alice:PASSWORD@host/v1`) and a server that echoes the
request's headers into its error bodies. Once the SDK's HTTP client turned the URL's
credentials into `Authorization: Basic <base64 of alice:PASSWORD>` in place of the key (the
key was never sent), and the echo landed in stderr, `turns.error`, `calls.error` and every
backup. Now the URL reaches the SDK without them, the key goes as documented
(`Authorization: Bearer`), and no secret, nor its base64, is shown or stored anywhere; nor
is the key echoed in another form (without its prefix, reversed, upper-case, hex, base64 of
`Bearer <key>`, a fragment)."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from pixiu_cli.kernel.safe_text import scrub
from tests.bad_server import BadServer, chunk, send_body, send_events
from tests.helpers import PLANTED_KEY, clean_env, pixiu_in_process

PASSWORD = "hunter2-Pa55word"
USER = "alice"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


NEEDLES = (
    PASSWORD,
    PLANTED_KEY,
    PLANTED_KEY[-8:],  # providers echo a masked key: sk-…abcdef
    b64(f"{USER}:{PASSWORD}"),  # what `Authorization: Basic` carries
    b64(f"{USER}:{PASSWORD}").rstrip("="),
    b64(PLANTED_KEY),
    b64(PLANTED_KEY).rstrip("="),
)


def leaked(data: str | bytes) -> list[str]:
    data = data if isinstance(data, bytes) else data.encode("utf-8")
    return [n for n in NEEDLES if n.encode() in data]


def _echoed(handler) -> str:
    return "; ".join(f"{k}: {v}" for k, v in handler.headers.items())


def echo_json_400(handler) -> None:
    body = {"error": {"message": f"bad request, you sent {_echoed(handler)}", "type": "invalid_request_error"}}
    send_body(handler, "application/json", json.dumps(body).encode(), status=400)


def echo_fields_422(handler) -> None:  # the secrets again, as fields of a debugging proxy's echo
    message = f"api_key={PLANTED_KEY} password: {PASSWORD} rejected; headers {_echoed(handler)}"
    send_body(handler, "application/json", json.dumps({"error": {"message": message}}).encode(), status=422)


def echo_in_stream(handler) -> None:
    error = json.dumps({"error": {"message": f"upstream failed for {_echoed(handler)}"}})
    send_events(handler, [chunk("部分回复"), error])


@pytest.fixture
def echoing():
    server = BadServer()
    yield server
    server.stop()


def test_credentials_in_the_url_and_the_key_are_never_shown_or_stored(echoing, tmp_path, monkeypatch):
    from pixiu_cli.kernel import safe_text as redact

    monkeypatch.setattr(redact, "_SECRETS", set())  # no secret known beforehand, as in a new process
    seen: list[dict[str, str]] = []
    url = echoing.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_API_KEY=PLANTED_KEY, PIXIU_BASE_URL=url, PIXIU_MODEL="m", PIXIU_MAX_RETRIES="0")
    shown: list[tuple[str, bytes]] = []
    for respond, question in ((echo_json_400, "你好"), (echo_fields_422, "再问"), (echo_in_stream, "第三次")):

        def record(handler, respond=respond):
            seen.append({k.lower(): v for k, v in handler.headers.items()})
            respond(handler)

        echoing.respond = record
        done = pixiu_in_process(env, "ask", "--continue", question)
        shown.append((question, done.stdout + done.stderr))
        assert done.returncode == 1 and b"***" in done.stderr, done.stderr.decode()
    # the key went as documented, in every request; the URL's credentials did not go at all
    assert [h.get("authorization") for h in seen] == [f"Bearer {PLANTED_KEY}"] * 3
    assert not any(leaked(json.dumps(h)) for h in ({k: v for k, v in h.items() if k != "authorization"} for h in seen))
    assert "请求被模型服务拒绝（400）" in shown[0][1].decode() and "请求参数不被接受（422）" in shown[1][1].decode()

    conn = sqlite3.connect(home / "pixiu.db")
    errors = [e for (e,) in conn.execute("select error from turns union all select error from calls") if e]
    conn.close()
    assert len(errors) == 6 and all("***" in e for e in errors), errors  # three turns, three calls
    assert not [e for e in errors if leaked(e)], errors
    # reading it back (in process, like the asks: the files and the output are a new process's)
    for args in (("backup",), ("context",), ("context", "--raw"), ("context", "--json"), ("cache",), ("export",)):
        done = pixiu_in_process(env, *args)
        assert done.returncode == 0, (args, done.stderr)
        shown.append((" ".join(args), done.stdout + done.stderr))
    for label, output in shown:
        assert not leaked(output), (label, leaked(output), output.decode()[-1500:])
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.parent.name == "backups" for p in files)
    for path in files:
        assert not leaked(path.read_bytes()), (path, leaked(path.read_bytes()))


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Authorization: Basic YWxpY2U6c2VjcmV0LXh5eg==", "Authorization: Basic ***"),
        ('{"authorization": "Bearer abcdefgh12345678"}', '{"authorization": "Bearer ***"}'),
        ("Proxy-Authorization: Custom tok_ABCDEFG1234", "Proxy-Authorization: Custom ***"),
        ("Authorization: sk-live-1234567890abcdef", "Authorization: ***"),
        ("header Bearer abcdefgh12345678 was refused", "header Bearer *** was refused"),
        ("credentials Basic dTpwYXNzd29yZA were refused", "credentials Basic *** were refused"),
        ("key sk-proj-abcdefghijklmnop is invalid", "key sk-*** is invalid"),
        ("GET /v1/models?api_key=abcdef123456&x=1", "GET /v1/models?api_key=***&x=1"),
        ('{"password": "s3cret!", "user": "bob"}', '{"password": "***", "user": "bob"}'),
        ("x-api-key: 0123456789abcdef", "x-api-key: ***"),
        ("GET https://bob:pw@host/v1 failed", "GET https://***@host/v1 failed"),
        # prose that only looks like a scheme is left alone
        ("Basic usage of the API is free", "Basic usage of the API is free"),
        ("Bearer tokens expired", "Bearer tokens expired"),
        (
            "请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY 或 config.toml",
            "请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY 或 config.toml",
        ),
        ("maximum context length is 65536 tokens", "maximum context length is 65536 tokens"),
    ],
)
def test_anything_shaped_like_a_credential_is_masked(text, kept):
    assert scrub(text) == kept


def test_the_base64_of_a_known_secret_is_masked_wherever_it_sits():
    from pixiu_cli.kernel.safe_text import remember_secret, remember_url

    remember_url("https://carol:Zq9-unique-pw@proxy.example/v1")
    remember_secret("sk-echo-test-" + "9" * 20)
    pair, key = b64("carol:Zq9-unique-pw"), b64("sk-echo-test-" + "9" * 20)
    line = f"echo={pair} token64={key} unpadded={key.rstrip('=')} pw=Zq9-unique-pw"
    masked = scrub(line)
    assert "Zq9-unique-pw" not in masked and pair not in masked and key.rstrip("=") not in masked, masked
    assert masked.startswith("echo=*** token64=***"), masked


def test_the_sdk_gets_the_url_without_credentials_and_the_key(echoing):
    from pixiu_cli.conversation.llm.client import ChatClient

    url = echoing.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
    client = ChatClient(base_url=url, api_key=PLANTED_KEY, model="m", provider="openai-compatible")
    sdk = client._client()
    assert str(sdk.base_url).rstrip("/") == echoing.base_url
    assert PASSWORD not in repr(client) and USER not in repr(client)


def test_a_credentials_url_with_a_key_says_the_credentials_are_not_sent(tmp_path):
    env = clean_env(
        Path(tmp_path / "home"),
        PIXIU_API_KEY=PLANTED_KEY,
        PIXIU_BASE_URL=f"http://{USER}:{PASSWORD}@127.0.0.1:9/v1",
        PIXIU_MODEL="m",
        PIXIU_MAX_RETRIES="0",
    )
    done = pixiu_in_process(env, "ask", "你好", text=True)
    first = done.stderr.splitlines()[0]
    assert (
        first == "注意：base_url 中的用户名和密码不会发送（它们会顶替 API key）；API key 按文档以 Bearer 认证头发送。"
    )
    assert "无法连接模型服务 http://127.0.0.1:9/v1" in done.stderr and not leaked(done.stderr)


def test_errors_stored_before_are_scrubbed_when_the_database_is_opened(tmp_path):
    from pixiu_cli.kernel.store.database import open_database

    path = tmp_path / "old.db"
    db = open_database(path)
    leaked_line = f"请求被模型服务拒绝（400）：you sent Authorization: Basic {b64('dave:older-pw-1')}"
    db.execute("insert into conversations (id, created_at) values (1, '2026-11-01T00:00:00+00:00')")
    db.execute(
        "insert into turns (id, conversation_id, seq, user_text, status, error, created_at) "
        "values (1, 1, 1, '你好', 'error', ?, '2026-11-01T00:00:00+00:00')",
        [leaked_line],
    )
    db.execute("delete from _sqlite_migrations where name = 'm030_scrub_echoed_credentials'")
    db.conn.commit()
    db.close()
    db = open_database(path)
    (error,) = db.execute("select error from turns where id = 1").fetchone()
    db.close()
    assert error == "请求被模型服务拒绝（400）：you sent Authorization: Basic ***"


def test_a_sync_error_carrying_a_proxys_credentials_is_stored_masked(tmp_path):
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.market.store import MarketStore

    db = open_database(tmp_path / "pixiu.db")
    cause = f"ProxyError('http://carl:{PASSWORD}@10.0.0.1:3128'), Proxy-Authorization: Basic {b64('carl:' + PASSWORD)}"
    MarketStore(db).mark_failed("600519", cause, "2026-12-01T16:00:00+08:00")
    (stored,) = db.execute("select last_error from market_series where symbol = '600519'").fetchone()
    db.close()
    assert stored == "2026-12-01T16:00:00+08:00 ProxyError('http://***@10.0.0.1:3128'), Proxy-Authorization: Basic ***"


# A server echoing the key in another form than it was sent (without its `sk-` prefix, reversed,
# in upper case, as hex, inside base64, a fragment of it): each is found by value and masked.
# made at run time from a phrase, so no string shaped like a real key sits in the repository
KEY = "sk-" + hashlib.sha256(b"pixiu echoed-key test").hexdigest()[:32]


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


def test_a_key_echoed_in_another_form_is_never_shown_or_stored(echoing, tmp_path, monkeypatch):
    from pixiu_cli.kernel import safe_text as redact

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
