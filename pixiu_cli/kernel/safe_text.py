"""Hiding credentials in what is shown or stored. A base URL may carry `user:password@`, which
must never reach the terminal (banner, `config show`, `config set`, error lines), and a server
may echo the request's headers into its error body (`Authorization: Basic <base64>`), which
must never reach stderr, `turns.error`, `calls.error` and so the backups. `scrub` is the one
place every error line passes through; its callers are the renderer (every line shown), the
model client (every error it builds) and the conversation store (every error it writes).

Inert text: what pixiu writes anywhere (a terminal, a pipe, a saved file, a push) carries
no control sequence that would act on whatever shows it. Stored text (notes, news, titles, the
model's replies) and echoed input reach terminals, so control characters must not act on it:
ESC sequences could clear the screen, set the title or write the clipboard, a carriage return
could overwrite a line.
C0 controls other than newline and tab become their visible Control Pictures (␛, ␇ …),
carriage returns are dropped, DEL and C1 controls and lone surrogates (which would also
fail to encode) become U+FFFD. Bidirectional overrides and isolates (U+202A–202E,
U+2066–2069) would make text read differently from what it is ("Trojan Source"): they
become U+FFFD too. The one sanitiser: the terminal, pipes, /save, exports and push payloads
all use it."""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"


def _with_netloc(url, user_info: str | None):
    """`url` with its user-info replaced by `user_info` (None: removed); unchanged without one."""
    if not isinstance(url, str) or "@" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user_info}@{host}" if user_info else host))


def mask_url(url: str) -> str:
    """`https://user:pass@host/v1` → `https://***@host/v1`; anything else unchanged. The
    whole user-info part goes, since a token may sit in the user name alone."""
    return _with_netloc(url, MASK)


def without_credentials(url: str) -> str:
    """The URL with its user-info removed: what is sent to the SDK and named in errors (an
    HTTP client turns `user:password@` into `Authorization: Basic`, replacing the key)."""
    return _with_netloc(url, None)


def has_credentials(url) -> bool:
    return isinstance(url, str) and without_credentials(url) != url


# Every secret this process knows (API keys, URL passwords, and the base64 forms a header
# carries them in), registered when settings are loaded and when a model client is built, so
# that an error line built from any exception message is scrubbed of them before it is shown
# or stored: a library may put a header or a URL into its message.
_SECRETS: set[str] = set()


def _base64_forms(value: str) -> set[str]:
    raw = value.encode("utf-8", "surrogatepass")
    forms = {base64.b64encode(raw).decode("ascii"), base64.urlsafe_b64encode(raw).decode("ascii")}
    return {f for form in forms for f in (form, form.rstrip("="))}


def _add(value: str) -> None:
    _SECRETS.add(value)
    _SECRETS.update(_base64_forms(value))


def remember_secret(value) -> None:
    if isinstance(value, str) and len(value.strip()) >= 4:
        _add(value.strip())


def remember_url(url) -> None:
    """The user name and password of a URL, each and as the `user:password` pair that HTTP
    Basic authentication sends in base64 (in the URL's percent-encoding and decoded)."""
    if not isinstance(url, str) or "@" not in url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if parts.username is None:
        return
    for decode in (str, unquote):
        user, password = decode(parts.username), decode(parts.password or "")
        remember_secret(password)
        remember_secret(user)
        _SECRETS.update(_base64_forms(f"{user}:{password}"))


_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
# An Authorization header, whatever its scheme: `Authorization: Basic …`, `"authorization": "sk-…"`.
_AUTH_HEADER = re.compile(r"(?i)(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?)((?:[a-z]+\s+)?)([^\s\"',;}]+)")
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9\-._~+/]{8,}=*")
_BASIC = re.compile(r"(?i)\b(basic)(\s+)([A-Za-z0-9+/_-]{4,}={0,2})")
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")
_KEY_FIELD = re.compile(
    r"(?i)\b(api[_-]?key|access[_-]?token|refresh[_-]?token|client[_-]?secret|password|passwd|secret)"
    r"([\"']?\s*[=:]\s*[\"']?)([^\s\"'&,;)}\]]+)"
)


def _basic(match: re.Match) -> str:
    """`Basic <base64 of user:password>` masked; `Basic usage` and the like left alone."""
    try:
        decoded = base64.b64decode(match.group(3).replace("-", "+").replace("_", "/") + "==")
    except (binascii.Error, ValueError):
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{MASK}" if b":" in decoded else match.group(0)


def _masked_shapes(text: str) -> str:
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    text = _BEARER.sub(rf"\1\2{MASK}", text)
    text = _BASIC.sub(_basic, text)
    text = _KEY_LIKE.sub(f"sk-{MASK}", text)
    text = _KEY_FIELD.sub(rf"\1\2{MASK}", text)
    return _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)


# A server may echo a key in another form than it was sent: without its `sk-` prefix, reversed,
# in upper case, as hex, or inside base64 (of `Bearer <key>`, of a whole header). A long secret
# is found by its fragments in each of these forms: any FRAGMENT characters of it (or of its
# reversal), their hex, or their base64 at any alignment, in any letter case.
LONG_SECRET = 16  # characters from which a secret is also found by its fragments and its last eight
FRAGMENT = 12
_PREFIX = re.compile(r"^[A-Za-z]{2,8}[-_]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _base64_middles(raw: bytes) -> list[str]:
    """`raw`'s base64 as it reads inside any longer base64 text: at each of the three
    alignments, without the characters its neighbours share."""
    middles = []
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + raw).decode("ascii")[4 if pad else 0 : -4]
        middles += [encoded, encoded.translate(str.maketrans("+/", "-_"))]
    return middles


def _windows(secret: str) -> set[str]:
    """Every fragment of `secret` that counts as the secret, lower-cased."""
    core = _PREFIX.sub("", secret) if len(_PREFIX.sub("", secret)) >= FRAGMENT else secret
    raw = core.encode("utf-8", "surrogatepass")
    forms = [(core, FRAGMENT), (core[::-1], FRAGMENT), (raw.hex(), 2 * FRAGMENT)]
    forms += [(middle, FRAGMENT + 4) for middle in _base64_middles(raw)]
    return {form[i : i + size].translate(_ASCII_LOWER) for form, size in forms for i in range(len(form) - size + 1)}


@lru_cache(maxsize=4)
def _fragments(secrets: frozenset[str]):
    """An Aho-Corasick automaton of every long secret's fragments (None when there is none)."""
    # An address (a bot's webhook) is matched whole: its fragments would be any URL of its host.
    long = [s for s in secrets if len(s) >= LONG_SECRET and "://" not in s]
    windows = {w for secret in long for w in _windows(secret)}
    if not windows:
        return None
    import ahocorasick  # C extension: one pass over the text, however many fragments

    automaton = ahocorasick.Automaton()
    for window in windows:
        automaton.add_word(window, len(window))
    automaton.make_automaton()
    return automaton


def _mask_fragments(text: str, secrets: frozenset[str]) -> str:
    automaton = _fragments(secrets)
    if automaton is None:
        return text
    spans: list[list[int]] = []
    for end, size in sorted(automaton.iter(text.translate(_ASCII_LOWER)), key=lambda hit: hit[0] - hit[1]):
        start = end - size + 1
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end + 1)
        else:
            spans.append([start, end + 1])
    if not spans:
        return text
    pieces, last = [], 0
    for start, stop in spans:
        pieces += [text[last:start], MASK]
        last = stop
    return "".join(pieces) + text[last:]


def scrub(text: str) -> str:
    """`text` without any known secret or its base64 (nor a long key's last eight characters,
    which providers echo in masked keys, nor its fragments in another form: see FRAGMENT),
    without any value shaped like a credential (an Authorization header, `Bearer …`,
    `Basic <base64 of user:password>`, `sk-…`, `api_key=…`, `password: …`) and without
    credentials in any URL."""
    if not isinstance(text, str) or not text:
        return text
    ordered = sorted(_SECRETS, key=len, reverse=True)
    for secret in ordered:  # whole secrets first: one may hold another (a bot's address its key)
        text = text.replace(secret, MASK)
    text = _mask_fragments(text, frozenset(_SECRETS))
    for secret in ordered:
        if len(secret) >= LONG_SECRET:
            text = text.replace(secret[-8:], MASK)
    return _masked_shapes(text)


_VISIBLE = {c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\n\t\r"}
_VISIBLE.update({ord("\r"): None, 0x7F: "\ufffd"})
# Lone surrogates (U+D800-DFFF) are replaced by _SURROGATES, not by 2,048 entries of these
# tables (kept in every process: ~0.3 MiB of keys and values).
_VISIBLE.update({c: "\ufffd" for c in range(0x80, 0xA0)})
BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_VISIBLE.update({c: "\ufffd" for c in BIDI_CONTROLS})
# In JSON the same characters are written as \uXXXX escapes: the
# document still decodes to exactly the same strings.
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), *BIDI_CONTROLS)}
_SURROGATES = re.compile("[\ud800-\udfff]")


def inert_json(text: str) -> str:
    """JSON text (as json.dumps with ensure_ascii=False writes it) with DEL, C1 controls and
    bidi overrides escaped. They can only occur inside strings, so the result is valid JSON
    with the same value."""
    text = text.translate(_JSON_ESCAPES)
    return _SURROGATES.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _SURROGATES.search(text) else text


UNSAFE = re.compile("[" + "".join(re.escape(chr(c)) for c in _VISIBLE) + "\ud800-\udfff]")


def visible(text: str) -> str:
    """`text` with every control character made inert (see above); newlines and tabs kept."""
    # Most text has none: a search is much cheaper than translating character by character.
    if not UNSAFE.search(text):
        return text
    text = text.translate(_VISIBLE)
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text
