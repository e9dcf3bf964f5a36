"""A tiny hand-written HTTP server on loopback for replies the offline server cannot make:
a whole JSON completion to a streamed request, an HTML login page, an event stream that
trickles forever, a stream that ends cleanly but early. Each request is answered by the
function the test puts in `BadServer.respond`; every request is counted."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chunk(content: str | None = None, finish: str | None = None, **delta) -> str:
    if content is not None:
        delta["content"] = content
    return json.dumps(
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        },
        ensure_ascii=False,
    )


USAGE = json.dumps(
    {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }
)


def completion(text: str) -> dict:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }


class BadServer:
    def __init__(self) -> None:
        self.respond: Callable[[BaseHTTPRequestHandler], None] = lambda h: h.send_error(500)
        self.requests = 0
        self.bodies: list[bytes] = []  # every request's body, in order
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                server.bodies.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                server.requests += 1
                try:
                    server.respond(self)
                except OSError:
                    pass  # the client gave up, as it should
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def send_body(handler, content_type: str, body: bytes, status: int = 200) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


def send_events(handler, events: list[str], *, pause: float = 0.0) -> None:
    """An event stream without Content-Length, closed when the events are sent."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.end_headers()
    for event in events:
        handler.wfile.write(f"data: {event}\n\n".encode())
        handler.wfile.flush()
        time.sleep(pause)


def trickle_forever(server: BadServer, piece: bytes, pause: float) -> Callable:
    """A 200 event stream that sends `piece` every `pause` seconds until the client leaves."""

    def respond(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        while not server.stopping.is_set():
            handler.wfile.write(piece)
            handler.wfile.flush()
            time.sleep(pause)

    return respond
