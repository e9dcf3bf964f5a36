"""What a push says: one line per channel — delivered (and in how many messages, and whether
the end had to be left out), or failed with why, naming the channel — and the --json form."""

from __future__ import annotations

from collections.abc import Sequence

from pixiu_cli.brief.push.deliver import Delivery

RESEND = "简报已保存，可用 pixiu brief --push --last 重新推送"


def delivery_line(d: Delivery) -> str:
    if not d.ok:
        kept = f"（前 {d.sent} 条已送达）" if d.sent else ""
        return f"推送到 {d.label} 失败：{d.reason}{kept}"
    notes = []
    if d.parts > 1:
        notes.append(f"内容较长，分 {d.parts} 条发送")
    if d.shortened:
        notes.append("超出长度的部分未推送")
    return f"已推送到 {d.label}" + (f"（{'；'.join(notes)}）" if notes else "")


def failed(deliveries: Sequence[Delivery]) -> list[Delivery]:
    return [d for d in deliveries if not d.ok]


def deliveries_json(deliveries: Sequence[Delivery]) -> list[dict]:
    return [
        {
            "channel": d.kind,
            "ok": d.ok,
            "parts": d.parts,
            "shortened": d.shortened,
            "sent": d.sent,
            "attempts": d.attempts,
            "error": d.reason or None,
        }
        for d in deliveries
    ]


def show(renderer, deliveries: Sequence[Delivery], resend_hint: bool = False) -> bool:
    """A line per channel; True when every channel got the message."""
    for d in deliveries:
        (renderer.info if d.ok else renderer.error)(delivery_line(d))
    if resend_hint and failed(deliveries):
        renderer.line(RESEND)
    return not failed(deliveries)


def show_test(renderer, tested, spell=None) -> int | None:
    """`pixiu push test`: a line (or a JSON entry) per channel; 1 when one failed."""
    for warning in tested.warnings:  # e.g. a config.toml with the bots' keys readable by others
        renderer.warn(warning)
    if tested.json_out:
        renderer.json({"push": deliveries_json(tested.deliveries)})
    else:
        show(renderer, tested.deliveries)
    return 1 if failed(tested.deliveries) else None
