"""`pixiu eval`: the context evals (and with --live the answer evals), a plain click command
of the root group (cli/root.py), command-line only."""

from __future__ import annotations

from pathlib import Path

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.params import Argument, Text
from pixiu_cli.conversation.views_tools import show_eval_table
from pixiu_cli.evals import answers as answer_command
from pixiu_cli.evals import answers as consent_runner
from pixiu_cli.evals import contexts

# What `pixiu eval` calls each selection split.
_SPLIT_NAMES = {
    "tune": "调参集（规则据此调整）",
    "tune_5": "调参集五（选择第五轮的规则据此调整）",
    "heldout": "留出集（只测量，从不据此调整）",
    "frozen": "冻结留出集（新账户，规则之前写成，只测量）",
    "topics_tune": "基本面与市场 · 调参集",
    "topics_heldout": "基本面与市场 · 留出集（规则之前写成，只测量）",
    "frozen_2": "冻结留出集二（账户与日常：新账户，本轮规则之前写成，只测量）",
    "frozen_3": "冻结留出集三（选择第五轮：项目之外写成，规则改动之前，只测量）",
    "frozen_4": "冻结留出集四（选择第五轮：项目之外写成，规则改动之前，只测量）",
    "frozen_5": "冻结留出集五（选择第五轮复测：项目之外写成，不看规则，只测量）",
    "frozen_6": "冻结留出集六（选择第五轮复测：项目之外写成，不看规则，只测量）",
    "frozen_7": "冻结留出集七（选择第五轮三测：项目之外写成，不看规则，只测量）",
    "frozen_8": "冻结留出集八（选择第五轮三测：项目之外写成，不看规则，只测量）",
    "frozen_9": "冻结留出集九（选择第五轮四测：项目之外写成，不看规则，只测量）",
    "frozen_10": "冻结留出集十（选择第五轮四测：项目之外写成，不看规则，只测量）",
    "frozen_11": "冻结留出集十一（选择第五轮五测：项目之外写成，不看规则，只测量）",
    "frozen_12": "冻结留出集十二（选择第五轮五测：项目之外写成，不看规则，只测量）",
    "frozen_13": "冻结留出集十三（账户收益：项目之外写成，不看规则，只测量）",
}


_CONSENT_NAMES = {
    "heldout": "留出集（项目之外写成，只测量：报告成交才记录，其余只提议）",
    "heldout_2": "留出集二（项目之外写成，规则改动之前写成，只测量）",
}


@click.command(
    "eval",
    help="上下文评测：每个用例检查组装出的 [上下文信息] 中必须出现 / 不得出现的事实，按类别给出通过率。\n"
    "不指定用例时，另外报告选择语料（data/selection）的调参集和留出集通过率；加 --live 做回答评测（含消融对照）。",
)
@click.argument(
    "cases",
    cls=Argument,
    nargs=-1,
    metavar="[cases]...",
    help="用例文件或目录（默认 data/evals/ 下全部；--live 时为 data/evals/answers/）",
)
@click.option("--json", "as_json", is_flag=True, help="输出 JSON 汇总")
@click.option("--live", is_flag=True, help="回答评测：经真实对话流程调用模型并给回复打分")
@click.option(
    "--ablate",
    multiple=True,
    metavar="<list[str]>",
    help="--live 时去掉的上下文部分（可重复或逗号分隔；all = 不发送 [上下文信息]）",
)
@click.option("--yes", is_flag=True, help="--live 时不询问费用确认")
@click.option("--history", is_flag=True, help="查看以往的回答评测结果")
@click.option("--model", type=Text("模型名"), metavar="<str>", help="模型名（覆盖 PIXIU_MODEL）")
@click.option("--offline", is_flag=True, help="即使设置了 API key 也使用离线应答器")
def eval_command(cases, as_json, live, ablate, yes, history, model, offline) -> None:
    if live or history:
        _live_eval(list(cases), as_json, list(ablate), yes, history, model, offline)
        return
    loaded = contexts.load_cases([Path(c) for c in cases] if cases else None)
    splits = contexts.run_selection_corpus() if not cases else {}
    consent = consent_runner.run_consent_sets() if not cases else {}
    report = contexts.run_evals(loaded)
    renderer = common.renderer()
    if as_json:
        summary = dict(contexts.summarize(report))
        if splits:
            summary["selection"] = contexts.summarize_splits(splits)
        if consent:
            summary["consent"] = contexts.summarize_splits(consent)
        renderer.json(summary)
    else:
        show_eval_table(renderer, "上下文评测（类别低于 100% 是上下文缺口，不是该删的用例）", report)
        for split, split_report in splits.items():
            show_eval_table(renderer, f"选择语料 · {_SPLIT_NAMES.get(split, split)}", split_report)
        for split, split_report in consent.items():
            show_eval_table(renderer, f"记账同意 · {_CONSENT_NAMES.get(split, split)}", split_report)
    shortfalls = contexts.held_out_shortfalls(splits)
    for line in shortfalls:
        renderer.warn(f"留出集未达标：{line}")
    common.finish(1 if report.passed != report.total or shortfalls else 0)


def _live_eval(cases, as_json: bool, ablate: list[str], yes: bool, history: bool, model, offline: bool) -> None:
    settings = common.settings(model, offline)
    renderer = common.renderer()
    if history:
        answer_command.render_history(settings, renderer, as_json=as_json)
        return
    options = answer_command.LiveOptions([Path(c) for c in cases] if cases else None, ablate, yes, as_json)
    report = answer_command.run_command(settings, options, renderer)
    answer_command.render_report(report, renderer, offline=settings.offline, as_json=as_json)


COMMANDS = {"eval": eval_command}
