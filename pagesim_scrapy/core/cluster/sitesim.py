"""The site-weighted similarity of a batch of pages, with each page's features packed once.

Batch ``cluster --method site`` compares pages under weights that are fixed once the batch is
counted, so a page's features need not be a set of strings re-weighted on every comparison:
each page keeps the sorted numbers of its features among the batch's distinct ones (4 bytes a
feature instead of a string in a frozenset) and its total weight, and a comparison is one
intersection of two sorted arrays. The result is the same number as
:func:`pagesim_scrapy.core.site.site_similarity`: weights lie on a fixed binary grid, so their
sums do not depend on the order they are added in.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from pagesim_scrapy.core.site import SiteModel
from pagesim_scrapy.core.summary import PageSummary

#: A parent -> child pair is the parent's code shifted by this many bits plus the child's (a
#: code is a Unicode code point, 21 bits); the start label is marked by a bit above both.
_SHIFT = np.uint64(21)
_START = np.uint64(1 << 42)


def feature_codes(summary: PageSummary) -> np.ndarray:
    """The page's structural features (see :func:`~pagesim_scrapy.core.site.structural_features`)
    as sorted distinct integers, computed without a Python object per node."""
    sequence = summary.bfs["csr"]
    if not sequence:
        return np.zeros(0, dtype=np.uint64)
    codes = np.frombuffer(sequence.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    codes = codes.astype(np.uint64)
    parents = np.asarray(summary.parent_bfs[1:], dtype=np.int64)
    pairs = (codes[parents] << _SHIFT) | codes[1:]
    return np.unique(np.append(pairs, codes[0] | _START))


def feature_name(code: int) -> str:
    """The feature string of :func:`feature_codes`' integer (the site model counts strings)."""
    if code & int(_START):
        return chr(code ^ int(_START))
    return chr(code >> int(_SHIFT)) + chr(code & ((1 << int(_SHIFT)) - 1))


class BatchSiteSimilarity:
    """The pages of a batch, each as its feature numbers and total weight under the batch's
    document frequencies (or a given model's: the whole site's when the batch is part of it).

    Call it with two of the pages given (the same objects) for their similarity.
    """

    def __init__(self, pages: Iterable[PageSummary], model: SiteModel | None = None) -> None:
        self.pages: list[PageSummary] = list(pages)
        per_page = [feature_codes(page) for page in self.pages]
        distinct, counts = np.unique(
            np.concatenate(per_page) if per_page else np.zeros(0, dtype=np.uint64),
            return_counts=True,
        )
        names = [feature_name(int(code)) for code in distinct]
        if model is None:
            model = SiteModel.from_counts(
                len(self.pages),
                dict(zip(names, map(int, counts))),
                max_features=10_000_000,
                keep_pages=0,
            )
        self.model = model
        table, df = model.table(), model.df
        self._weights = np.array([table[df.get(name, 0)] for name in names], dtype=np.float64)
        self._row = {id(page): row for row, page in enumerate(self.pages)}
        self._features = [np.searchsorted(distinct, codes).astype(np.int32) for codes in per_page]
        self._totals = [float(self._weights[ids].sum()) for ids in self._features]

    def __call__(self, a: PageSummary, b: PageSummary) -> float:
        row_a, row_b = self._row[id(a)], self._row[id(b)]
        # the features of both, sorted: a feature of both is one equal to its neighbour (what
        # numpy's intersect1d does, without its checks, on the hot path of the clustering)
        both = np.concatenate((self._features[row_a], self._features[row_b]))
        both.sort()
        shared = float(self._weights[both[1:][both[1:] == both[:-1]]].sum())
        if shared <= 0.0:
            return 0.0
        union = self._totals[row_a] + self._totals[row_b] - shared
        return min(1.0, shared / union) if union > 0.0 else 0.0
