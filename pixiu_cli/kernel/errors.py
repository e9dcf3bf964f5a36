"""The one base class for failures the user is meant to read. Imports nothing from pixiu_cli,
so every layer can raise it and every entry point can catch it once.

The one error a use case raises for a request it refuses; nothing was changed."""

from __future__ import annotations

import errno


class UserError(Exception):
    """A failure phrased as one line for the user (Simplified Chinese); nothing more is shown.
    `exit_code` is the process status when it ends a command."""

    exit_code = 1


# The reasons of the OS errors a user meets when pixiu reads or writes a file, in words: the
# OS's own (strerror) are English, and a full disk must always say 磁盘已满.
_OS_REASONS = {
    "ENOSPC": "磁盘已满",
    "EDQUOT": "磁盘已满（超出磁盘配额）",
    "EROFS": "文件系统是只读的",
    "EACCES": "没有权限",
    "EPERM": "没有权限",
    "ENOENT": "文件或文件夹不存在",
    "ENOTDIR": "路径中有一项不是文件夹",
    "EISDIR": "这是一个文件夹",
    "EEXIST": "已存在",
    "ENAMETOOLONG": "文件名太长",
    "EMFILE": "打开的文件太多",
    "EIO": "磁盘读写错误",
    "EADDRINUSE": "端口已被占用",
    "EADDRNOTAVAIL": "地址不可用",
}


def os_reason(exc: BaseException) -> str:
    """Why an OS call failed, in one short Chinese phrase (the errno's name when it is not one
    of the common ones, never the OS's English text)."""

    name = errno.errorcode.get(getattr(exc, "errno", None) or -1)
    if name is None:
        return f"系统错误（{type(exc).__name__}）"
    return _OS_REASONS.get(name, f"系统错误 {name}")


class RequestError(UserError):
    """The message is one line for the user (or, from a tool, for the model)."""
