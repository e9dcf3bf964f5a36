"""`pixiu eval --live` as a user runs it: the real command, the real agent loop, a real model
server over HTTP (the offline reading model, which can only answer from what its request
carries), results stored and shown again by `--history`."""

from __future__ import annotations

import json
import subprocess

import pytest

from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.offline import grounded
from pixiu_cli.conversation.offline.server import OfflineServer
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.document_file import load_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import PIXIU_BIN, PLANTED_KEY, clean_env, pixiu_in_process

ANSWERS = data_dir() / "evals" / "answers"


def pixiu(env, *args, timeout=300):
    return subprocess.run([PIXIU_BIN, *args], env=env, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def reading_server():
    server = OfflineServer(cache_profile="deepseek", responder=grounded.respond).start()
    yield server
    server.stop()


@pytest.mark.slow
def test_offline_ablation_changes_the_result_and_history_keeps_it(offline_env):
    done = pixiu(
        offline_env,
        "eval",
        "--live",
        "--json",
        "--ablate",
        "portfolio_profiles,all",
        str(ANSWERS / "portfolio_profiles.json"),
        str(ANSWERS / "notes.json"),
    )
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    assert out["offline"] is True and "离线" in done.stderr.decode()
    assert out["cases"] == 15 and set(out["ablations"]) == {"portfolio_profiles", "all"}
    # portfolio questions need every holding's profile in the request: without it they fail
    assert out["categories"]["portfolio_profiles"] >= 0.8
    assert out["categories_by_ablation"]["portfolio_profiles"]["portfolio_profiles"] <= 0.2
    assert out["categories_by_ablation"]["portfolio_profiles"]["notes"] == out["categories"]["notes"] == 1.0
    assert out["ablations"]["all"] < out["ablations"]["portfolio_profiles"] < out["pass_rate"]
    history = json.loads(pixiu(offline_env, "eval", "--history", "--json").stdout)
    assert len(history) == 1 and history[0]["pass_rate"] == out["pass_rate"] and history[0]["offline"] is True


@pytest.mark.slow
def test_table_names_the_failures(offline_env):
    done = pixiu(offline_env, "eval", "--live", "--ablate", "notes", str(ANSWERS / "notes.json"))
    text = done.stdout.decode()
    assert done.returncode == 0 and "完整上下文" in text and "notes" in text and "5/5 通过" in text
    assert "离线评测模型" in text


@pytest.mark.slow
def test_a_paid_model_needs_confirmation(reading_server, pixiu_home):
    env = clean_env(
        pixiu_home,
        PIXIU_API_KEY=PLANTED_KEY,
        PIXIU_BASE_URL=reading_server.base_url,
        PIXIU_MODEL="deepseek-flash",
        PIXIU_MAX_RETRIES="0",
    )
    case = str(ANSWERS / "holdings.json")
    refused = pixiu(env, "eval", "--live", case)
    assert refused.returncode == 1 and "--yes" in refused.stderr.decode()
    assert reading_server.requests == []  # nothing was sent before the user agreed
    done = pixiu(env, "eval", "--live", "--yes", case)
    text = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "预计约" in text and "tokens" in text and "CNY" in text and "5/5 通过" in text
    assert len(reading_server.requests) == 5
    assert PLANTED_KEY not in text + done.stderr.decode()


def test_unknown_ablation_and_bad_case_file_are_one_line(offline_env, tmp_path):
    bad = pixiu_in_process(offline_env, "eval", "--live", "--ablate", "everything", text=True)
    assert bad.returncode == 1 and "未知的消融项" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.splitlines()) == 1
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": "x"}]', encoding="utf-8")
    done = pixiu_in_process(offline_env, "eval", "--live", str(broken), text=True)
    assert done.returncode == 1 and "broken.json" in done.stderr and len(done.stderr.splitlines()) == 1


def test_builder_ablation_removes_sections_or_the_whole_block(tmp_path):
    db = open_database(tmp_path / "p.db")
    domain = InvestorStore(db)
    from datetime import datetime

    from pixiu_cli.conversation.context.builder import SHANGHAI

    now = datetime(2026, 3, 4, 10, 15, tzinfo=SHANGHAI)
    domain.replace_all(load_document(data_dir() / "evals" / "datasets" / "portfolio.json", now))
    store = ConversationStore(db)
    question = "我的持仓哪只夏普最高？海康威视呢？"
    full = ContextBuilder(store, domain, clock=lambda: now).build_messages(None, question)
    keys = {s.key for s in full.context_block.sections}
    assert {"portfolio_profiles", "symbol:002415"} <= keys
    cut = ContextBuilder(
        store, domain, clock=lambda: now, ablate=frozenset({"portfolio_profiles", "symbol_context"})
    ).build_messages(None, question)
    cut_keys = {s.key for s in cut.context_block.sections}
    assert "portfolio_profiles" not in cut_keys and not any(k.startswith("symbol:") for k in cut_keys)
    assert "holdings" in cut_keys
    bare = ContextBuilder(store, domain, clock=lambda: now, ablate=frozenset({"all"})).build_messages(None, question)
    assert bare.context_block is None and [m["role"] for m in bare.messages] == ["system", "user"]
    assert not any(m["content"].startswith("[上下文信息]") for m in bare.messages[1:])
