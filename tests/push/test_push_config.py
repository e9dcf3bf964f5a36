"""The [push] table: every configured table is a channel, PIXIU_PUSH_<CHANNEL>_<KEY> sets or
overrides a key, a mistake is one line when the settings load, the secrets are never shown
(`config show`, `config set`, error lines) and a readable config.toml holding one warns."""

from __future__ import annotations

import stat

import pytest

from pixiu_cli.brief.push.config import PushConfigError, read_push
from pixiu_cli.kernel.safe_text import scrub
from tests.helpers import clean_env, pixiu_in_process

WEBHOOK = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7aoc-4bc4-97a0-0ec2sifa5aaa"
SECRET = "SECfeishu-signing-secret-0042"


def test_every_table_is_a_channel_and_the_environment_adds_or_overrides_keys():
    table = {"alerts": True, "wecom": {"webhook": WEBHOOK}, "feishu": {"webhook": "https://open.feishu.cn/x/y"}}
    env = {"PIXIU_PUSH_FEISHU_SECRET": SECRET, "PIXIU_PUSH_TELEGRAM_TOKEN": "1:t", "PIXIU_PUSH_TELEGRAM_CHAT_ID": "42"}
    config = read_push(table, env)
    assert [c.kind for c in config.channels] == ["wecom", "feishu", "telegram"]
    assert config.alerts and config.timeout == 10.0
    assert config.channels[1].get("secret") == SECRET and config.channels[2].get("chat_id") == "42"
    assert SECRET not in repr(config)  # a repr (a traceback, a log) never shows a channel's values
    assert read_push({}, {}).channels == ()


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"wecom": {"webhok": WEBHOOK}}, "[push.wecom] 有未知设置：webhok（可用：webhook）"),
        ({"telegram": {"token": "1:t"}}, "推送渠道 Telegram 缺少 chat_id"),
        ({"wecom": {"webhook": "http://qyapi.weixin.qq.com/x"}}, "应为 https:// 地址（http 只用于本机）"),
        ({"webhook": {"url": "ftp://example.com"}}, "[push.webhook].url 应为 http(s):// 地址"),
        ({"email": {"host": "smtp.qq.com", "to": "me"}}, "[push.email].to 应为邮件地址（含 @）"),
        ({"email": {"host": "smtp.qq.com", "to": "me@qq.com", "port": 70000}}, "port 应为 1 到 65535 的端口"),
        ({"timeout": 0}, "[push] timeout 应为 1 到 120 之间的秒数"),
        ({"alerts": "yes"}, "[push] alerts 应为 true 或 false"),
        ({"slack": {}}, "[push] 有未知设置：slack"),
    ],
)
def test_a_channel_pixiu_could_not_send_with_is_one_line(table, said):
    with pytest.raises(PushConfigError) as raised:
        read_push(table, {})
    assert said in str(raised.value) and "\n" not in str(raised.value)


def test_http_is_allowed_on_this_machine_and_for_a_generic_webhook():
    config = read_push({"wecom": {"webhook": "http://127.0.0.1:9/x"}, "webhook": {"url": "http://nas.lan/hook"}}, {})
    assert [c.kind for c in config.channels] == ["wecom", "webhook"]


def test_a_bad_push_table_stops_the_command_in_one_line(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[push.wecom]\nwebhok = "x"\n', encoding="utf-8")
    done = pixiu_in_process(clean_env(home), "holdings", text=True)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "webhok" in done.stderr


def test_push_secrets_are_set_and_shown_hidden_and_other_settings_keep_them(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home)
    done = pixiu_in_process(
        env, "config", "set", "push.wecom.webhook", "-", input_bytes=(WEBHOOK + "\n").encode(), text=True
    )
    assert done.returncode == 0 and WEBHOOK not in done.stdout + done.stderr and "（已隐藏）" in done.stdout
    assert (
        pixiu_in_process(
            env, "config", "set", "push.feishu.webhook", "https://open.feishu.cn/open-apis/bot/v2/hook/t"
        ).returncode
        == 0
    )
    assert pixiu_in_process(env, "config", "set", "push.feishu.secret", SECRET).returncode == 0
    assert pixiu_in_process(env, "config", "set", "push.alerts", "true").returncode == 0
    # another setting written after them keeps the sub-tables (they were dropped, and the write refused)
    assert pixiu_in_process(env, "config", "set", "model", "deepseek-flash").returncode == 0
    text = (home / "config.toml").read_text(encoding="utf-8")
    assert "[push.wecom]" in text and "[push.feishu]" in text and SECRET in text and "alerts = true" in text
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600
    shown = pixiu_in_process(env, "config", "show", text=True)
    assert shown.returncode == 0 and WEBHOOK not in shown.stdout and SECRET not in shown.stdout
    assert '[push.wecom]\nwebhook = "已设置（隐藏）"' in shown.stdout and "alerts = true" in shown.stdout
    bad = pixiu_in_process(env, "config", "set", "push.wecom.webhok", "x", text=True)
    assert bad.returncode == 1 and "webhok" in bad.stderr
    assert (home / "config.toml").read_text(encoding="utf-8") == text  # nothing written


def test_a_readable_config_with_a_push_secret_warns_and_the_secret_is_scrubbed_from_lines(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    path = home / "config.toml"
    path.write_text(
        '[push.wecom]\nwebhook = "http://127.0.0.1:9/cgi-bin/webhook/send?key=693a91f6-7aoc-4bc4-97a0-0ec2sifa5aaa"\n',
        encoding="utf-8",
    )
    path.chmod(0o644)
    done = pixiu_in_process(clean_env(home), "push", "test", text=True)
    assert "含 推送密钥 且其他用户可读" in done.stderr and f"chmod 600 {path}" in done.stderr
    assert done.returncode == 1 and "推送到 企业微信 失败：无法连接" in done.stderr  # port 9: nothing listens
    # once the settings are loaded the address and its key are masked in any line built later
    key = WEBHOOK.rsplit("=", 1)[1]
    assert key not in done.stdout + done.stderr and scrub(f"key {key}") == "key ***"
    path.chmod(0o600)
    quiet = pixiu_in_process(clean_env(home), "brief", "--push", "--last", text=True)
    assert "其他用户可读" not in quiet.stderr and "还没有已存的简报" in quiet.stderr


def test_a_secret_inside_another_is_masked_whole():
    from pixiu_cli.kernel.safe_text import remember_secret

    key = "c0ffee00-1111-2222-3333-444455556666"
    remember_secret(f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={key}")
    remember_secret(key)
    # the address's tail (its last eight characters) was masked first and left the key's head shown
    assert scrub(f"key {key} failed") == "key *** failed"


def test_nested_tables_are_written_back_whole():
    import tomllib

    from pixiu_cli.home.config import dump_toml

    data = {"model": "m", "push": {"alerts": True, "wecom": {"webhook": "https://x/y"}, "email": {"to": ["a@b.c"]}}}
    assert tomllib.loads(dump_toml(data)) == data
