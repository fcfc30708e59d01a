"""The block classifier: a logistic model over `block_features.FEATURES`.

Scoring is pure Python (a dot product per block); the weights are trained by
bench/html_block_training.py from the dev corpora's labels and shipped in
block_weights.py. A model can be built from any weights with the same feature names,
which is how the cross-validated benchmark scores each page with a model that never
saw its site.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence

import attrs

from .block_features import FEATURES


@attrs.frozen
class BlockModel:
    """Weights in `FEATURES` order and a bias; `probability` is P(block is content)."""

    weights: tuple[float, ...]
    bias: float
    name: str = "shipped"

    @classmethod
    def from_mapping(cls, weights: Mapping[str, float], bias: float, name: str = "shipped"
                     ) -> BlockModel:
        """A model from named weights; a feature the mapping does not name weighs 0, and a
        name that is not a feature is refused (weights trained for other features)."""
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"weights for unknown block features: {sorted(unknown)}")
        return cls(tuple(float(weights.get(f, 0.0)) for f in FEATURES), float(bias), name)

    def probability(self, vector: Sequence[float]) -> float:
        if len(vector) != len(self.weights):
            raise ValueError(f"{len(vector)} block features for {len(self.weights)} weights")
        # map(mul) adds the same products in the same order as a generator would, faster.
        z = self.bias + sum(map(operator.mul, self.weights, vector))
        if z < -30:  # exp overflow guard; the probability is 0 to any precision used
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    def probabilities(self, vectors: Sequence[Sequence[float]]) -> list[float]:
        return [self.probability(v) for v in vectors]


def shipped_model() -> BlockModel:
    """The model trained on every dev page (block_weights.py)."""
    from .block_weights import BIAS, WEIGHTS

    return _SHIPPED.setdefault("model", BlockModel.from_mapping(WEIGHTS, BIAS))


_SHIPPED: dict[str, BlockModel] = {}
