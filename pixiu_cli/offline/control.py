"""A small client for the offline server's control endpoints, for driving a server
that runs in another process and was started with control on (its token is required)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from .script import Fault, ScriptedReply
from .server import CONTROL_TOKEN_HEADER


class OfflineControl:
    def __init__(self, url: str, token: str, timeout: float = 10.0) -> None:
        """``url`` is the server root or its ``base_url`` (a trailing ``/v1`` is dropped);
        ``token`` the server's ``control_token``."""
        self.token = token
        url = url.rstrip("/")
        if url.endswith("/v1"):
            url = url[: -len("/v1")]
        self.url = url
        self.timeout = timeout

    def _call(self, method: str, path: str, payload: Any = None) -> Any:
        data = None if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={CONTROL_TOKEN_HEADER: self.token,
                     **({"Content-Type": "application/json"} if data is not None else {})},
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.loads(response.read() or b"null")

    def enqueue(self, *replies: ScriptedReply | str) -> int:
        """Queue replies; returns how many are pending."""
        items = [ScriptedReply(text=r) if isinstance(r, str) else r for r in replies]
        return self._call("POST", "/_pixiu/script", [r.to_dict() for r in items])["pending"]

    def inject(self, *faults: Fault) -> int:
        """Queue faults; returns how many are pending."""
        return self._call("POST", "/_pixiu/faults", [f.to_dict() for f in faults])["pending"]

    def requests(self) -> list[dict[str, Any]]:
        """The request log: dicts with method, path, headers (credentials hidden), key_sha256,
        body, json, status, usage."""
        return self._call("GET", "/_pixiu/requests")

    def reset(self) -> None:
        self._call("POST", "/_pixiu/reset", {})
