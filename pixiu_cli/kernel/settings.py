"""Settings: command-line flags > PIXIU_* environment > config.toml in the pixiu home > defaults.

Plain data: values read and checked here, importing no core module (tests/test_settings.py
counts them). The tables that configure objects — [context] [agent] [prices] [backtest]
[push] — are kept as parsed; app.py checks them and builds the objects (app.configured), and
app.load_settings is what a surface opens.

`PIXIU_HOME` isolates all state (database, input history, config). The API key is held in
memory only; it is never written to the database, logs or exports.
"""

from __future__ import annotations

import math
import os
import stat
import tomllib
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pixiu_cli.kernel.clock import pinned_moment
from pixiu_cli.kernel.errors import UserError, os_reason
from pixiu_cli.kernel.resources import default_home

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
OFFLINE_MODEL = "pixiu-offline"
# The name DeepSeek asks callers to use (llm/model_names.py DEFAULT_DEEPSEEK_MODEL, kept equal
# by tests/test_settings.py): the settings are plain values and import no llm module.
DEFAULT_DEEPSEEK_MODEL = "deepseek-flash"
# [llm] thinking: `{"thinking": {"type": ...}}` in the request body; DeepSeek's default is enabled.
THINKING_MODES = ("enabled", "disabled")
# [llm] reasoning_effort: DeepSeek maps minimal/low → low, medium/high/xhigh → high, max/ultra → max.
REASONING_EFFORTS = ("low", "high", "max")
# The tables app.py builds objects from (app.configured): kept here as parsed, plain data.
BUILT_TABLES = ("context", "agent", "prices", "backtest", "push")


class SettingsError(UserError):
    """A configuration problem the user can fix; the message is one line."""


DEFAULT_COMMISSION_RATE = 0.00025  # 万2.5, each side: what most retail accounts pay
DEFAULT_COMMISSION_MIN = 5.0  # yuan per order


@dataclass(frozen=True)
class Commission:
    """The broker's commission: a rate of the amount with a minimum per order."""

    rate: float = DEFAULT_COMMISSION_RATE
    minimum: float = DEFAULT_COMMISSION_MIN

    def on(self, amount: float) -> float:
        return max(amount * self.rate, self.minimum) if amount > 0 else 0.0


@dataclass(frozen=True)
class Settings:
    home: Path
    provider: str  # "deepseek" | "openai-compatible" | "offline"
    base_url: str | None
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_retries: int = 5  # DEFAULT_MAX_RETRIES
    deadline_seconds: float = 600.0  # [llm] deadline_seconds: one turn, every call and retry included
    temperature: float | None = None
    thinking: str | None = None  # [llm] thinking: "enabled" | "disabled"; None: the provider's default
    reasoning_effort: str | None = None  # [llm] reasoning_effort: "low" | "high" | "max"
    offline_cache_profile: str = "deepseek"
    auto_sync: bool = False  # [market] auto_sync: the REPL syncs stale market data in the background
    offline_by_choice: bool = False  # --offline with a key set: offline because the user asked
    cost_method: str = "diluted"  # [account] cost_method: "diluted" (摊薄成本) | "average" (持仓均价)
    commission_rate: float | None = None  # [account] commission_rate: a told trade's estimated fee; None: 万2.5
    commission_min: float | None = None  # [account] commission_min (yuan per order); None: ¥5
    backups_kept: int = 10  # [backup] keep: the newest N backups stay, older ones are removed (0: all)
    brief_confirm_above: float = 0.05  # [brief] confirm_above: ask before a brief's call costs more (currency units)
    pinned_now: datetime | None = None  # PIXIU_NOW: the moment every clock of the app shows (app.clock_of)
    warnings: tuple[str, ...] = ()
    # [context] [agent] [prices] [backtest] [push] as parsed; app.configured checks them and builds
    # the limits, guardrails, prices, costs and push channels (PIXIU_PUSH_* in `push_env`).
    tables: dict[str, Any] = field(default_factory=dict, repr=False, hash=False)
    push_env: dict[str, str] = field(default_factory=dict, repr=False, hash=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)  # every key given: app masks them in any line
    urls: tuple[str, ...] = field(default=(), repr=False)  # every base URL given (their credentials are masked)
    chosen_base_url: str | None = field(default=None, repr=False)  # flag > env > config, offline too (app checks it)
    config_shared: bool = False  # config.toml is readable by others (app warns when [push] holds secrets)

    @property
    def commission(self) -> Commission:
        given = {"rate": self.commission_rate, "minimum": self.commission_min}
        return Commission(**{k: v for k, v in given.items() if v is not None})

    @property
    def offline(self) -> bool:
        return self.provider == "offline"

    @property
    def db_path(self) -> Path:
        return self.home / "pixiu.db"

    @property
    def demo_db_path(self) -> Path:
        return self.home / "demo.db"

    @property
    def history_path(self) -> Path:
        return self.home / "input_history"


# Retries happen only before any of the reply is shown and all within the call's deadline;
# five ride out a provider that fails two attempts in five (waits 0.5 s doubling to 8 s).
DEFAULT_MAX_RETRIES = 5


def _read_config(path: Path) -> tuple[dict, list[str], bool]:
    """The parsed file, its warnings, and whether others may read it."""
    warnings: list[str] = []
    if not path.exists():
        return {}, warnings, False

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"配置文件 {path} 格式错误：{exc}") from None
    except OSError as exc:
        raise SettingsError(f"无法读取配置文件 {path}：{os_reason(exc)}") from None
    shared = bool(path.stat().st_mode & (stat.S_IRGRP | stat.S_IROTH))
    if shared and any(data.get(k) for k in ("api_key", "deepseek_api_key")):
        warnings.append(shared_config_line(path, "API key"))
    return data, warnings, shared


def shared_config_line(path: Path, what: str) -> str:
    return f"配置文件 {path} 含 {what} 且其他用户可读，建议执行 chmod 600 {path}"


def _number(value, name: str, kind):
    try:
        if isinstance(value, bool):
            raise TypeError
        number = kind(value)
    except (TypeError, ValueError, OverflowError):
        raise SettingsError(f"设置 {name} 的值无效：{value!r}") from None
    if not math.isfinite(number):
        raise SettingsError(f"设置 {name} 的值无效：{value!r}")
    return number


# name -> (check, what the value should be). The SDK would otherwise reject a negative
# timeout or retry count deep inside a call, where it reads as a broken server reply.
_RANGES = {
    "timeout": (lambda v: v > 0, "大于 0 的秒数"),
    "max_retries": (lambda v: 0 <= v <= 20, "0 到 20 之间的整数"),
    "temperature": (lambda v: 0 <= v <= 2, "0 到 2 之间的数"),
}
_TEXT_SETTINGS = ("model", "base_url", "api_key", "deepseek_api_key", "offline_cache_profile")


def _setting(value, name: str):
    """A numeric setting, converted and range-checked; one line for the user otherwise."""
    kind = int if name == "max_retries" else float
    if kind is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    number = _number(value, name, kind)
    if kind is int and (isinstance(value, float) or isinstance(value, str) and value.strip() != str(number)):
        raise SettingsError(f"设置 {name} 应为 {_RANGES[name][1]}，而不是 {value!r}")
    check, wanted = _RANGES[name]
    if not check(number):
        raise SettingsError(f"设置 {name} 应为 {wanted}，而不是 {value!r}")
    return number


def _text_setting(value, name: str) -> str:
    """Names, URLs and keys: one string, no control characters (a DEL in a model name made
    config.toml unreadable, and control characters would act on the terminal)."""
    if not isinstance(value, str):
        kind = {list: "列表", dict: "表", bool: "布尔值", int: "数字", float: "数字"}.get(
            type(value), type(value).__name__
        )
        raise SettingsError(f"设置 {name} 应为字符串，而不是{kind}")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cs")), None)
    if bad is not None:
        raise SettingsError(f"设置 {name} 含有控制字符或无效字符（U+{ord(bad):04X}）")
    return value


def _brief_table(config: dict) -> dict:
    table = config.get("brief", {})
    if not isinstance(table, dict) or set(table) - {"confirm_above"}:
        raise SettingsError("config.toml 的 [brief] 只能包含 confirm_above")
    value = table.get("confirm_above", 0.05)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise SettingsError(f"config.toml 的 [brief] confirm_above 应为不小于 0 的金额，而不是 {value!r}")
    return {"brief_confirm_above": float(value)}


def _market_table(config: dict) -> dict:
    table = config.get("market", {})
    if not isinstance(table, dict) or set(table) - {"auto_sync"}:
        raise SettingsError("config.toml 的 [market] 只能包含 auto_sync")
    auto_sync = table.get("auto_sync", False)
    if not isinstance(auto_sync, bool):
        raise SettingsError(f"config.toml 的 [market] auto_sync 应为 true 或 false，而不是 {auto_sync!r}")
    return {"auto_sync": auto_sync}


_ACCOUNT_KEYS = ("cost_method", "commission_rate", "commission_min")
# the largest commission a broker may charge (3‰) and a minimum no broker asks more than
_COMMISSION_BOUNDS = {"commission_rate": 0.003, "commission_min": 100.0}


def _commission_setting(table: dict, key: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    high = _COMMISSION_BOUNDS[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= high:
        raise SettingsError(f"config.toml 的 [account] {key} 应为 0 到 {high:g} 之间的数字，而不是 {value!r}")
    return float(value)


def _account_table(config: dict) -> dict:
    table = config.get("account", {})
    if not isinstance(table, dict) or set(table) - set(_ACCOUNT_KEYS):
        raise SettingsError(f"config.toml 的 [account] 只能包含 {'、'.join(_ACCOUNT_KEYS)}")
    method = _choice(table.get("cost_method"), "[account] cost_method", ("diluted", "average"))
    return {"cost_method": method or "diluted", **{k: _commission_setting(table, k) for k in _ACCOUNT_KEYS[1:]}}


def _backup_table(config: dict) -> dict:
    table = config.get("backup", {})
    if not isinstance(table, dict) or set(table) - {"keep"}:
        raise SettingsError("config.toml 的 [backup] 只能包含 keep")
    keep = table.get("keep", 10)
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        raise SettingsError(f"config.toml 的 [backup] keep 应为非负整数（0 表示全部保留），而不是 {keep!r}")
    return {"backups_kept": keep}


_LLM_KEYS = ("deadline_seconds", "thinking", "reasoning_effort")


def _llm_table(config: dict) -> dict:
    table = config.get("llm", {})
    if not isinstance(table, dict) or set(table) - set(_LLM_KEYS):
        raise SettingsError(f"config.toml 的 [llm] 只能包含 {'、'.join(_LLM_KEYS)}")
    return table


def _choice(value, name: str, allowed: tuple[str, ...]) -> str | None:
    """One of `allowed` (any case), None when unset; one line for the user otherwise."""
    if value is None:
        return None
    text = value.strip().lower() if isinstance(value, str) else value
    if text not in allowed:
        raise SettingsError(f"设置 {name} 应为 {' / '.join(allowed)} 之一，而不是 {value!r}")
    return text


def _thinking(config: dict, env) -> dict:
    """[llm] thinking / reasoning_effort (PIXIU_THINKING / PIXIU_REASONING_EFFORT): DeepSeek's
    thinking-mode switch and effort; unset leaves the provider's default."""
    table = _llm_table(config)
    return dict(
        thinking=_choice(env.get("PIXIU_THINKING") or table.get("thinking"), "thinking", THINKING_MODES),
        reasoning_effort=_choice(
            env.get("PIXIU_REASONING_EFFORT") or table.get("reasoning_effort"), "reasoning_effort", REASONING_EFFORTS
        ),
    )


def _llm_deadline(config: dict, env_value: str | None) -> float:
    table = _llm_table(config)
    value = env_value or table.get("deadline_seconds", 600.0)
    seconds = _number(value, "deadline_seconds", float)
    if not (math.isfinite(seconds) and seconds > 0):
        raise SettingsError(f"deadline_seconds 应为正数（秒），而不是 {value!r}")
    return seconds


def _llm_checked(config: dict) -> dict:
    """[llm] holds the deadline and the thinking switch, read where the client is built: only
    checked here."""
    _llm_deadline(config, None)
    _thinking(config, {})
    return {}


# Each table of config.toml and what reads it (into Settings fields), in the order the
# unknown-key message lists them: a table is known because it has a reader, so a new table
# cannot be refused as unknown, nor left out of the message. The tables app.py builds
# objects from have no reader here: they are kept as parsed.
_TABLE_READERS = {
    **dict.fromkeys(BUILT_TABLES[:4]),
    "market": _market_table,
    "llm": _llm_checked,
    "account": _account_table,
    "brief": _brief_table,
    "backup": _backup_table,
    "push": None,
}


def _config_tables(config: dict) -> dict:
    """Check `config` (a parsed config.toml) and read its plain tables: the Settings fields
    auto_sync, cost_method, backups_kept and brief_confirm_above, and `tables` (app.py builds
    and checks those: app.configured). An unknown top-level key is refused as an unknown key of a table
    is (a typo such as `modle` would otherwise be kept and silently ignored)."""
    unknown = set(config) - {*_RANGES, *_TEXT_SETTINGS, *_TABLE_READERS}
    if unknown:
        raise SettingsError(
            f"config.toml 有未知设置：{', '.join(sorted(unknown))}"
            f"（可用：{', '.join((*_TEXT_SETTINGS, *_RANGES))}，以及表 {', '.join(f'[{t}]' for t in _TABLE_READERS)}）"
        )
    tables: dict = {"tables": {name: config[name] for name in BUILT_TABLES if name in config}}
    for read in filter(None, _TABLE_READERS.values()):
        tables.update(read(config))
    for name in _RANGES:
        if name in config:
            _setting(config[name], name)
    for name in _TEXT_SETTINGS:
        if name in config:
            _text_setting(config[name], name)
    return tables


def validate_config(config: dict) -> None:
    """Raise SettingsError if `config` (a parsed config.toml) would not load as settings
    (app.validate_config also checks the tables it builds objects from)."""
    _config_tables(config)


def _tighten(home: Path) -> None:
    """The home holds the database, the input history and maybe a key: owner only. A shared
    directory (sticky, like /tmp) or someone else's is left as it is."""
    try:
        st = home.stat()
        if st.st_uid == os.getuid() and not st.st_mode & stat.S_ISVTX and st.st_mode & 0o077:
            os.chmod(home, 0o700)
    except (OSError, AttributeError):  # no getuid on Windows
        pass


def ensure_home(home: Path) -> Path:
    """Create the pixiu home (0700), or say in one line why it cannot be used."""
    try:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
    except (FileExistsError, NotADirectoryError):
        raise SettingsError(f"数据目录 {home} 不是一个目录（请检查 PIXIU_HOME）") from None
    except OSError as exc:
        raise SettingsError(f"无法创建数据目录 {home}：{os_reason(exc)}") from None
    if not home.is_dir():
        raise SettingsError(f"数据目录 {home} 不是一个目录（请检查 PIXIU_HOME）")
    _tighten(home)
    return home


def _picker(config: dict, env):
    """pick(flag, env_name, config_key, default): flag > PIXIU_* environment > config.toml > default."""

    def pick(flag, env_name, config_key, default=None):
        if flag is not None:
            return flag
        if env.get(env_name):
            return env[env_name]
        if config.get(config_key) is not None:
            return config[config_key]
        return default

    return pick


def _call_settings(pick, config: dict, env) -> dict:
    """How model calls are made: timeout, retries, deadline, temperature, offline cache profile."""
    timeout = _setting(pick(None, "PIXIU_TIMEOUT", "timeout", 60.0), "timeout")
    max_retries = _setting(pick(None, "PIXIU_MAX_RETRIES", "max_retries", DEFAULT_MAX_RETRIES), "max_retries")
    temperature = pick(None, "PIXIU_TEMPERATURE", "temperature")
    temperature = None if temperature is None else _setting(temperature, "temperature")
    cache_profile = _text_setting(
        pick(None, "PIXIU_OFFLINE_CACHE_PROFILE", "offline_cache_profile", "deepseek"), "offline_cache_profile"
    )
    return dict(
        timeout=timeout,
        max_retries=max_retries,
        deadline_seconds=_llm_deadline(config, env.get("PIXIU_DEADLINE_SECONDS")),
        **_thinking(config, env),
        temperature=temperature,
        offline_cache_profile=cache_profile,
    )


def _pinned_now(raw: str | None) -> datetime | None:
    if not raw:
        return None
    try:
        return pinned_moment(raw)
    except ValueError:
        raise SettingsError(f"PIXIU_NOW 应为 ISO 8601 时间（如 2026-12-01T15:30），而不是 {raw!r}") from None


def _given(config: dict, env, base_url: str | None) -> dict:
    """Every key and URL pixiu was given (app masks them in any line it prints), and the
    PIXIU_PUSH_* variables ([push] channels set in the environment)."""
    keys = (
        env.get("PIXIU_API_KEY"),
        env.get("DEEPSEEK_API_KEY"),
        config.get("api_key"),
        config.get("deepseek_api_key"),
    )
    urls = (base_url, env.get("PIXIU_BASE_URL"), config.get("base_url"))
    return dict(
        secrets=tuple(k for k in keys if isinstance(k, str)),
        urls=tuple(u for u in urls if isinstance(u, str)),
        push_env=push_variables(env),
    )


def push_variables(env=os.environ) -> dict[str, str]:
    """The PIXIU_PUSH_* variables: [push] channels set in the environment (push/config.py)."""
    return {k: v for k, v in env.items() if k.startswith("PIXIU_PUSH_")}


def _for_provider(
    common: dict,
    *,
    generic_key: str | None,
    deepseek_key: str | None,
    base_url: str | None,
    model: str | None,
    force_offline: bool,
) -> Settings:
    """Offline without a key (or when asked), else the generic provider for PIXIU_API_KEY, else DeepSeek."""
    if force_offline or not (generic_key or deepseek_key):
        chosen = bool(generic_key or deepseek_key)
        return Settings(
            provider="offline", base_url=None, model=model or OFFLINE_MODEL, offline_by_choice=chosen, **common
        )
    if generic_key:
        base = base_url or DEEPSEEK_BASE_URL
        if base != DEEPSEEK_BASE_URL and not model:
            raise SettingsError("使用 PIXIU_BASE_URL 时请用 PIXIU_MODEL 指定模型名（例如 qwen2.5:7b）")
        return Settings(
            provider="openai-compatible",
            base_url=base,
            model=model or DEFAULT_DEEPSEEK_MODEL,
            api_key=generic_key,
            **common,
        )
    chosen = model or DEFAULT_DEEPSEEK_MODEL
    return Settings(
        provider="deepseek", base_url=base_url or DEEPSEEK_BASE_URL, model=chosen, api_key=deepseek_key, **common
    )


def load_settings(
    *, model: str | None = None, base_url: str | None = None, force_offline: bool = False, home: Path | None = None
) -> Settings:
    """The settings as plain values. app.load_settings is what a surface calls: it also
    checks the base URL and the tables, registers the secrets and adds its warnings."""
    home = ensure_home(home or default_home())
    config, warnings, shared = _read_config(home / "config.toml")
    tables = _config_tables(config)  # checked once, before anything else is read
    env = os.environ
    pick = _picker(config, env)
    common = dict(home=home, **_call_settings(pick, config, env), **tables, warnings=tuple(warnings))
    common.update(pinned_now=_pinned_now(env.get("PIXIU_NOW")), config_shared=shared, **_given(config, env, base_url))

    generic_key = pick(None, "PIXIU_API_KEY", "api_key")
    deepseek_key = env.get("DEEPSEEK_API_KEY") or config.get("deepseek_api_key")
    chosen_base = pick(base_url, "PIXIU_BASE_URL", "base_url")
    chosen_model = pick(model, "PIXIU_MODEL", "model")
    for value, name in ((chosen_base, "base_url"), (chosen_model, "model")):
        if value is not None:
            _text_setting(value, name)
    return _for_provider(
        dict(common, chosen_base_url=chosen_base),
        generic_key=generic_key,
        deepseek_key=deepseek_key,
        base_url=chosen_base,
        model=chosen_model,
        force_offline=force_offline,
    )
