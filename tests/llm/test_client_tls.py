"""A client of a plain-http model address (a local server, the offline one) builds no TLS
context: loading the CA store cost every `pixiu ask` ~20 ms of CPU for a connection that
never uses it. An https address still gets the verified default context. Counted in a new
interpreter, where nothing has built a context before."""

from __future__ import annotations

from tests.helpers import fresh_python

COUNTING = """
import ssl
made = []
new = ssl.SSLContext.__new__
def counting(cls, *args, **kwargs):
    made.append(cls)
    return new(cls, *args, **kwargs)
ssl.SSLContext.__new__ = counting
from pixiu_cli.conversation.llm.client import ChatClient
def client(url):
    return ChatClient(base_url=url, api_key="sk-test", model="deepseek-test", provider="deepseek", max_retries=0)
"""


def test_a_call_to_a_plain_http_address_builds_no_tls_context():
    out = fresh_python(
        COUNTING
        + """
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest
from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.offline.server import OfflineServer
server = OfflineServer().start()
server.enqueue(ScriptedReply(text="你好"))
outcome = CallOutcome()
events = list(client(server.base_url).stream(ChatRequest(messages=[{"role": "user", "content": "hi"}]), outcome))
server.stop()
print(outcome.text, len(made))
"""
    )
    assert out.split() == ["你好", "0"]


def test_an_https_address_gets_the_verified_context():
    out = fresh_python(
        COUNTING
        + """
import ssl
client("https://api.example.invalid/v1").warm()
sdk = client("https://other.example.invalid/v1")._client()
print(len(made), made[0] is ssl.SSLContext or issubclass(made[0], ssl.SSLContext))
from pixiu_cli.conversation.llm.client import verified_tls_context
context = verified_tls_context()
print(context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname)
"""
    )
    assert out.split() == ["1", "True", "True"]  # one context, shared by both clients
