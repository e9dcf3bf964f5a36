"""`pixiu chat` and `pixiu ask` with plain flags skip typer's coercion (which imports
pydantic: typer._adapters), and still behave exactly as through typer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import clean_env, pixiu_in_process


def _run(argv: list[str], tmp_path, stdin: str = "") -> subprocess.CompletedProcess:
    script = (
        "import sys, atexit\n"
        f"sys.argv = {['pixiu', *argv]!r}\n"
        "atexit.register(lambda: print('COERCION', 'typer._adapters' in sys.modules, file=sys.stderr))\n"
        "from pixiu_cli.cli import main\n"
        "main()\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_") and "API_KEY" not in k}
    env.update(PIXIU_HOME=str(tmp_path))
    return subprocess.run(
        [sys.executable, "-c", script], env=env, input=stdin, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_ask_with_plain_flags_answers_without_typer_coercion(tmp_path):
    done = _run(["ask", "--json", "--offline", "茅台最近怎么样"], tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "complete" and answer["offline"] is True and answer["reply"]
    assert "COERCION False" in done.stderr


# The rest goes through the same entry point (`main`, which takes the fast path from
# sys.argv) inside this process: only the import check above needs a fresh process.


def _main(tmp_path, *argv: str):
    return pixiu_in_process(clean_env(tmp_path), *argv, text=True)


def test_ask_continue_reuses_the_conversation(tmp_path):
    first = json.loads(_main(tmp_path, "ask", "--json", "茅台最近怎么样").stdout)
    second = json.loads(_main(tmp_path, "ask", "-c", "--json", "那五粮液呢").stdout)
    assert second["conversation_id"] == first["conversation_id"] and second["turn"] == first["turn"] + 1


def test_values_and_unknown_flags_still_go_through_typer(tmp_path):
    done = _main(tmp_path, "ask", "--json", "--conversation", "999", "茅台")
    assert done.returncode == 1 and "999" in done.stderr
    done = _main(tmp_path, "ask", "--nonsense", "茅台")
    assert done.returncode == 2 and "--nonsense" in done.stderr
    done = _main(tmp_path, "chat", "extra")
    assert done.returncode == 2


def test_empty_question_is_one_line_either_way(tmp_path):
    done = _main(tmp_path, "ask", "")
    assert done.returncode == 1 and "问题为空" in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
