"""`pixiu data import DIR` and several paths: one process, each file its own transaction,
codes from the file names, `X_actions.csv` beside `X.csv`, a bad file named and skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import pixiu_in_process

MARKET = Path(__file__).resolve().parents[1] / "fixtures" / "market"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bars"
    folder.mkdir()
    for name in ("000001.csv", "000001_actions.csv", "000002.csv", "000333.csv", "000333_actions.csv"):
        shutil.copy(MARKET / name, folder / name)
    (folder / "600000_broken.csv").write_text("date,open,high,low,close,volume\n2026-01-05,10,9,11,10,100\n")
    (folder / "notes.txt").write_text("不是行情文件\n")
    return folder


def test_a_folder_imports_in_one_process_and_names_the_bad_files(offline_env, tmp_path):
    done = pixiu_in_process(offline_env, "data", "import", str(_folder(tmp_path)), "--no-refresh", text=True)
    assert done.returncode == 0, done.stderr
    assert "已导入 3 个文件" in done.stdout and "失败 2 个" in done.stdout
    assert "600000_broken.csv：第 2 行" in done.stderr + done.stdout
    assert "notes.txt：文件名里没有 6 位股票代码" in done.stderr + done.stdout
    status = json.loads(pixiu_in_process(offline_env, "data", "status", "--json", text=True).stdout)
    assert sorted(s["symbol"] for s in status) == ["000001", "000002", "000333"]
    actions = json.loads(pixiu_in_process(offline_env, "data", "actions", "000333", "--json", text=True).stdout)
    assert len(actions) == 1  # 000333_actions.csv went with 000333.csv


def test_several_paths_and_the_one_file_options(offline_env, tmp_path):
    folder = _folder(tmp_path)
    done = pixiu_in_process(
        offline_env, "data", "import", str(folder / "000001.csv"), str(folder / "000002.csv"), text=True
    )
    assert done.returncode == 0 and "已导入 2 个文件" in done.stdout, done.stderr
    refused = pixiu_in_process(offline_env, "data", "import", str(folder), "--symbol", "000001", text=True)
    assert refused.returncode != 0 and "只用于导入单个文件" in refused.stderr + refused.stdout
    assert "Traceback" not in refused.stderr
    one = pixiu_in_process(offline_env, "data", "import", str(folder / "000333.csv"), text=True)
    assert one.returncode == 0 and "已导入 000333" in one.stdout, one.stderr
