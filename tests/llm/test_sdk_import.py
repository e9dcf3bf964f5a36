"""The openai SDK is imported with the cyclic collector paused and what it built is frozen:
collecting its ~100,000 objects while they arrive cost a third of the import's CPU, and every
later full collection walked them again. Measured in a new interpreter, where nothing has
imported the SDK yet; no timing, only whether a collection ran."""

from __future__ import annotations

from tests.helpers import fresh_python


def test_the_sdk_is_imported_without_a_collection_and_left_frozen():
    out = fresh_python(
        """
import gc, sys
from pixiu_cli.conversation.llm.client import load_sdk
assert "openai" not in sys.modules
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
frozen = gc.get_freeze_count()
load_sdk()
load_sdk()  # once only
print("openai" in sys.modules, collections, gc.isenabled(), gc.get_freeze_count() - frozen > 50_000)
"""
    )
    assert out.split() == ["True", "[]", "True", "True"]
