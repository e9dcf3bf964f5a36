"""Files under PIXIU_HOME are the owner's only, and a bad setting is refused in one line
before anything is written: config.toml always stays readable by pixiu itself. Credentials
inside a base URL are never shown."""

from __future__ import annotations

import stat

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import PLANTED_KEY, leave, pixiu_for_result, pixiu_in_process, repl_session


def pixiu_fast(env, *args, input_text=None):
    """Exit code and messages only: the real entry point, in process."""
    return pixiu_in_process(env, *args, input_bytes=input_text.encode() if input_text else None, text=True)


def pixiu(env, *args, input_text=None):
    return pixiu_for_result(env, *args, input_text=input_text)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def one_error_line(done, *needles: str) -> None:
    err = done.stderr
    assert done.returncode == 1, (done.stdout, err)
    assert err.count("\n") == 1 and err.startswith("错误："), err
    assert "意外错误" not in err and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


@pytest.mark.slow
@pytest.mark.pty
def test_home_is_0700_and_database_and_history_0600(server, online_env, pixiu_home):
    import pexpect

    from tests.helpers import PROMPT, say, spawn

    pixiu_home.chmod(0o755)  # as an older pixiu (or mkdir with the usual umask) left it
    server.enqueue(ScriptedReply(text="好的。"))
    assert pixiu(online_env, "ask", "你好").returncode == 0
    assert mode(pixiu_home) == 0o700
    assert mode(pixiu_home / "pixiu.db") == 0o600
    child = spawn(online_env, "chat", "--continue")
    try:
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text="第二条。"))
        say(child, "第二问")
        child.expect("第二条")
        child.expect(PROMPT)
        # while the REPL runs, the WAL files exist and inherit the database's mode
        for name in ("pixiu.db-wal", "pixiu.db-shm"):
            assert mode(pixiu_home / name) == 0o600, name
        say(child, "/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert mode(pixiu_home / "input_history") == 0o600
    assert "第二问" in (pixiu_home / "input_history").read_text()


@pytest.mark.slow
def test_loose_database_left_by_an_older_version_is_tightened(offline_env, pixiu_home):
    db = pixiu_home / "pixiu.db"
    assert pixiu(offline_env, "context", "你好").returncode == 0
    db.chmod(0o644)
    (pixiu_home / "input_history").write_text("")
    (pixiu_home / "input_history").chmod(0o644)
    assert pixiu(offline_env, "context", "你好").returncode == 0
    assert mode(db) == 0o600


@pytest.mark.slow
def test_shared_sticky_directory_as_home_is_not_chmodded(offline_env, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    done = pixiu(dict(offline_env, PIXIU_HOME=str(shared)), "context", "你好")
    assert done.returncode == 0
    assert mode(shared) == 0o1777 and mode(shared / "pixiu.db") == 0o600


@pytest.mark.parametrize(
    "key, value, needle",
    [
        ("model", "a\x7fb", "控制字符"),
        ("model", "a\x1b]0;x\x07b", "控制字符"),
        ("timeout", "-5", "错误：设置 timeout 应为 大于 0 的秒数，而不是 -5"),
        ("modle", "x", "错误：config.toml 有未知设置：modle"),
        ("prices.hit", "0.1", "错误：config.toml 的 [prices] 有未知设置：hit（可用：currency, hit_per_million"),
        ("prices.hit_per_million", "abc", "错误：config.toml 的 [prices] hit_per_million 应为数字"),
        ("timeout", "0", "大于 0"),
        ("timeout", "nan", "timeout"),
        ("max_retries", "-1", "0 到 20"),
        ("max_retries", "2.5", "max_retries"),
        ("temperature", "9", "0 到 2"),
        ("a b", "1", "设置名"),
        ("agent.x.y", "1", "设置名"),
    ],
)
def test_bad_value_is_refused_before_writing(offline_env, pixiu_home, key, value, needle):
    assert pixiu_fast(offline_env, "config", "set", "model", "deepseek-flash").returncode == 0
    before = (pixiu_home / "config.toml").read_bytes()
    done = pixiu_fast(offline_env, "config", "set", "--", key, value)
    one_error_line(done, needle)
    assert "No such option" not in done.stderr and "unknown" not in done.stderr  # never click's English
    assert (pixiu_home / "config.toml").read_bytes() == before
    assert pixiu_fast(offline_env, "config", "show").returncode == 0
    assert pixiu_fast(offline_env, "context", "你好").returncode == 0


def test_free_text_with_del_is_written_as_readable_toml(offline_env, pixiu_home):
    """A value pixiu does not check (an unknown top-level key) still round-trips."""
    from pixiu_cli.home.config import dump_toml, read_config

    data = {"note": "a\x7fb\x1bc\td"}
    path = pixiu_home / "config.toml"
    path.write_text(dump_toml(data), encoding="utf-8")
    assert read_config(path) == data


@pytest.mark.parametrize(
    "content, needle",
    [
        ('base_url = ["https://a.example/v1"]\napi_key = "sk-x"\nmodel = "m"\n', "base_url 应为字符串"),
        ("timeout = -1\n", "timeout"),
        ("max_retries = -3\n", "max_retries"),
        ("model = 5\n", "model 应为字符串"),
    ],
)
def test_hand_written_bad_config_is_one_line(online_env, pixiu_home, content, needle):
    (pixiu_home / "config.toml").write_text(content, encoding="utf-8")
    for args in (("ask", "你好"), ("context", "你好")):
        one_error_line(pixiu_fast(online_env, *args), needle)


@pytest.mark.parametrize(
    "name, value, needle",
    [("PIXIU_TIMEOUT", "-2", "timeout"), ("PIXIU_MAX_RETRIES", "-1", "max_retries"), ("PIXIU_MODEL", "m\x7f", "model")],
)
def test_bad_environment_value_is_one_line(server, online_env, name, value, needle):
    one_error_line(pixiu_fast(dict(online_env, **{name: value}), "ask", "你好"), needle)
    assert not server.requests


def test_home_that_is_a_file_is_one_line(offline_env, tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    for args in (("ask", "你好"), ("config", "set", "model", "m"), ("config", "show"), ("context", "你好"), ("cache",)):
        one_error_line(pixiu_fast(dict(offline_env, PIXIU_HOME=str(not_a_dir)), *args), "不是一个目录")
    one_error_line(pixiu_fast(dict(offline_env, PIXIU_HOME=str(not_a_dir / "sub")), "ask", "你好"), "不是一个目录")
    assert not_a_dir.read_text() == "x"


@pytest.mark.pty
@pytest.mark.slow
def test_credentials_in_base_url_are_never_shown(server, online_env, pixiu_home):

    from tests.helpers import PROMPT

    secret = "hunter2pass" + PLANTED_KEY[-8:]
    url = server.base_url.replace("http://", f"http://alice:{secret}@")
    done = pixiu(online_env, "config", "set", "base_url", url)
    assert done.returncode == 0 and secret not in done.stdout + done.stderr and "***@" in done.stdout
    shown = pixiu(online_env, "config", "show")
    assert secret not in shown.stdout and "alice" not in shown.stdout and "***@127.0.0.1" in shown.stdout
    env = {k: v for k, v in online_env.items() if k != "PIXIU_BASE_URL"}
    done = pixiu(env, "ask", "你好")  # whatever the server says to these credentials
    assert server.requests and secret not in done.stdout + done.stderr
    with repl_session(env, "chat") as child:
        child.expect(PROMPT)
        banner = child.before
        leave(child)
    assert "***@127.0.0.1" in banner and secret not in banner and "alice" not in banner
