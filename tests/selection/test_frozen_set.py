"""The frozen held-out set of issue 27 is measured, never tuned on: its files must not change.

A change here means a case was edited after the rules saw it; the set would then measure
its own tuning. Write a new set instead (frozen_2.txt with its own digest)."""

from __future__ import annotations

import hashlib
import json

import pytest

from pixiu_cli.resources import data_dir

FROZEN = {
    "frozen_1.txt": "7e4e6ba62851fb92a05889ea55538af5137cdbefd24b1b843eb8d8be0883f0d1",
    "frozen.json": "b052291d3359f9aa5e71582626a068a77ecc9bbc157fb8a37acb9f5d7336ca59",
    "datasets/pharma_liquor.json": "076a6caa9c8aff3d5e02508b5513b71c0e40ff0ac310777ea0785de4232b1ec7",
    "datasets/home_brands.json": "dd85c902758d551240fef9c08cde400ef3b34f9e2ff988f427ce948694aaf518",
    "datasets/growth_mix.json": "5ddfb8bf4c26b6ae0d11378ed3bc32eb2c17e1a0a83e32c968504f7adf6b369a",
}


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_frozen_file_is_unchanged(name):
    path = data_dir() / "selection" / name
    assert hashlib.sha256(path.read_bytes()).hexdigest() == FROZEN[name], f"{name} changed after it was frozen"


def test_frozen_set_is_large_and_on_accounts_of_its_own():
    cases = json.loads((data_dir() / "selection" / "frozen.json").read_text(encoding="utf-8"))
    assert len(cases) >= 200
    old = {"energy_consumer", "tech_autos", "small_mixed"}
    assert not {c["dataset"] for c in cases} & old
    for name in ("pharma_liquor", "home_brands", "growth_mix"):
        holdings = json.loads((data_dir() / "selection" / "datasets" / f"{name}.json").read_text(encoding="utf-8"))
        shipped = {
            h["symbol"]
            for d in old
            for h in json.loads((data_dir() / "selection" / "datasets" / f"{d}.json").read_text(encoding="utf-8"))[
                "holdings"
            ]
        }
        assert not {h["symbol"] for h in holdings["holdings"]} & shipped
    categories = {c["category"] for c in cases}
    assert len(categories) >= 7 and all(sum(c["category"] == k for c in cases) >= 25 for k in categories)
