"""A sparse, weighted similarity graph over leaders (items), the input of the batch algorithms.

An item stands for ``weight`` pages folded into one leader by the condensing pass. Only pairs
the LSH index proposes get an exact similarity; a pair without an edge counts as dissimilar.
The similarity among an item's own pages is approximated by their similarity to the leader
(mean: ``cohesion``; lowest: ``internal_min``), as BIRCH-style summaries of a micro-cluster do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pagesim_scrapy.core.cluster.leader import Leader, SimilarityFunc
from pagesim_scrapy.core.cluster.sketch import SketchIndex

logger = logging.getLogger(__name__)

ProgressFunc = Callable[[str, int, "int | None"], None]


@dataclass
class ItemGraph:
    weights: list[int]
    cohesion: list[float]
    internal_min: list[float]
    edges: list[dict[int, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.edges:
            self.edges = [{} for _ in self.weights]
        if not len(self.weights) == len(self.cohesion) == len(self.internal_min) == len(self.edges):
            raise ValueError("item lists differ in length")

    def __len__(self) -> int:
        return len(self.weights)

    @property
    def n_edges(self) -> int:
        return sum(len(e) for e in self.edges) // 2

    def set(self, i: int, j: int, score: float) -> None:
        if i == j:
            raise ValueError("no self edges")
        self.edges[i][j] = score
        self.edges[j][i] = score

    def get(self, i: int, j: int) -> float | None:
        if i == j:
            return 1.0
        return self.edges[i].get(j)

    @classmethod
    def from_matrix(
        cls, matrix: Sequence[Sequence[float]], weights: Sequence[int] | None = None
    ) -> ItemGraph:
        """A complete graph from a similarity matrix (for small inputs and tests)."""
        n = len(matrix)
        graph = cls(list(weights or [1] * n), [1.0] * n, [1.0] * n)
        for i in range(n):
            for j in range(i + 1, n):
                graph.set(i, j, float(matrix[i][j]))
        return graph


def leader_graph(
    leaders: Sequence[Leader],
    similarity: SimilarityFunc,
    index: SketchIndex,
    *,
    max_neighbors: int = 50,
    progress: ProgressFunc | None = None,
) -> ItemGraph:
    """Exact similarities between each leader and its best ``max_neighbors`` LSH candidates.

    ``index`` must hold every leader under its ``key``. The number of exact comparisons is at
    most ``len(leaders) * max_neighbors``, whatever the number of pages behind them.
    """
    position = {leader.key: i for i, leader in enumerate(leaders)}
    graph = ItemGraph(
        [leader.weight for leader in leaders],
        [leader.cohesion for leader in leaders],
        [leader.sim_min for leader in leaders],
    )
    for i, leader in enumerate(leaders):
        for candidate in index.candidates(leader.minhash, max_neighbors + 1):
            j = position.get(candidate.key)
            if j is None or j == i or graph.get(i, j) is not None:
                continue
            graph.set(i, j, similarity(leader.summary, leaders[j].summary))
        if progress is not None:
            progress("comparing leaders", i + 1, len(leaders))
    logger.debug("leader graph: %d items, %d edges", len(graph), graph.n_edges)
    return graph
