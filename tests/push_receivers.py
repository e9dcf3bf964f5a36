"""Loopback stand-ins for the push services, written from their documented APIs, not from
pixiu's code: each checks the request's shape, its signature and its size limit, and answers
as the service does (an error code in a 200 body, a 429 with its wait, a 5xx). A script of
faults per service makes the next requests fail: `receiver.faults["wecom"] = ["429", "rate"]`.

- 企业微信 `POST /cgi-bin/webhook/send?key=K`: {"msgtype": "markdown", "markdown": {"content"}},
  content ≤ 4096 bytes (else errcode 40058); an unknown key is errcode 93000.
- 飞书 `POST /open-apis/bot/v2/hook/TOKEN`: body ≤ 20 KB (else code 9499); with a secret,
  timestamp within an hour and sign = Base64(HMAC-SHA256(key="ts\\nsecret", msg="")), else 19021.
- 钉钉 `POST /robot/send?access_token=T&timestamp=MS&sign=S`: sign = urlencoded Base64(HMAC-
  SHA256(key=secret, msg="ts\\nsecret")), else errcode 310000; text ≤ 20,000 bytes.
- Telegram `POST /botTOKEN/sendMessage`: 1–4096 characters after HTML entity parsing, else
  400 "message is too long"; a wrong token is 401.
- the generic webhook `POST /hook`: any JSON object.
- SMTP (`SmtpReceiver`): EHLO, STARTTLS, AUTH PLAIN/LOGIN, MAIL, RCPT, DATA, QUIT; implicit
  TLS with `implicit_tls`; faults "auth" (535), "busy" (421 greeting), "rcpt" (550)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import json
import re
import socketserver
import ssl
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote_plus, urlsplit

CERT = Path(__file__).resolve().parent / "fixtures" / "push" / "loopback-cert.pem"
KEY = CERT.with_name("loopback-key.pem")

WECOM_KEY = "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"
FEISHU_TOKEN = "5e3d587e-d78e-4a07-bd07-265f269f86fd"
FEISHU_SECRET = "nIMtb7r3N9pkXyXdtAbx6e"
DINGTALK_TOKEN = "50cb6e954c89afa14fb97754eafd886d658fcda27d05015a26b474e7bd2f0a59"
DINGTALK_SECRET = "SEC5a3ecf88f2b3eb50db30ecfc00f53033ac909c99bf7f88fd612bda89d7f3a9dc"
TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
TELEGRAM_CHAT = "-1001234567890"
SLOW_SECONDS = 1.6  # longer than the 1-second client timeout the fault tests configure


def feishu_sign(timestamp: str, secret: str) -> str:
    return base64.b64encode(hmac.new(f"{timestamp}\n{secret}".encode(), b"", hashlib.sha256).digest()).decode()


def dingtalk_sign(timestamp: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


class Receiver:
    """Every HTTP service on one loopback port; `received[service]` holds the accepted bodies."""

    def __init__(self):
        self.received: dict[str, list[dict]] = defaultdict(list)
        self.requests: dict[str, int] = defaultdict(int)
        self.faults: dict[str, list[str]] = defaultdict(list)
        self.lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"receiver": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def urls(self) -> dict[str, str]:
        return {
            "wecom": f"{self.base}/cgi-bin/webhook/send?key={WECOM_KEY}",
            "feishu": f"{self.base}/open-apis/bot/v2/hook/{FEISHU_TOKEN}",
            "dingtalk": f"{self.base}/robot/send?access_token={DINGTALK_TOKEN}",
            "telegram": self.base,
            "webhook": f"{self.base}/hook",
        }

    def config(self, *services: str, timeout: float = 5) -> str:
        """A config.toml [push] section for `services` on this receiver."""
        urls = self.urls()
        tables = {
            "wecom": f'[push.wecom]\nwebhook = "{urls["wecom"]}"\n',
            "feishu": f'[push.feishu]\nwebhook = "{urls["feishu"]}"\nsecret = "{FEISHU_SECRET}"\n',
            "dingtalk": f'[push.dingtalk]\nwebhook = "{urls["dingtalk"]}"\nsecret = "{DINGTALK_SECRET}"\n',
            "telegram": f'[push.telegram]\ntoken = "{TELEGRAM_TOKEN}"\nchat_id = "{TELEGRAM_CHAT}"\n'
            f'api_base = "{urls["telegram"]}"\n',
            "webhook": f'[push.webhook]\nurl = "{urls["webhook"]}"\n',
        }
        return f"[push]\ntimeout = {timeout}\n" + "".join(tables[s] for s in services)

    def fault(self, service: str) -> str | None:
        with self.lock:
            self.requests[service] += 1
            return self.faults[service].pop(0) if self.faults[service] else None

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    receiver: Receiver

    def log_message(self, *args):
        pass

    def _answer(self, status: int, body: dict, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout fault)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        service = self._service(url.path)
        if service is None:
            return self._answer(404, {"error": "no such route"})
        fault = self.receiver.fault(service)
        if fault == "timeout":
            time.sleep(SLOW_SECONDS)
        if fault in ("429", "500", "503"):
            return self._http_fault(service, int(fault))
        try:
            body = json.loads(raw.decode("utf-8"))
        except ValueError:
            return self._answer(400, {"error": "not json"})
        getattr(self, f"_{service}")(url.path, query, raw, body, fault)

    @staticmethod
    def _service(path: str) -> str | None:
        if path == "/cgi-bin/webhook/send":
            return "wecom"
        if path.startswith("/open-apis/bot/v2/hook/"):
            return "feishu"
        if path == "/robot/send":
            return "dingtalk"
        if re.fullmatch(r"/bot[^/]+/sendMessage", path):
            return "telegram"
        return "webhook" if path == "/hook" else None

    def _http_fault(self, service: str, status: int) -> None:
        if service == "telegram" and status == 429:
            body = {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 0"}
            return self._answer(429, dict(body, parameters={"retry_after": 0}))
        headers = {"Retry-After": "0"} if status == 429 else {}
        if service == "feishu" and status == 429:
            headers = {"x-ogw-ratelimit-reset": "0"}
            return self._answer(429, {"code": 99991400, "msg": "request trigger frequency limit"}, headers)
        return self._answer(status, {"error": f"HTTP {status}"}, headers)

    def _accept(self, service: str, body: dict, reply: dict) -> None:
        with self.receiver.lock:
            self.receiver.received[service].append(body)
        self._answer(200, reply)

    def _wecom(self, path, query, raw, body, fault):
        if query.get("key") != WECOM_KEY:
            return self._answer(200, {"errcode": 93000, "errmsg": "invalid webhook url"})
        if fault == "rate":
            return self._answer(200, {"errcode": 45009, "errmsg": "api freq out of limit"})
        if fault == "error":
            return self._answer(200, {"errcode": 40008, "errmsg": "invalid message type"})
        content = (body.get("markdown") or {}).get("content")
        if body.get("msgtype") != "markdown" or not isinstance(content, str) or not content:
            return self._answer(200, {"errcode": 40008, "errmsg": "invalid message type"})
        if len(content.encode("utf-8")) > 4096:
            return self._answer(200, {"errcode": 40058, "errmsg": "markdown.content exceed max length 4096"})
        self._accept("wecom", body, {"errcode": 0, "errmsg": "ok"})

    def _feishu(self, path, query, raw, body, fault):
        if path.rsplit("/", 1)[1] != FEISHU_TOKEN:
            return self._answer(404, {"code": 19001, "msg": "param invalid: incoming webhook access token invalid"})
        if len(raw) > 20 * 1024:
            return self._answer(400, {"code": 9499, "msg": "Bad Request", "data": {}})
        stamp = str(body.get("timestamp", ""))
        fresh = stamp.isdigit() and abs(time.time() - int(stamp)) <= 3600
        if not fresh or body.get("sign") != feishu_sign(stamp, FEISHU_SECRET):
            return self._answer(200, {"code": 19021, "msg": "sign match fail or timestamp is not within one hour"})
        if fault == "rate":
            return self._answer(400, {"code": 11232, "msg": "frequency limited"})
        if fault == "error":
            return self._answer(200, {"code": 19024, "msg": "Key Words Not Found"})
        card = body.get("card") or {}
        if body.get("msg_type") != "interactive" or not card.get("elements"):
            return self._answer(400, {"code": 9499, "msg": "Bad Request", "data": {}})
        self._accept("feishu", body, {"code": 0, "msg": "success", "data": {}})

    def _dingtalk(self, path, query, raw, body, fault):
        if query.get("access_token") != DINGTALK_TOKEN:
            return self._answer(200, {"errcode": 300001, "errmsg": "token is not exist"})
        stamp = query.get("timestamp", "")
        fresh = stamp.isdigit() and abs(time.time() * 1000 - int(stamp)) <= 3_600_000
        expected = quote_plus(dingtalk_sign(stamp, DINGTALK_SECRET))
        # parse_qs decoded the sign once; the client URL-encoded it once, as documented
        if not fresh or quote_plus(query.get("sign", "")) != expected:
            return self._answer(200, {"errcode": 310000, "errmsg": "sign not match"})
        if fault == "rate":
            return self._answer(200, {"errcode": 130101, "errmsg": "send too fast, exceed 20 times per minute"})
        if fault == "error":
            return self._answer(200, {"errcode": 310000, "errmsg": "keywords not in content"})
        markdown = body.get("markdown") or {}
        if body.get("msgtype") != "markdown" or not markdown.get("title") or not markdown.get("text"):
            return self._answer(200, {"errcode": 40035, "errmsg": "缺少参数 json"})
        if len(markdown["text"].encode("utf-8")) > 20_000:
            return self._answer(200, {"errcode": 460101, "errmsg": "message too long, exceed 20000 bytes"})
        self._accept("dingtalk", body, {"errcode": 0, "errmsg": "ok"})

    def _telegram(self, path, query, raw, body, fault):
        if path != f"/bot{TELEGRAM_TOKEN}/sendMessage":
            return self._answer(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        if fault == "error":
            return self._answer(400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"})
        text = body.get("text")
        if str(body.get("chat_id")) != TELEGRAM_CHAT or not isinstance(text, str):
            return self._answer(400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"})
        parsed = (
            html.unescape(re.sub(r"</?(b|i|u|s|code|pre|a)( [^>]*)?>", "", text))
            if body.get("parse_mode") == "HTML"
            else text
        )
        units = len(parsed.encode("utf-16-le")) // 2
        if not 1 <= units <= 4096:
            return self._answer(
                400, {"ok": False, "error_code": 400, "description": "Bad Request: message is too long"}
            )
        body = dict(body, parsed=parsed)
        self._accept("telegram", body, {"ok": True, "result": {"message_id": 1, "chat": {"id": int(TELEGRAM_CHAT)}}})

    def _webhook(self, path, query, raw, body, fault):
        if fault == "error":
            return self._answer(400, {"error": "bad"})
        self._accept("webhook", body, {"ok": True})


class SmtpReceiver:
    """A minimal SMTP server on loopback: STARTTLS (or implicit TLS) with the fixture's
    certificate, AUTH PLAIN and LOGIN against one user, and the mails it accepted."""

    def __init__(self, user: str = "investor@example.com", password: str = "smtp-pass-1234", implicit_tls=False):
        self.user, self.password, self.implicit_tls = user, password, implicit_tls
        self.mails: list[dict] = []
        self.faults: list[str] = []
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(CERT, KEY)
        handler = type("SmtpHandler", (_SmtpHandler,), {"receiver": self})
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def config(self, security: str, timeout: float = 5) -> str:
        return (
            f'[push]\ntimeout = {timeout}\n[push.email]\nhost = "127.0.0.1"\nport = {self.port}\n'
            f'security = "{security}"\nuser = "{self.user}"\npassword = "{self.password}"\n'
            f'to = ["me@example.com"]\nca_file = "{CERT}"\n'
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _SmtpHandler(socketserver.StreamRequestHandler):
    receiver: SmtpReceiver

    def _send(self, line: str) -> None:
        self.wfile.write((line + "\r\n").encode())
        self.wfile.flush()

    def _wrap(self) -> None:
        self.connection = self.receiver.context.wrap_socket(self.connection, server_side=True)
        self.rfile = self.connection.makefile("rb")
        self.wfile = self.connection.makefile("wb")

    def handle(self):
        try:
            self._session()
        except (ssl.SSLError, OSError):
            pass

    def _session(self):
        fault = self.receiver.faults.pop(0) if self.receiver.faults else None
        if self.receiver.implicit_tls:
            self._wrap()
        if fault == "busy":
            return self._send("421 4.3.2 Service not available, try later")
        self._send("220 loopback ESMTP")
        mail = {"tls": self.receiver.implicit_tls, "auth": False, "rcpt": []}
        while True:
            raw = self.rfile.readline()
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            verb = line.split(" ", 1)[0].upper()
            if not self._command(verb, line, mail, fault):
                return

    def _command(self, verb: str, line: str, mail: dict, fault: str | None) -> bool:
        if verb in ("EHLO", "HELO"):
            options = ["AUTH PLAIN LOGIN"] if mail["tls"] else ["STARTTLS"]
            for option in ["loopback", "8BITMIME", *options][:-1]:
                self._send(f"250-{option}")
            self._send(f"250 {options[-1]}")
        elif verb == "STARTTLS":
            self._send("220 2.0.0 Ready to start TLS")
            self._wrap()
            mail["tls"] = True
        elif verb == "AUTH":
            self._auth(line, mail, fault)
        elif verb == "MAIL":
            self._send("250 OK" if mail["auth"] else "530 5.7.0 Authentication required")
        elif verb == "RCPT":
            if fault == "rcpt":
                self._send("550 5.1.1 No such user")
            else:
                mail["rcpt"].append(line.split(":", 1)[1].strip().strip("<>"))
                self._send("250 OK")
        elif verb == "DATA":
            self._data(mail)
        elif verb == "QUIT":
            self._send("221 Bye")
            return False
        else:
            self._send("250 OK")
        return True

    def _auth(self, line: str, mail: dict, fault: str | None) -> None:
        parts = line.split()
        if parts[1].upper() == "PLAIN":
            token = parts[2] if len(parts) > 2 else self._challenge("")
            _, user, password = base64.b64decode(token).decode().split("\0")
        else:
            user = base64.b64decode(parts[2] if len(parts) > 2 else self._challenge("VXNlcm5hbWU6")).decode()
            password = base64.b64decode(self._challenge("UGFzc3dvcmQ6")).decode()
        ok = fault != "auth" and (user, password) == (self.receiver.user, self.receiver.password)
        mail["auth"] = ok
        self._send("235 2.7.0 Authentication successful" if ok else "535 5.7.8 Authentication credentials invalid")

    def _challenge(self, prompt: str) -> str:
        self._send(f"334 {prompt}")
        return self.rfile.readline().decode().strip()

    def _data(self, mail: dict) -> None:
        self._send("354 End data with <CR><LF>.<CR><LF>")
        lines = []
        while True:
            raw = self.rfile.readline()
            if raw in (b".\r\n", b".\n", b""):
                break
            lines.append(raw[1:] if raw.startswith(b"..") else raw)
        import email
        import email.policy

        message = email.message_from_bytes(b"".join(lines), policy=email.policy.default)
        self.receiver.mails.append(
            {"tls": mail["tls"], "rcpt": list(mail["rcpt"]), "subject": message["Subject"],
             "body": message.get_content(), "from": message["From"], "date": message["Date"]}
        )  # fmt: skip
        self._send("250 2.0.0 OK queued")


class HostileReceiver:
    """A receiver that never delivers, in the ways an address gone wrong can look like it did:
    `/moved` answers every POST with a 302 to `elsewhere` (another loopback port, whose GET
    answers each service's success), `/trickle` sends its answer a byte every `TRICKLE` seconds
    for up to `TRICKLE_FOR` seconds, `/huge` answers 200 with `HUGE` bytes of JSON."""

    TRICKLE, TRICKLE_FOR, HUGE = 0.3, 20.0, 100 * 1024 * 1024

    def __init__(self):
        self.elsewhere_gets = 0
        self.huge_written = 0
        self.served: list[str] = []
        handler = type("Handler", (_HostileHandler,), {"receiver": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        target = type("Elsewhere", (_ElsewhereHandler,), {"receiver": self})
        self.elsewhere = ThreadingHTTPServer(("127.0.0.1", 0), target)
        self.elsewhere.daemon_threads = True
        for server in (self.server, self.elsewhere):
            threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()

    def url(self, route: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{route}"

    def close(self) -> None:
        for server in (self.server, self.elsewhere):
            server.shutdown()
            server.server_close()


class _HostileHandler(BaseHTTPRequestHandler):
    receiver: HostileReceiver

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        route = urlsplit(self.path).path
        self.receiver.served.append(route)
        try:
            getattr(self, "_" + route.strip("/"))()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should

    def _moved(self):
        self.send_response(302)
        self.send_header("Location", f"http://127.0.0.1:{self.receiver.elsewhere.server_address[1]}/got")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _trickle(self):
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        self.wfile.flush()
        started = time.monotonic()
        while time.monotonic() - started < HostileReceiver.TRICKLE_FOR:
            self.wfile.write(b"X")  # a header line that never ends
            self.wfile.flush()
            time.sleep(HostileReceiver.TRICKLE)

    def _huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(HostileReceiver.HUGE))
        self.end_headers()
        chunk = b" " * (1024 * 1024)
        self.wfile.write(b'{"errcode": 0, "ok": true, "pad": "')
        for _ in range(HostileReceiver.HUGE // len(chunk)):
            self.wfile.write(chunk)
            self.receiver.huge_written += len(chunk)


class _ElsewhereHandler(BaseHTTPRequestHandler):
    receiver: HostileReceiver

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.receiver.elsewhere_gets += 1
        data = json.dumps({"errcode": 0, "errmsg": "ok", "code": 0, "ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class TricklingSmtp:
    """An SMTP server whose greeting never ends: a byte every `HostileReceiver.TRICKLE` seconds."""

    def __init__(self):
        handler = type("Trickle", (_TrickleHandler,), {})
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def config(self, timeout: float) -> str:
        port = self.server.server_address[1]
        return (
            f'[push]\ntimeout = {timeout}\n[push.email]\nhost = "127.0.0.1"\nport = {port}\n'
            f'security = "none"\nto = ["me@example.com"]\n'
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _TrickleHandler(socketserver.StreamRequestHandler):
    def handle(self):
        started = time.monotonic()
        try:
            while time.monotonic() - started < HostileReceiver.TRICKLE_FOR:
                self.wfile.write(b"2")
                self.wfile.flush()
                time.sleep(HostileReceiver.TRICKLE)
        except OSError:
            pass  # the client gave up, as it should
