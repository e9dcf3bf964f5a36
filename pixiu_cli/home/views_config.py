"""What `pixiu config show` and `config set` print of the settings: a credential is said to be
set, never shown; an address's user and password are masked."""

from __future__ import annotations

from pixiu_cli.home.config_file import is_secret
from pixiu_cli.kernel.redact import mask_url


def masked(data: dict) -> dict:
    def mask(path, value):
        if isinstance(value, dict):
            return {k: mask([*path, k], v) for k, v in value.items()}
        if is_secret(path) and isinstance(value, str | int):
            return "已设置（隐藏）" if value else ""
        return mask_url(value) if isinstance(value, str) else value

    return {k: mask([k], v) for k, v in data.items()}


def shown_value(key: str, value: str) -> str:
    """How `config set` echoes a value: secrets hidden, URL credentials masked."""
    if is_secret(key.split(".")) or "key" in key:
        return "（已隐藏）"
    return mask_url(value)


def show_written(renderer, written, spell=None) -> None:
    renderer.info(f"已写入 {written.path}：{written.key} = {written.shown}")


def show_config(renderer, shown, spell=None) -> None:
    from pixiu_cli.home.config_file import dump_toml

    renderer.dim(f"# {shown.path}" + ("" if shown.path.exists() else "（尚不存在）"))
    if shown.data:
        renderer.raw(dump_toml(masked(shown.data)))
