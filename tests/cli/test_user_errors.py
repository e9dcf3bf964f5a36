"""One base class for the failures phrased for the user: `main()` shows its message as one
line and exits with its status, whichever layer raised it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pixiu_cli
from pixiu_cli.commands.common import CliError
from pixiu_cli.conversation.llm.types import LLMError
from pixiu_cli.conversation.presenters import NothingToShow
from pixiu_cli.conversation.selection.aliases import AliasError
from pixiu_cli.evals.answers import LiveEvalError
from pixiu_cli.evals.cases import EvalError
from pixiu_cli.home.config import ConfigError
from pixiu_cli.home.document_file import DatasetError
from pixiu_cli.kernel.errors import RequestError, UserError
from pixiu_cli.kernel.settings import SettingsError
from pixiu_cli.kernel.store.database import StoreError
from pixiu_cli.market.chart import ChartError
from pixiu_cli.market.csv_source import CsvImportError
from pixiu_cli.market.sources import SourceError
from pixiu_cli.memory.store import MemoryRefError
from pixiu_cli.repl.registry import CommandError
from tests.helpers import pixiu_in_process

ONE_LINE_FAILURES = [
    CliError,
    CommandError,
    DatasetError,
    SettingsError,
    ConfigError,
    StoreError,
    AliasError,
    EvalError,
    LiveEvalError,
    CsvImportError,
    SourceError,
    ChartError,
    MemoryRefError,
    LLMError,
    NothingToShow,
    RequestError,
]


@pytest.mark.parametrize("cls", ONE_LINE_FAILURES, ids=lambda c: c.__name__)
def test_every_one_line_failure_is_a_user_error(cls):
    assert issubclass(cls, UserError) and cls.exit_code == 1


def test_the_error_base_depends_on_nothing_in_pixiu():
    tree = ast.parse((Path(pixiu_cli.__file__).parent / "kernel" / "errors.py").read_text(encoding="utf-8"))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m and m.startswith("pixiu_cli")]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("config", "set", "--", "a b", "1"), "设置名"),  # ConfigError
        (("alias", "宁王", "12"), "12"),  # AliasError
        (("chart", "600519"), "600519"),  # ChartError
        (("context", "--turn", "3"), "没有"),  # NothingToShow
        (("eval", "no-such-cases.yaml"), "no-such-cases.yaml"),  # EvalError
    ],
)
def test_a_user_error_from_any_layer_is_one_line_and_status_1(offline_env, args, needle):
    done = pixiu_in_process(offline_env, *args, text=True)
    assert done.returncode == 1, done
    assert done.stderr.startswith("错误：") and done.stderr.count("\n") == 1, done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr and "意外错误" not in done.stderr
