"""Hiding credentials in what is shown: a base URL may carry `user:password@`, which must
never reach the terminal (banner, `config show`, `config set`, error lines)."""

from __future__ import annotations

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


def has_credentials(url: str) -> bool:
    return isinstance(url, str) and mask_url(url) != url
