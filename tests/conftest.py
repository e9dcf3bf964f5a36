"""Shared fixtures: a real offline server on loopback, the offline model in process, an
isolated PIXIU_HOME, and a way to run the real `pixiu` command (in a pipe or a
pseudo-terminal) against that server."""

from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path

import pytest

# Bytecode is cached (in __pycache__, ignored by git) even where the environment says not
# to: each test process (the xdist workers) and each `pixiu` a test starts would otherwise
# compile pixiu's sources, and pytest rewrite every test module's asserts, from scratch —
# most of a worker's collection and a good part of a short `pixiu` run. An installed pixiu
# has its .pyc files (pip compiles them), so this is also what users run. The workers and
# the children inherit the environment as it is once this conftest is loaded.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Derived files — the tokenizer's compact tables (pixiu_cli/conversation/tokenizer/bpe.py), the segmenter's compact
# dictionary (conversation/selection/words.py), built name tables — live under XDG_CACHE_HOME, here the
# checkout's own `.test-cache/` (ignored by git), never the user's: the workers and every
# `pixiu` a test starts inherit it. Each file is keyed by what it is built from, so like the
# bytecode it is built by the first run that needs it and read by the later ones. A test of
# building or keeping one points XDG_CACHE_HOME at a folder of its own.
_SESSION_CACHE = "PYTEST_PIXIU_CACHE_HOME"
os.environ.setdefault(_SESSION_CACHE, str(Path(__file__).resolve().parent.parent / ".test-cache"))
os.environ["XDG_CACHE_HOME"] = os.environ[_SESSION_CACHE]


def _the_entry_points_group() -> None:
    """The `pixiu` group handed down as the entry point hands it (cli/app.py): a REPL a test
    opens without `main` (tests/helpers.py offline_repl) runs the same /words, whichever test
    of this process loaded the REPL's commands first."""
    from pixiu_cli.cli.root import root
    from pixiu_cli.commands import common

    common.command_group = lambda: root


_the_entry_points_group()


def pytest_configure(config):
    """Every test process (pytest-xdist workers too) handles Ctrl-C as one started from a
    terminal does. A run started as a background job of a shell without job control
    (`nohup … &`, some CI runners) ignores SIGINT, and so would every test process and every
    `pixiu` it starts: the Ctrl-C tests would then fail however long they waited, or pass
    only when an earlier test happened to reinstall the handler."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # A test run allocates millions of short-lived objects (rows, dataclasses, messages);
    # with the default threshold of 700 the cyclic collector ran so often that it was about
    # a sixth of the suite's CPU. The suite's objects are freed by reference counting;
    # cycles are still collected, only less often.
    gc.set_threshold(*GC_THRESHOLDS)
    if not hasattr(config, "workerinput"):  # the first process of the run (xdist's controller)
        _build_derived_files()
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        _no_example_deadline()
    _hand_down_the_command_group()


def _no_example_deadline() -> None:
    """No property test has a time limit per example (none checks a speed): hypothesis's
    default of 200 ms failed examples that took 0.6 s only because the machine was busy."""
    from hypothesis import settings

    settings.register_profile("pixiu", deadline=None)
    settings.load_profile("pixiu")


def _build_derived_files() -> None:
    """Build the tokenizer tables and the segmenter's dictionary before any worker or child
    needs them, when no earlier run has: else the first processes to count a token or cut a
    question each build them at once (~0.5 s and ~1.4 s of CPU apiece)."""
    from pixiu_cli.conversation.tokenizer import bpe
    from pixiu_cli.conversation.tokenizer import counts as tokens
    from pixiu_cli.kernel import resources

    bpe.load_tables(tokens.tokenizer_file(), bpe.default_cache_dir())
    if not (resources.user_cache_dir() / "segmenter.words").exists():
        from pixiu_cli.market.names import words

        words.warm()


GC_THRESHOLDS = (100_000, 50, 100)


def pytest_collection_finish(session):
    """What collection imported (the product, the test modules, their constants) lives until
    the process ends: move it out of the collector's generations, so no later collection
    walks it again. (A collection first would cost ~0.15 s a worker to free the few cycles
    importing leaves.)"""
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    """pytest then collects garbage twice (to report an object whose finaliser raised), each a
    walk over everything the tests left alive (~0.4 s a worker): one collection here finds the
    same garbage, and what is still alive after it is frozen, out of the later walks."""
    gc.collect()
    gc.freeze()


FAST_SUBSET = "not slow"
FAST_EXAMPLES_DIVISOR = 10


def pytest_collection_modifyitems(config, items):
    """The fast subset (`-m "not slow"`, the inner loop) tries a tenth of each property's
    examples (at least 5); the whole suite, which CI runs, tries every one."""
    if (config.option.markexpr or "").strip() != FAST_SUBSET:
        return
    from hypothesis import settings

    scaled: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is None or id(test) in scaled:
            continue
        scaled.add(id(test))
        fewer = max(5, current.max_examples // FAST_EXAMPLES_DIVISOR)
        test._hypothesis_internal_use_settings = settings(current, max_examples=fewer)


@pytest.fixture(scope="session")
def _server_deepseek():
    from pixiu_cli.conversation.offline.server import OfflineServer  # not in xdist's controller, which runs no test

    server = OfflineServer(cache_profile="deepseek").start()
    yield server
    server.stop()


@pytest.fixture
def server(_server_deepseek):
    _server_deepseek.reset()
    yield _server_deepseek
    _server_deepseek.reset()


@pytest.fixture
def model():
    """The deterministic offline model in process: scripted like the server (`enqueue`,
    `inject`), for tests of the loop that need a model but not the wire."""
    from pixiu_cli.conversation.offline.model import OfflineModel

    return OfflineModel()


@pytest.fixture
def pixiu_home(tmp_path) -> Path:
    home = tmp_path / "pixiu-home"
    home.mkdir()
    return home


@pytest.fixture
def online_env(server, pixiu_home):
    """pixiu pointed at the test's server as if it were a real provider, with a planted key."""
    from tests.helpers import PLANTED_KEY, clean_env

    return clean_env(
        pixiu_home,
        PIXIU_API_KEY=PLANTED_KEY,
        PIXIU_BASE_URL=server.base_url,
        PIXIU_MODEL="deepseek-test",
        PIXIU_MAX_RETRIES="0",
    )


@pytest.fixture
def offline_env(pixiu_home):
    from tests.helpers import clean_env

    return clean_env(pixiu_home)


def _hand_down_the_command_group() -> None:
    """What the entry point does (cli/app.py main), before any test module is collected (one
    reads the REPL's registry as it is imported): a REPL built in this process runs its /words
    that are plain click commands (/news, /chart, /holdings…) through the `pixiu` group."""
    from pixiu_cli.cli.root import root
    from pixiu_cli.commands import common

    if common.command_group is None:
        common.command_group = lambda: root
