"""The `pixiu` command group: each top word's area module and one-line summary, in the order of
`pixiu --help`. A word's module is imported only when that command runs (click's lazily
loaded subcommands), so `--help` lists every command without importing any. The REPL runs
`/X` through this same group (repl/slash.py); `repl: False` keeps a word off the REPL,
`cli: False` off the command line. An area module holds plain click commands in `COMMANDS`
(word → command).

The command line's entry point with its one-line error handling. Every command goes through
the `pixiu` click group (cli/root.py), which imports only the typed command's module.
`pixiu --help` reads the group's table and imports no area (it never imports openai)."""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass

import click

from pixiu_cli import __version__
from pixiu_cli.commands import common
from pixiu_cli.commands.common import is_usage_error, usage_line
from pixiu_cli.kernel.errors import UserError


@dataclass(frozen=True)
class Top:
    module: str
    summary: str
    cli: bool = True
    repl: bool = True


TABLE: dict[str, Top] = {
    "chat": Top("pixiu_cli.cli.talk", "交互式对话（默认命令）。", repl=False),
    "ask": Top("pixiu_cli.cli.talk", "问一个问题并退出（不进入交互界面）。", repl=False),
    "sessions": Top("pixiu_cli.conversation.commands", "列出、搜索、改名、删除或恢复对话。"),
    "brief": Top(
        "pixiu_cli.brief.commands",
        "每日简报：本地算出持仓涨跌、盈亏变动、预警、信号变化、新闻和纪律风险，由模型写成简报，结论存为报告（费用超过设定金额时需加 --yes；--push 推送）。",
    ),
    "schedule": Top(
        "pixiu_cli.brief.push.commands",
        "打印收盘后每个交易日运行 同步 + 简报 + 推送 的 crontab 行（及 systemd 定时器、launchd 配置）；不修改任何系统设置。",
        repl=False,
    ),
    "context": Top(
        "pixiu_cli.conversation.commands",
        "显示模型看到（或将要看到）的完整上下文，不调用模型；在对话中：上一次（或第 N 轮）真正看到的内容。",
    ),
    "import": Top(
        "pixiu_cli.home.commands",
        "导入领域数据：默认按自然键合并（对话中记下的笔记和交易不受影响）；文件有误时一条也不导入。",
        repl=False,
    ),
    "export": Top("pixiu_cli.home.commands", "导出全部领域数据为一个 JSON 文档（可再导入）。", repl=False),
    "backup": Top(
        "pixiu_cli.home.commands",
        "把数据库完整备份到 PIXIU_HOME/backups/（SQLite 在线备份，可在其他终端使用时进行）。",
        repl=False,
    ),
    "restore": Top(
        "pixiu_cli.home.commands",
        "用备份文件还原数据库（先检查文件，并先备份当前数据库；当前数据库损坏时先把它移到 backups/）。",
        repl=False,
    ),
    "holdings": Top(
        "pixiu_cli.account.commands",
        "持仓：股数、成本、最新收盘及日期、市值、浮动和已实现盈亏、占总资产的仓位（含现金）；风险分布：行业权重、最大单只与你定的仓位上限。",
    ),
    "trade": Top("pixiu_cli.account.commands", "记录一笔买入或卖出（更新持仓与现金；/forget dN 可撤销）。"),
    "remember": Top(
        "pixiu_cli.memory.commands", "手动记下一条观点 / 计划 / 纪律（不写 --symbol 时从文字里认出股票）。"
    ),
    "forget": Top(
        "pixiu_cli.memory.commands", "撤销一条记忆：删除笔记、撤销合并，或撤销一笔交易（持仓恢复）；预警规则如 a3。"
    ),
    "cache": Top(
        "pixiu_cli.conversation.commands", "缓存命中、费用与节省（本对话 / 今天 / 全部），以及每次调用未命中的原因。"
    ),
    "eval": Top(
        "pixiu_cli.evals.commands",
        "上下文评测：每个用例检查组装出的 [上下文信息] 中必须出现 / 不得出现的事实，按类别给出通过率。\n"
        "不指定用例时，另外报告选择语料（data/selection）的调参集和留出集通过率；加 --live 做回答评测（含消融对照）。",
        repl=False,
    ),
    "alias": Top(
        "pixiu_cli.memory.commands",
        "股票别名：alias 宁王 300750 设置（之后提到别名就会加载这只股票）；alias --remove 宁王 删除；不带参数列出全部。",
    ),
    "offline-server": Top(
        "pixiu_cli.conversation.commands",
        "在前台运行离线 OpenAI 兼容服务（127.0.0.1），用于测试和无 key 体验。",
        repl=False,
    ),
    "chart": Top("pixiu_cli.market.commands", "终端走势图：前复权收盘、MA20/MA60、持仓成本线和买卖点。"),
    "market": Top(
        "pixiu_cli.market.commands",
        "市场概况：指数基准的收盘与涨跌、全市场涨跌家数与涨跌停、成交额、最强和最弱的行业，均注明日期和来源。",
    ),
    "fundamentals": Top(
        "pixiu_cli.market.commands",
        "一只股票已存的基本面：估值（PE/PB 在自身历史中的分位）、最近的财报摘要、分红和报告日，均注明报告期和来源。",
    ),
    "profile": Top(
        "pixiu_cli.market.commands",
        "本地回测画像：3 年窗口、4 个策略、A 股成交规则与成本；样本内选优、样本外检验。",
        repl=False,
    ),
    "track": Top(
        "pixiu_cli.market.commands",
        "操作决策的事后表现：5 日、20 日收益，对比不操作和该股自身走势（命中率、最好与最差）。",
    ),
    "signal": Top(
        "pixiu_cli.market.commands", "融合信号及其分项（趋势、动量、波动、回撤），取自已存的信号。", repl=False
    ),
    "push": Top(
        "pixiu_cli.brief.push.commands",
        "推送渠道（config.toml 的 [push]）：企业微信、飞书、钉钉、Telegram、邮件和通用 webhook。",
        repl=False,
    ),
    "trades": Top(
        "pixiu_cli.account.commands",
        "成交与资金流水：trades [代码] 列出；trades import 交割单.csv 导入（重复导入不会重复记录）。",
    ),
    "cash": Top(
        "pixiu_cli.account.commands",
        "现金：cash set 50000 设置余额；cash in / cash out 金额 记录银证转入 / 转出；不带参数显示当前余额。",
    ),
    "performance": Top(
        "pixiu_cli.account.commands",
        "账户收益：时间加权与资金加权收益率、盈亏、最大回撤、波动率、月度收益，对比沪深300（今年以来、近一年、自成立……）。",
    ),
    "accounts": Top("pixiu_cli.account.commands", "券商账户：每个账户的名称、资金账号和股东代码、持仓只数、现金。"),
    "memory": Top(
        "pixiu_cli.memory.commands", "记忆：列出、搜索笔记和交易（含作者），采纳模型提议，确认计划替换，置顶与修改。"
    ),
    "config": Top(
        "pixiu_cli.home.commands", "查看或修改 PIXIU_HOME 下的 config.toml（写入时权限为 600）。", repl=False
    ),
    "data": Top("pixiu_cli.market.commands", "行情数据：导入、同步、查看（不复权存储，读取时复权）。", repl=False),
    "watch": Top("pixiu_cli.market.commands", "自选股（同步时与持仓一起更新）。"),
    "sync": Top(
        "pixiu_cli.market.commands", "同步行情：持仓、自选股和指数基准的日线与除权除息（同 pixiu data sync）", cli=False
    ),
    "news": Top(
        "pixiu_cli.market.news.commands",
        "新闻和公告：已存的条目（含信息层次、来源、链接）；sync 从 akshare 同步持仓和自选股的新闻与巨潮公告。",
    ),
    "alert": Top("pixiu_cli.memory.commands", "价格预警：收盘价穿越、单日涨跌幅、较成本回撤（导入或同步日线后检查）。"),
    "mcp": Top(
        "pixiu_cli.mcp.commands", "MCP 服务：让其他代理（Claude、Cursor 等）只读地使用 pixiu 的记忆。", repl=False
    ),
    # the REPL's own words, its session's alone
    "help": Top("pixiu_cli.repl.commands", "列出所有命令", cli=False),
    "exit": Top("pixiu_cli.repl.commands", "退出 pixiu", cli=False),
    "new": Top("pixiu_cli.conversation.commands", "开始新对话", cli=False),
    "resume": Top("pixiu_cli.conversation.commands", "继续之前的对话", cli=False),
    "model": Top("pixiu_cli.conversation.commands", "查看或切换本对话使用的模型", cli=False),
    "save": Top("pixiu_cli.conversation.commands", "把当前对话保存为 Markdown 文件（每轮带状态）", cli=False),
    "copy": Top("pixiu_cli.repl.commands", "把上一条回复复制到剪贴板", cli=False),
    "undo": Top("pixiu_cli.conversation.commands", "撤回上一轮：模型不再看到它（记录保留）", cli=False),
    "retry": Top(
        "pixiu_cli.conversation.commands", "重新生成上一轮中断或出错的回答（原来的部分回答保留在记录中）", cli=False
    ),
}


def command_of(word: str) -> click.Command | None:
    """The command of a top word, its area module imported now."""
    top = TABLE.get(word)
    if top is None:
        return None
    return importlib.import_module(top.module).COMMANDS[word]


class LazyGroup(click.Group):
    """The top words from TABLE; a command's module is imported when it is looked up."""

    def list_commands(self, ctx):
        surface_repl = ctx is not None and ctx.find_root().obj is not None
        return [w for w, t in TABLE.items() if (t.repl if surface_repl else t.cli)]

    def repl_words(self) -> list[tuple[str, str]]:
        """The REPL's words run through this group, with their summaries."""
        return [(w, t.summary) for w, t in TABLE.items() if t.repl]

    def get_command(self, ctx, name):
        if ctx is None:  # a look-up outside a run (the REPL's usage lines, a refusal's path)
            return command_of(name)
        if name not in self.list_commands(ctx):
            return None
        return command_of(name)

    def resolve_command(self, ctx, args):
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            from difflib import get_close_matches

            near = get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f". Did you mean '{near[0]}'?" if near else "."
            raise click.UsageError(f"No such command '{name}'{hint}", ctx)  # cli/usage.py words it
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx, formatter):
        """`pixiu --help`'s list, from the table's summaries: no area is imported for it."""
        limit = formatter.width - 6 - max(len(w) for w in TABLE)
        rows = [(w, click.utils.make_default_short_help(TABLE[w].summary, limit)) for w in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _version(ctx, param, shown: bool) -> None:
    if shown and not ctx.resilient_parsing:
        common.renderer().line(f"pixiu {__version__}")
        ctx.exit()


@click.group(
    "pixiu",
    cls=LazyGroup,
    invoke_without_command=True,
    subcommand_metavar="COMMAND [ARGS]...",
    help="貔貅 pixiu：A 股投资者的终端助理（DeepSeek 或任意 OpenAI 兼容接口；无 key 时离线）。",
)
@click.option("--version", is_flag=True, is_eager=True, expose_value=False, callback=_version, help="显示版本并退出")
@click.pass_context
def root(ctx: click.Context) -> None:
    if ctx.invoked_subcommand is None:
        from pixiu_cli.cli import talk

        talk.run_chat(False, None, False, None, False)


def __getattr__(name: str):
    if name == "app":  # the `pixiu` group, for `from pixiu_cli.cli.root import app` (tests, scripts)
        return root
    raise AttributeError(name)


def _click_command():

    return root


def main() -> None:
    common.command_group = _click_command
    with common.one_invocation():
        _main()


def _main() -> None:
    try:
        code = _run(_click_command(), sys.argv[1:])
        if code:
            sys.exit(code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # Whoever read our output has gone; say nothing more and let the shell see SIGPIPE.

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except UserError as exc:
        common.renderer().error(str(exc))
        sys.exit(exc.exit_code)
    except Exception as exc:
        _exit_typer(exc)
        from pixiu_cli.conversation.presenters import error_line

        common.renderer().error(error_line(exc))
        sys.exit(1)


def _run(group, argv: list[str]) -> int:
    """The command's exit status. Not click's `main`: it would print a blank line on Ctrl-C and
    turn a reader gone (`pixiu ask … | head -1`) into status 1; both are handled below."""

    try:
        with group.make_context("pixiu", list(argv)) as ctx:
            group.invoke(ctx)
    except click.exceptions.Exit as done:
        return done.exit_code
    return 0


def _exit_typer(exc: Exception) -> None:
    """Exit as click's (or typer's copy of click's) own exceptions ask; return for any other.
    Only a command that went through the parser can raise one, so neither is imported here."""
    found = {}
    for module in ("click.exceptions", "typer._click.exceptions", "typer.exceptions"):
        for name in ("Exit", "Abort", "ClickException"):
            kind = getattr(sys.modules.get(module), name, None)
            if kind is not None:
                found.setdefault(name, []).append(kind)
    if isinstance(exc, tuple(found.get("Exit", ()))):
        sys.exit(exc.exit_code)
    if isinstance(exc, tuple(found.get("Abort", ()))):
        sys.exit(130)
    if isinstance(exc, tuple(found.get("ClickException", ()))):  # usage errors: one Chinese line naming the flag
        if is_usage_error(exc):
            common.renderer().error(usage_line(exc, sys.argv[1:], _click_command()))
        elif hasattr(exc, "show"):
            exc.show()
        sys.exit(getattr(exc, "exit_code", 2))
