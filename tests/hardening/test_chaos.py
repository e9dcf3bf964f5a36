"""Resilience judged from outside: `llmock`, an independent OpenAI-compatible chaos server,
injects faults at random and then grades the client from what it saw (Retry-After honoured,
backoff, giving up, truncated streams accepted). Twenty `pixiu ask --continue` turns on the
demo data run through the real CLI entry point (in process: the chaos is the server's) with the
default settings; llmock's verdict must have no `error` finding and at least 19 of the 20
turns must complete.

Warnings llmock may still report, and why they are expected:
* `malformed_chunk_ignored` — the corrupted chunk came after the finish reason (the usage
  chunk): nothing of the answer was missing, so the reply is kept and its usage is unknown;
  or pixiu stopped reading at the bad chunk and retried, but the whole small response was
  already sent, so llmock saw a completed stream and counted the retry as a new call.
* `gave_up` — a turn's retry budget (PIXIU_MAX_RETRIES) was spent on earlier faults.

llmock draws its faults from Python's global `random`; the test seeds it (PIXIU_CHAOS_SEED,
default below) so that the suite sees the same fault sequence on every run. Set
PIXIU_CHAOS_SEED=random for a fresh draw: about 40 % of attempts fail, so a run now and then
spends a call's whole retry budget, and llmock reports any call whose last attempt was a
truncated stream as `truncated_stream_accepted` even though pixiu marked it failed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import clean_env, pixiu_in_process

pytest.importorskip("llmock")
LLMOCK_BIN = str(Path(sys.executable).with_name("llmock"))
FAULT_MIX = [
    "--error-rate",
    "429=0.15",
    "--error-rate",
    "503=0.10",
    "--stream-fault",
    "truncate=0.10",
    "--stream-fault",
    "malformed=0.05",
    "--stream-fault",
    "disconnect=0.05",
]
TURNS = 20
DEFAULT_SEED = "20261130"
# llmock's own console script, with the global random generator seeded first.
SEEDED_LAUNCHER = (
    "import random, sys; random.seed(int(sys.argv[1])); sys.argv = ['llmock', *sys.argv[2:]]; "
    "from llmock.cli import app; app()"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def chaos_server(tmp_path):
    port = free_port()
    env = {k: v for k, v in clean_env(tmp_path).items() if not k.startswith("LLMOCK_")}
    log = (tmp_path / "llmock.log").open("wb")
    seed = os.environ.get("PIXIU_CHAOS_SEED", DEFAULT_SEED)
    launcher = [LLMOCK_BIN] if seed == "random" else [sys.executable, "-c", SEEDED_LAUNCHER, seed]
    process = subprocess.Popen(
        [*launcher, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", *FAULT_MIX],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"llmock did not start: {(tmp_path / 'llmock.log').read_text(errors='replace')}")
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log.close()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_llmock_chaos_verdict_has_no_errors(chaos_server, pixiu_home):
    env = clean_env(
        pixiu_home, PIXIU_BASE_URL=f"{chaos_server}/v1", PIXIU_API_KEY="sk-chaos-test", PIXIU_MODEL="gpt-4o-mini"
    )
    results = []
    started = time.monotonic()
    for n in range(1, TURNS + 1):
        args = ["ask", "--demo", "--json", *(["--continue"] if n > 1 else []), f"第 {n} 问：我的持仓现在怎么样？"]
        done = pixiu_in_process(env, *args)  # the chaos is the server's: the asks run in process
        assert b"Traceback" not in done.stderr + done.stdout
        results.append(json.loads(done.stdout))
    elapsed = time.monotonic() - started
    report = subprocess.run(
        [LLMOCK_BIN, "report", "--url", chaos_server, "--json"],
        capture_output=True,
        timeout=60,
        env=clean_env(pixiu_home),
    )
    verdict = json.loads(report.stdout)
    complete = sum(r["status"] == "complete" for r in results)
    summary = (
        f"{complete}/{TURNS} turns complete in {elapsed:.0f} s; attempts per turn "
        f"{[r['attempts'] for r in results]}; llmock: {verdict['calls']} calls, {verdict['attempts']} attempts, "
        f"{verdict['faults_injected']} faults, {verdict['errors']} errors, {verdict['warnings']} warnings "
        f"{sorted(f['code'] for f in verdict['findings'])}"
    )
    print(summary)
    assert [f for f in verdict["findings"] if f["severity"] == "error"] == [], summary
    assert complete >= 19, summary
    failed = [r for r in results if r["status"] != "complete"]
    assert all(r["error"] and "\n" not in r["error"] for r in failed), failed
