"""`pixiu data import` reads a price file in whatever encoding the client saved it: GBK, UTF-8
with or without a byte-order mark, and UTF-16 (通达信's "Unicode" export), the same way a
broker statement is read (one decoder, account/statements/decode.py)."""

from __future__ import annotations

import pytest

from tests.helpers import MARKET_FIXTURES, clean_env, pixiu_in_process

JUNE_2016 = [
    line.split(",")
    for line in (MARKET_FIXTURES / "000001.csv").read_text().splitlines()[1:]
    if "2016-06-13" <= line[:10] <= "2016-06-17"
]


def _tdx_export() -> str:
    lines = ["000001 平安银行 日线 不复权", "日期\t开盘\t最高\t最低\t收盘\t成交量"]
    lines += ["\t".join([r[0].replace("-", "/"), *r[1:6]]) for r in JUNE_2016]
    return "\r\n".join([*lines, "数据来源:通达信"])


@pytest.mark.parametrize("encoding", ["gbk", "utf-8", "utf-8-sig", "utf-16"])
def test_a_tdx_export_imports_in_every_encoding_a_client_saves(tmp_path, encoding):
    path = tmp_path / "SZ#000001.txt"
    path.write_bytes(_tdx_export().encode(encoding))
    env = clean_env(tmp_path / "home")
    done = pixiu_in_process(env, "data", "import", str(path), "--symbol", "000001", "--no-refresh", text=True)
    assert done.returncode == 0, done.stderr
    assert f"{len(JUNE_2016)}" in done.stdout
    shown = pixiu_in_process(env, "data", "bars", "000001", text=True)
    assert shown.returncode == 0, shown.stderr
    assert "2016-06-17" in shown.stdout


def test_bytes_in_no_encoding_are_one_line(tmp_path):
    path = tmp_path / "bars.csv"
    path.write_bytes(b"date,open,high,low,close,volume\n2016-06-13,1,1,1,1,\xff\xfe\x80\x81\n" + b"\x81\x20" * 30)
    done = pixiu_in_process(clean_env(tmp_path / "home"), "data", "import", str(path), "--symbol", "000001", text=True)
    assert done.returncode == 1
    assert "不是 UTF-8、UTF-16 或 GBK 文本" in done.stderr and "Traceback" not in done.stderr
