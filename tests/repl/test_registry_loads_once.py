"""The REPL's registry registers the declared commands once even when the warm-up thread and a
`/` typed at the prompt ask for them at the same moment."""

from __future__ import annotations

import threading
import time

from pixiu_cli.repl.registry import CommandRegistry


def test_two_threads_asking_at_once_register_each_command_once():
    def slow_loader():
        time.sleep(0.05)  # the first asker is still registering when the second arrives
        registry.command("help", "列出所有命令")(lambda state, cmd: None)

    registry = CommandRegistry(slow_loader)
    seen, failures = [], []

    def ask():
        try:
            seen.append(registry.names())
        except Exception as exc:
            failures.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert seen == [["help"], ["help"]]
