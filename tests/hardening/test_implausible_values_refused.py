"""Values nobody could mean, fed through the real commands in process: an impossible date, bars
and corporate actions outside any A-share range, JSON figures too large or nested too deep,
settings out of range, and a sync source returning such bars. Each is refused in one clear
Chinese line naming where it is, never `意外错误` or a traceback, and nothing of it is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import GOOD_BARS, HOLDING_600519, bars_csv, clean_env, in_process_clean, json_document


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home")


@pytest.mark.parametrize("day", ["2024-02-30", "2022-06-31", "0000-01-01", "2023/02/29"])
def test_an_impossible_date_is_refused_naming_the_line_and_later_turns_work(env, tmp_path, day):
    bad = bars_csv(tmp_path / "bad.csv", *GOOD_BARS[:2], f"{day},10,11,9,10,100")
    done = in_process_clean(env, "data", "import", str(bad), "--symbol", "600519")
    assert done.returncode == 1 and "第 4 行" in done.stderr and day in done.stderr
    assert (
        in_process_clean(
            env, "data", "import", str(bars_csv(tmp_path / "ok.csv", *GOOD_BARS)), "--symbol", "600519"
        ).returncode
        == 0
    )
    status = in_process_clean(env, "data", "status", "--json")
    assert status.returncode == 0 and "2024-02-29" in status.stdout
    assert in_process_clean(env, "ask", "你好").returncode == 0


@pytest.mark.parametrize(
    ("row", "named"),
    [
        ("2100-01-04,10,11,9,10,100", "在未来"),
        ("9999-12-31,10,11,9,10,100", "在未来"),
        ("1901-01-04,10,11,9,10,100", "早于 A 股开市"),
        ("2024-03-01,10,1e300,9,10,100", "最高价"),
    ],
)
def test_bars_nobody_could_mean_are_refused_naming_the_line(env, tmp_path, row, named):
    done = in_process_clean(
        env, "data", "import", str(bars_csv(tmp_path / "x.csv", *GOOD_BARS, row)), "--symbol", "600519"
    )
    assert done.returncode == 1 and "第 5 行" in done.stderr and named in done.stderr
    status = json.loads(in_process_clean(env, "data", "status", "--json").stdout or "{}")
    assert "2024-02-29" not in json.dumps(status)  # nothing of the refused file was stored


@pytest.mark.parametrize(
    ("action", "named"), [("2024-02-29,1000,0", "除权前收盘价"), ("2024-02-29,0,1e300", "每股送转")]
)
def test_a_corporate_action_nobody_could_mean_is_refused(env, tmp_path, action, named):
    actions = tmp_path / "actions.csv"
    actions.write_text("ex_date,cash_per_share,shares_per_share\n" + action + "\n", encoding="utf-8")
    ok = bars_csv(tmp_path / "ok.csv", *GOOD_BARS)
    done = in_process_clean(env, "data", "import", str(ok), "--symbol", "600519", "--actions", str(actions))
    assert done.returncode == 1 and named in done.stderr and "2024-02-29" in done.stderr


@pytest.mark.parametrize(
    ("sections", "named"),
    [
        ({"holdings": [dict(HOLDING_600519, cost=1e300)]}, "holdings[0].cost"),
        ({"holdings": [dict(HOLDING_600519, shares=1e300)]}, "holdings[0].shares"),
        (
            {
                "decisions": [
                    {"symbol": "600519", "side": "buy", "price": 1e300, "quantity": 1, "decided_at": "2024-01-02"}
                ]
            },
            "decisions[0].price",
        ),
    ],
)
def test_json_figures_nobody_could_mean_are_refused(env, tmp_path, sections, named):
    done = in_process_clean(env, "import", str(json_document(tmp_path, **sections)))
    assert done.returncode == 1 and named in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_deeply_nested_signal_components_are_refused_and_export_keeps_working(env, tmp_path):
    nested: dict = {}
    for _ in range(600):
        nested = {"x": nested}
    signal = {"symbol": "600519", "score": 0.5, "direction": "看多", "components": nested, "as_of": "2024-01-02"}
    done = in_process_clean(env, "import", str(json_document(tmp_path, signals=[signal])))
    assert done.returncode == 1 and "signals[0].components" in done.stderr and "嵌套" in done.stderr
    assert in_process_clean(env, "export", "-o", str(tmp_path / "out.json")).returncode == 0


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ("[context]\nnotes_days = 1e308\n", "notes_days"),
        ("[context]\nbudget_tokens = -1\n", "budget_tokens"),
        ("[agent]\ntool_timeout = -1\n", "tool_timeout"),
        ('base_url = "not a url"\nmodel = "m"\n', "base_url"),
    ],
)
def test_settings_nobody_could_mean_are_refused_in_one_line(env, config, named):
    home = Path(env["PIXIU_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(config, encoding="utf-8")
    done = in_process_clean(env, "ask", "你好")
    assert done.returncode != 0 and named in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_sync_source_returning_far_future_or_absurd_bars_keeps_what_it_could_mean(tmp_path):
    from datetime import datetime

    from pixiu_cli.home.document_file import SHANGHAI
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.market.bars import Bar
    from pixiu_cli.market.store import MarketStore
    from pixiu_cli.market.sync import sync_symbol

    class FarFuture:
        name = "stand-in"

        def __init__(self, rows):
            self.rows = rows

        def daily_bars(self, symbol, start, end):
            return self.rows

        def actions(self, symbol, start, end):
            return []

    db = open_database(tmp_path / "pixiu.db")
    market = MarketStore(db)
    now = datetime(2024, 3, 5, 16, 0, tzinfo=SHANGHAI)
    good = Bar("2024-03-04", 10, 11, 9, 10, 100)
    outcome = sync_symbol(market, FarFuture([good, Bar("9999-12-31", 10, 11, 9, 10, 100)]), "600519", None, now)
    assert (outcome.error, outcome.last) == (None, "2024-03-04")
    assert market.series(["600519"])[0].last == "2024-03-04"
    later = sync_symbol(market, FarFuture([Bar("2024-03-05", 10, 1e300, 9, 10, 100)]), "600519", None, now)
    # the gate refuses the row, naming source, symbol, date and field; the series stays as it was
    assert later.error is None and later.refused == (
        "未保存：stand-in 600519 2024-03-05 最高价 1e+300 元超过任何 A 股价格（上限 100,000 元）",
    )
    assert market.series(["600519"])[0].last == "2024-03-04"
    db.close()
