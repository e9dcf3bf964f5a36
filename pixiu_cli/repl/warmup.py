"""Warming up what the first turn would otherwise wait for, in a background thread once the
prompt is on the screen, while the user reads and types: the selection's rules (~50 ms to
compile), the stored name table, the shipped names, the modules a turn imports, the
tokenizer, the openai SDK (most of a second of CPU on a busy machine), rich's Markdown, the
homophone table; then all of it is kept out of the garbage collector's way (`_freeze`).

The steps run in the order a turn needs them, so that a question typed before the thread is
done finds what it needs first already loaded, and waits at most on the one step under way
(an import another thread has begun is finished by that thread, not repeated). A turn needs
every step but the last, so the thread goes on with them while a turn runs (the turn would
load each itself, and most of a turn is spent waiting for the model); the last, the shipped
homophone table, which only questions with a homophone candidate need, waits for the next prompt
rather than take the interpreter from a turn. The slash commands' declarations (~60 ms) are
loaded with the idle steps too, unless a `/` typed or a slash command loaded them first."""

from __future__ import annotations

import asyncio
import gc
import importlib
import threading

from pixiu_cli.app import names_cache_dir
from pixiu_cli.conversation.context.builder import system_prompt
from pixiu_cli.conversation.llm.template import render_prompt
from pixiu_cli.conversation.model_tools import model_tools
from pixiu_cli.conversation.selection.select import warm as warm_selection
from pixiu_cli.conversation.tokenizer import counts as tokens
from pixiu_cli.kernel import render
from pixiu_cli.market.names import table as names
from pixiu_cli.repl.registry import registry

# What a first turn imports that the prompt has not: the name table's key and automaton, the account
# and market stores, the calendar, the cost report, the offline server's responder, rich's
# live view, the proposals a turn's end asks about. tests/perf/test_warmup.py fails when a turn after the warm-up imports anything.
TURN_MODULES = (
    "pixiu_cli.market.names.cache",
    "pixiu_cli.kernel.store.database",
    "pixiu_cli.conversation.handle",
    "pixiu_cli.memory.handle",
    "ahocorasick",
    "pixiu_cli.account.store",
    "pixiu_cli.market.store",
    "pixiu_cli.market.calendar",
    "pixiu_cli.market.security_master",
    "pixiu_cli.account.report",
    "pixiu_cli.account.report",
    "pixiu_cli.memory.proposals",
)
OFFLINE_MODULES = (
    "pixiu_cli.conversation.offline.responder",
    "pixiu_cli.conversation.offline.grounded",
    "pixiu_cli.conversation.offline.script",
)
RENDER_MODULES = ("rich.live", "rich.live_render", "rich.file_proxy", "rich.ansi", "termios")


def _import_all(names: tuple[str, ...]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:  # termios off POSIX: the turn does without it too
            pass


def _preload_name_table() -> None:
    """The stored name table the last process used (about 1 MB of pickle): a turn's selection
    loads it first thing, and it is most likely this home's."""
    from pixiu_cli.market.names import cache as name_cache

    name_cache.preload(names_cache_dir())


def _import_turn_modules() -> None:
    _import_all(TURN_MODULES)


def _import_offline_modules() -> None:
    _import_all(OFFLINE_MODULES)


def _count_offline_prompt() -> None:
    """The offline server encodes each prompt piece between the template's markers and
    remembers it; the first piece of every request is the system prompt with the tools'
    schemas (some 10,000 characters), which the first turn would otherwise encode."""
    from pixiu_cli.conversation.offline.chunks import prompt_tokens

    system = {"role": "system", "content": system_prompt()}
    prompt_tokens(render_prompt({"messages": [system], "tools": model_tools().schemas()}))


def _count_system_prompt() -> None:
    """Encode the system prompt once: every request starts with it, and the tokenizer
    remembers each word it merged, so the first turn's counts (the context's, and the
    offline server's of the whole prompt) do not merge it word by word while the user waits."""

    tokens.count_tokens(system_prompt())


def _warm_render() -> None:
    from rich.cells import cell_len

    render.warm()
    _import_all(RENDER_MODULES)
    cell_len("你好")  # rich loads its table of character widths on the first wide character


def _freeze() -> None:
    """What the start and the warm-up loaded (rules, tables, dictionaries, modules) lives as
    long as the session: kept out of every later collection. Without it the first turn's
    allocations set off a full collection over all of it (0.1-0.4 s, the first turn after a
    long idle); later ones walk a tenth as many objects. Run while the prompt waits, so that
    no turn's half-built objects are kept; a collection found ~10 unreachable objects to
    free at this point, so none is run first (it would hold the interpreter 0.1-0.3 s)."""
    gc.freeze()


class Warmup:
    def __init__(self, client):
        self._client = client
        self.thread: threading.Thread | None = None
        self._idle = threading.Event()  # set while the prompt waits for the user

    def after_draw(self) -> None:
        """The prompt's pre_run: it runs before the prompt is first drawn, so the thread is
        started from the event loop, which gets control only after that draw."""
        self.prompt_shown()
        if self.thread is None:
            asyncio.get_running_loop().call_soon(self.start)

    def prompt_shown(self) -> None:
        """The user is reading or typing: the next step may start."""
        self._idle.set()

    def turn_started(self) -> None:
        """A line was entered: no new step until the next prompt."""
        self._idle.clear()

    def start(self) -> None:
        """Only the first call starts the thread."""
        if self.thread is None:
            self._idle.set()
            self.thread = threading.Thread(target=self._run, name="pixiu-warmup", daemon=True)
            self.thread.start()

    def steps(self) -> tuple:
        """What every turn needs, in the order it needs it: the question's selection (rules,
        word boundaries, names), the context's modules, its token counts, the call, the
        reply's rendering."""
        from pixiu_cli.market.names import words

        offline = getattr(self._client, "provider", None) == "offline"  # the in-process server answers
        return (
            warm_selection,
            *((words.warm,) if words.dictionary_kept() else ()),  # a sample of the dictionary: milliseconds
            _preload_name_table,
            names.warm,
            _import_turn_modules,
            tokens.warm,
            _count_system_prompt,
            self._client.warm,
            *((_import_offline_modules, _count_offline_prompt) if offline else ()),
            _warm_render,
        )

    def idle_steps(self) -> tuple:
        """What only some turns need, or what is built once for all later starts (the
        segmenter's dictionary, ~1 s, the first time): run while the prompt waits, never during
        a turn."""
        from pixiu_cli.market.names import homophones, words

        return (registry.load, homophones.warm, words.warm)

    def _run(self) -> None:
        try:
            for step in self.steps():
                step()
            for step in (_freeze, *self.idle_steps(), _freeze):
                self._idle.wait()
                step()
        except Exception:
            pass  # a failure here shows up, with its proper message, when the turn needs it
