"""A pixiu home with the small portfolio imported: its holdings are what `news sync` reads by default."""

from __future__ import annotations

import pytest

from tests.helpers import clean_env, pixiu_in_process


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    assert pixiu_in_process(clean_env(home), "import", "tests/fixtures/small_portfolio.json", text=True).returncode == 0
    return home
