"""The site-weighted similarity of a batch of pages, with each page's features packed once.

Batch ``cluster --method site`` compares pages under weights that are fixed once the batch is
counted, so a page's features need not be a set of strings re-weighted on every comparison:
each page keeps the sorted numbers of its features among the batch's distinct ones (4 bytes a
feature instead of a string in a frozenset) and its total weight, and a comparison is one
gather of the second page's numbers from the first page's weights laid out by number. The
result is the same number as
:func:`pagesim_scrapy.core.site.site_similarity`: weights lie on a fixed binary grid, so their
sums do not depend on the order they are added in.

Pages streamed from an iterator (the ``cluster`` command, a Spark partition) are not the
caller's to keep: each is kept pickled, much smaller than as objects, and stands in the
clustering as an empty summary with its sketch made on the way; only the leaders' summaries
are restored at the end. Pages given as a sequence are the caller's already and are used as
they are.
"""

from __future__ import annotations

import pickle
import threading
from collections.abc import Iterable, Sequence

import numpy as np
from datasketch import MinHash

from pagesim_scrapy.core.cluster.sketch import Sketcher
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


#: A batch's model counts every feature of its pages and keeps no page for re-scoring.
_BATCH_MODEL: dict[str, int] = {"max_features": 10_000_000, "keep_pages": 0}


def site_document_model() -> SiteModel:
    """An empty model for the document frequencies of the pages clustered as one site."""
    return SiteModel(**_BATCH_MODEL)


class BatchSiteSimilarity:
    """The pages of a batch, each as its feature numbers and total weight under the batch's
    document frequencies (or a given model's: the whole site's when the batch is part of it).

    Call it with two of the pages given (the same objects) for their similarity.
    """

    def __init__(
        self,
        pages: Iterable[PageSummary],
        model: SiteModel | None = None,
        sketcher: Sketcher | None = None,
    ) -> None:
        self.pages: list[PageSummary] = []
        #: the pages' sketches when they were streamed (their summaries are stand-ins then)
        self.sketches: list[MinHash] | None = None
        self._stored: list[bytes] | None = None
        if isinstance(pages, Sequence) or sketcher is None:
            self.pages = list(pages)
            per_page = [feature_codes(page) for page in self.pages]
        else:
            per_page = self._stream(pages, sketcher)
        distinct, counts = np.unique(
            np.concatenate(per_page) if per_page else np.zeros(0, dtype=np.uint64),
            return_counts=True,
        )
        names = [feature_name(int(code)) for code in distinct]
        if model is None:
            df = dict(zip(names, map(int, counts)))
            model = SiteModel.from_counts(len(self.pages), df, **_BATCH_MODEL)
        self.model = model
        table, df = model.table(), model.df
        self._weights = np.array([table[df.get(name, 0)] for name in names], dtype=np.float64)
        self._row = {id(page): row for row, page in enumerate(self.pages)}
        self._features = [np.searchsorted(distinct, codes).astype(np.int32) for codes in per_page]
        self._totals = [float(self._weights[ids].sum()) for ids in self._features]
        self._restored: list[PageSummary] = []
        #: per thread: one page's weights spread over the feature numbers (see ``_spread``)
        self._local = threading.local()

    def _stream(self, pages: Iterable[PageSummary], sketcher: Sketcher) -> list[np.ndarray]:
        """Read the pages once: features, sketch and pickled summary of each, a stand-in kept."""
        self.sketches, self._stored = [], []
        per_page = []
        for page in pages:
            per_page.append(feature_codes(page))
            self.sketches.append(sketcher.sketch(page))
            self._stored.append(pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL))
            self.pages.append(_stand_in(page))
        return per_page

    def restore(self, page: PageSummary) -> PageSummary:
        """The full summary of one of the pages (a stand-in's restored from its pickle; the
        restored summary compares as the stand-in did)."""
        if self._stored is None:
            return page
        row = self._row[id(page)]
        restored: PageSummary = pickle.loads(self._stored[row])
        self._row[id(restored)] = row
        self._restored.append(restored)  # its id stays its own while it is kept
        return restored

    def __call__(self, a: PageSummary, b: PageSummary) -> float:
        row_a, row_b = self._row[id(a)], self._row[id(b)]
        shared = float(self._spread(row_a)[self._features[row_b]].sum())
        if shared <= 0.0:
            return 0.0
        union = self._totals[row_a] + self._totals[row_b] - shared
        return min(1.0, shared / union) if union > 0.0 else 0.0

    def overlap(self, a: PageSummary, b: PageSummary) -> float:
        """The weight two of the pages share over the smaller one's (the overlap coefficient):
        1.0 when the smaller page's features are all in the larger."""
        row_a, row_b = self._row[id(a)], self._row[id(b)]
        smaller = min(self._totals[row_a], self._totals[row_b])
        if smaller <= 0.0:
            return 0.0
        shared = float(self._spread(row_a)[self._features[row_b]].sum())
        return min(1.0, shared / smaller)

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        del state["_local"]  # a thread's scratch array: neither picklable nor worth keeping
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def _spread(self, row: int) -> np.ndarray:
        """The weights of page ``row``'s features at their numbers, zero elsewhere.

        Callers compare one page with several in a row (a page with its candidate leaders, a
        leader with its neighbours), so the first page's weights are laid out once and each
        comparison is one gather of the other page's features: no sort per pair. The sums are
        the intersection's, exactly (weights on a binary grid; a zero adds nothing).
        """
        local = self._local
        last: int = getattr(local, "row", -1)
        if last < 0:
            local.spread = np.zeros(len(self._weights), dtype=np.float64)
        spread: np.ndarray = local.spread
        if last == row:
            return spread
        if last >= 0:
            spread[self._features[last]] = 0.0
        features = self._features[row]
        spread[features] = self._weights[features]
        local.row = row
        return spread


def _stand_in(page: PageSummary) -> PageSummary:
    """An empty summary with the page's source, title and options (what the clustering reads
    of a page besides its features and sketch)."""
    return PageSummary(
        bfs={},
        parent_bfs=[],
        level_starts=[],
        tags=[],
        classes=frozenset(),
        options=page.options,
        title=page.title,
        source=page.source,
    )
