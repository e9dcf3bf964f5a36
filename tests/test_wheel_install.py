"""Build the wheel, install it into a fresh virtual environment, and run `pixiu ask`
offline from a directory outside the source tree: prompts/ and data/ must come from the
installed package, not from the checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.helpers import clean_env

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_wheel_installs_and_runs_offline(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(REPO)],
        check=True,
        capture_output=True,
        timeout=240,
    )
    wheel = next(dist.glob("pixiu_cli-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    target = Path(sysconfig.get_paths(vars={"base": str(env_dir), "platbase": str(env_dir)})["purelib"])
    # Install the package itself into the fresh environment; its dependencies come from the
    # test environment through a path entry (appended after the fresh site-packages).
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=240,
    )
    (target / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    home = tmp_path / "home"
    python = env_dir / "bin" / "python"
    env = clean_env(home)
    env.pop("PYTHONPATH", None)
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import pixiu_cli.kernel.resources as r; print(r.__file__); print(r.prompts_dir()); print(r.data_dir())",
        ],
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    module_file, prompts, data = where.stdout.split()
    assert module_file.startswith(str(target)), where.stdout
    assert prompts.startswith(str(target)) and (Path(prompts) / "system.md").is_file()
    assert data.startswith(str(target))
    done = subprocess.run(
        [str(python), "-m", "pixiu_cli", "ask", "--json", "你好，离线能用吗"],
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["offline"] is True and "离线" in out["reply"]
