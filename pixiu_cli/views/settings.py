"""What `pixiu config set|show` say: the setting written, the config.toml with its keys masked."""

from __future__ import annotations


def show_written(renderer, written, spell=None) -> None:
    renderer.info(f"已写入 {written.path}：{written.key} = {written.shown}")


def show_config(renderer, shown, spell=None) -> None:
    from pixiu_cli.services.config_file import dump_toml
    from pixiu_cli.views.config import masked

    renderer.dim(f"# {shown.path}" + ("" if shown.path.exists() else "（尚不存在）"))
    if shown.data:
        renderer.raw(dump_toml(masked(shown.data)))
