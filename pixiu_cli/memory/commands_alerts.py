"""The decisions' track record (`track`): a word of the market's, still declared here until
the market's commands are plain click commands (the alerts are memory/commands.py's)."""

from __future__ import annotations

from pixiu_cli.commands.declaration import Command, Nothing, lazy


def _track(ctx, _: Nothing):
    from pixiu_cli.market.analytics.service import track

    return track(ctx.db, ctx.now())


DECLARED = (
    Command(
        ("track",),
        "操作决策的事后表现：5 日、20 日收益，对比不操作和该股自身走势（命中率、最好与最差）。",
        (),
        Nothing,
        _track,
        lazy("pixiu_cli.market.analytics.views_track:show_track"),
        record=lazy("pixiu_cli.market.analytics.views_track:track_record"),
    ),
)
