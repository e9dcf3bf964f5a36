"""Hiding credentials in what is shown: a base URL may carry `user:password@`, which must
never reach the terminal (banner, `config show`, `config set`, error lines)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "***"


def mask_url(url: str) -> str:
    """`https://user:pass@host/v1` → `https://***@host/v1`; anything else unchanged. The
    whole user-info part goes, since a token may sit in the user name alone."""
    if not isinstance(url, str) or "@" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=f"{MASK}@{parts.netloc.rsplit('@', 1)[1]}"))


# Every secret this process knows (API keys, URL passwords), registered when settings are
# loaded, so that an error line built from any exception message is scrubbed of them before
# it is shown or stored: a library may put a header or a URL into its message.
_SECRETS: set[str] = set()
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")


def remember_secret(value) -> None:
    if isinstance(value, str) and len(value.strip()) >= 4:
        _SECRETS.add(value.strip())


def remember_url(url) -> None:
    if isinstance(url, str) and "@" in url:
        try:
            parts = urlsplit(url)
        except ValueError:
            return
        remember_secret(parts.password)
        remember_secret(parts.username)


def scrub(text: str) -> str:
    """`text` without any known secret (nor a long key's last eight characters, which
    providers echo in masked keys) and without credentials in any URL."""
    ordered = sorted(_SECRETS, key=len, reverse=True)
    for secret in ordered:  # whole secrets first: one may hold another (a bot's address its key)
        text = text.replace(secret, MASK)
    for secret in ordered:
        if len(secret) >= 16:
            text = text.replace(secret[-8:], MASK)
    return _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)
