"""Query relevance of CST blocks and pages: TF-IDF cosine with bottom-up sibling elimination.

Seed 001 (section VI and Figure 5) visits the CST bottom-up; among sibling blocks it keeps only
the one most similar to the query and adds that block's weight to its parent. Exactly:

* ``own(b)``: term counts of the content nodes held directly by block ``b`` (text nodes, whose
  text includes the anchor text of their links, and image alt texts; link nodes are not counted
  a second time);
* ``V(b) = own(b) + V(c*)``, where ``c*`` is the child block of ``b`` with the highest
  ``score(c) = cos(tfidf(V(c)), tfidf(query))``; the other children are eliminated. A child that
  shares no term with the query (score 0) is not added: it would only lengthen the vector;
* ``score(b) = cos(tfidf(V(b)), tfidf(query))`` (eq. (1) of the seed), a float in [0, 1];
  blocks outside the scored scope get score 0 (so they never survive elimination);
* page relevance = the best block score, ``max_b score(b)``; the best block is that ``b``.

Scope. With scope ``"page"`` every block may score. With scope ``"main"`` (the default of
:func:`pagesim_scrapy.core.content.analyze_content`) only the page's main content may: the main
block and its sub-blocks kept in the main text, plus the blocks holding an ``<h1>`` headline.
On the Zyte article benchmark (a query made from each page's title) the page itself ranks
first far more often with scope "main": with scope "page" a small block of *another* page (a
related-article teaser, a menu entry) that repeats the query's words has a near-perfect cosine
and outranks the article.

Term weights are raw term frequency times the smoothed idf of :mod:`.tfidf`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, KeysView
from dataclasses import dataclass
from typing import cast

from pagesim_scrapy.core.content.tfidf import (
    DocumentFrequencies,
    idf_function,
    query_weights,
    tokenize,
)
from pagesim_scrapy.core.content.tree import Block, ContentTree


@dataclass(frozen=True, slots=True)
class BlockRelevance:
    """Relevance of every block of a CST to one query (indices are block indices)."""

    scores: list[float]
    surviving_child: list[int]
    best_block: int
    score: float

    def path(self, block: int = 0) -> list[int]:
        """The chain of surviving blocks from ``block`` down (the seed's kept blocks)."""
        out = [block]
        while self.surviving_child[out[-1]] >= 0:
            out.append(self.surviving_child[out[-1]])
        return out


def block_term_counts(tree: ContentTree, link_weight: float = 1.0) -> list[dict[str, float]]:
    """Term counts of each block's own content nodes (text and image alt).

    Anchor text is part of the text nodes; ``link_weight`` < 1 counts its terms less (0: not at
    all), since a link's words describe the page it points to.
    """
    n = len(tree.blocks)
    parts: list[list[str]] = [[] for _ in range(n)]
    for node in tree.texts:
        parts[node.block].append(node.text)
    for node in tree.images:
        parts[node.block].append(node.text)
    # Counter: C-speed counting; values become floats below when links are discounted
    counts = [cast("dict[str, float]", Counter(tokenize("\n".join(p)))) if p else {} for p in parts]
    if link_weight < 1.0 and tree.links:
        link_parts: dict[int, list[str]] = {}
        for node in tree.links:
            link_parts.setdefault(node.block, []).append(node.text)
        drop = 1.0 - link_weight
        for b, texts in link_parts.items():
            own = counts[b]
            if not own:
                continue
            for term, k in Counter(tokenize("\n".join(texts))).items():
                left = own.get(term)
                if left is not None:
                    left -= drop * k
                    if left > 1e-9:
                        own[term] = left
                    else:
                        del own[term]
    return counts


def page_terms(counts: list[dict[str, float]]) -> set[str]:
    """The set of terms of a page (what a page adds to document frequencies)."""
    terms: set[str] = set()
    for c in counts:
        terms.update(c)
    return terms


def score_blocks(
    tree: ContentTree,
    query: str | dict[str, float],
    df: DocumentFrequencies | None = None,
    counts: list[dict[str, float]] | None = None,
    excluded: list[bool] | None = None,
) -> BlockRelevance:
    """Score every block against a query (text, or TF-IDF weights from ``query_weights``).

    ``excluded`` blocks (furniture) get score 0 and so never survive sibling elimination.
    """
    n = len(tree.blocks)
    qw = query_weights(query, df) if isinstance(query, str) else query
    qnorm = math.sqrt(sum(w * w for w in qw.values()))
    if not n or qnorm <= 0.0:
        return BlockRelevance([0.0] * n, [-1] * n, 0, 0.0)
    if counts is None:
        counts = block_term_counts(tree)
    live = _live_blocks(tree.blocks, counts, qw.keys(), excluded)
    scorer = _BlockScorer(tree.blocks, counts, qw, qnorm, idf_function(df))
    for b in range(n - 1, -1, -1):
        if live[b]:
            scorer.score(b)
    scores = scorer.scores
    # on ties (a block and the ancestors that only pass its vector up) the innermost block wins
    best = max(range(n - 1, -1, -1), key=scores.__getitem__)
    return BlockRelevance(scores, scorer.surviving, best, scores[best])


def _live_blocks(
    blocks: list[Block],
    counts: list[dict[str, float]],
    qterms: KeysView[str],
    excluded: list[bool] | None,
) -> list[bool]:
    """Only blocks with a query term in their subtree can score above 0; the others are
    skipped."""
    live = [False] * len(blocks)
    for b in range(len(blocks) - 1, -1, -1):
        if excluded is not None and excluded[b]:
            live[b] = False
            continue
        if live[b] or not qterms.isdisjoint(counts[b]):
            live[b] = True
            parent = blocks[b].parent
            if parent >= 0:
                live[parent] = True
    return live


class _BlockScorer:
    """Bottom-up scores: each block takes over its best child's term vector (sibling
    elimination) and adds its own terms to it."""

    def __init__(
        self,
        blocks: list[Block],
        counts: list[dict[str, float]],
        qw: dict[str, float],
        qnorm: float,
        idf: Callable[[str], float],
    ) -> None:
        n = len(blocks)
        self.blocks = blocks
        self.counts = counts
        self.qw = qw
        self.qnorm = qnorm
        self.idf = idf
        self.idf_cache: dict[str, float] = {}
        self.vectors: list[dict[str, float] | None] = [None] * n
        self.sumsq = [0.0] * n
        self.dots = [0.0] * n
        self.scores = [0.0] * n
        self.surviving = [-1] * n

    def score(self, b: int) -> None:
        """Score block ``b`` (its children are scored already)."""
        scores = self.scores
        vectors = self.vectors
        best_child, best_score = -1, 0.0
        for c in self.blocks[b].children:
            if scores[c] > best_score:
                best_child, best_score = c, scores[c]
        if best_child >= 0:
            vec = vectors[best_child]
            assert vec is not None
            ss, dot = self.sumsq[best_child], self.dots[best_child]
        else:
            vec, ss, dot = {}, 0.0, 0.0
        for c in self.blocks[b].children:
            vectors[c] = None  # eliminated, or now owned by ``b``
        ss, dot = self._add_terms(vec, self.counts[b], ss, dot)
        vectors[b] = vec
        self.sumsq[b], self.dots[b] = ss, dot
        self.surviving[b] = best_child
        if dot > 0.0 and ss > 0.0:
            scores[b] = min(1.0, dot / (math.sqrt(ss) * self.qnorm))

    def _add_terms(
        self, vec: dict[str, float], counts: dict[str, float], ss: float, dot: float
    ) -> tuple[float, float]:
        """Add a block's own term counts to ``vec``; the new sum of squares and dot product."""
        idf_cache = self.idf_cache
        idf = self.idf
        qw = self.qw
        for term, k in counts.items():
            w = idf_cache.get(term)
            if w is None:
                w = idf_cache[term] = idf(term)
            old = vec.get(term, 0.0)
            new = old + k
            vec[term] = new
            ss += (new * new - old * old) * w * w
            qv = qw.get(term)
            if qv is not None:
                dot += k * w * qv
        return ss, dot
