"""The information layer of a fetched news item, assigned by where it came from: a company
filing or an official statistic is 事实, a media article 混合 (its facts to be separated from
its framing), commentary and forum posts 情绪观点. The rules are data
(`data/news/source_layers.toml`); the layer is stored with the item and rides with it into
the context block."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache

from pixiu_cli.conversation.context.layers import Layer, parse_layer
from pixiu_cli.kernel.resources import data_dir


@dataclass(frozen=True)
class LayerRule:
    layer: Layer
    kind: str | None
    sources: tuple[str, ...]

    def matches(self, kind: str, source: str) -> bool:
        if self.kind is not None and self.kind != kind:
            return False
        return not self.sources or any(word in source for word in self.sources)


@lru_cache(maxsize=1)
def layer_rules() -> tuple[LayerRule, ...]:
    with open(data_dir() / "news" / "source_layers.toml", "rb") as handle:
        table = tomllib.load(handle)
    rules = []
    for raw in table.get("rule", []):
        layer = parse_layer(raw.get("layer"))
        if layer is None:
            raise ValueError(f"source_layers.toml: unknown layer {raw.get('layer')!r}")
        rules.append(LayerRule(layer, raw.get("kind"), tuple(raw.get("sources", ()))))
    return tuple(rules)


def source_layer(kind: str, source: str | None) -> Layer:
    """The first rule matching the item's kind and outlet; 混合 when none does."""
    for rule in layer_rules():
        if rule.matches(kind, source or ""):
            return rule.layer
    return Layer.MIXED
