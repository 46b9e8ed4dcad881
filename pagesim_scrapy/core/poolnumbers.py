"""A site's feature numbers for the crawl's neighbour fill, assigned in whole batches.

Each feature is a start label (one character) or a parent -> child pair (two), so it is one
integer code; a packed page becomes its codes in one encode, and the features new to the
site are numbered, named and merged into a sorted table of codes once per rebuild of the
fill's sample, not one dict entry per feature occurrence in Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from pagesim_scrapy.core.site import Features

#: A site's numbering starts again once it holds this many times the numbers its sample
#: uses (the features of pages no longer sampled keep theirs until then).
RENUMBER_AT = 4

#: the bits of one character of a code, and the flag of a start label's code
_CHAR_BITS = 21
_CHAR_MASK = (1 << _CHAR_BITS) - 1
_START = 1 << (2 * _CHAR_BITS)


def feature_code(feature: str) -> int:
    """The integer a feature stands for (a start label's apart from every pair's); a
    feature is one or two characters (what a packed page holds)."""
    if len(feature) == 1:
        return _START | ord(feature)
    if len(feature) != 2:
        raise ValueError(f"not a feature: {feature!r}")
    return (ord(feature[0]) << _CHAR_BITS) | ord(feature[1])


def page_codes(page: Features | str) -> np.ndarray:
    """The codes of a page's features in the order they are met (``page``: its features, or
    packed: the start label first, then the pairs as packed)."""
    if not isinstance(page, str):
        return np.fromiter(map(feature_code, page), dtype=np.uint64, count=len(page))
    chars = np.frombuffer(page.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    pairs = chars[1:].reshape(-1, 2).astype(np.uint64)
    codes = (pairs[:, 0] << np.uint64(_CHAR_BITS)) | pairs[:, 1]
    if chars[0] == 0:  # no start label
        return codes
    return np.concatenate((np.array([_START | int(chars[0])], dtype=np.uint64), codes))


def packed_codes(packed: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The codes of several packed pages in one flat array (each page's together, in no
    particular order inside the page) and how many each page has: one encode for them all."""
    chars = np.frombuffer("".join(packed).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    lengths = np.fromiter(map(len, packed), dtype=np.int64, count=len(packed))
    heads = np.cumsum(lengths) - lengths
    body = np.ones(len(chars), dtype=bool)
    body[heads] = False
    pairs = chars[body].reshape(-1, 2).astype(np.uint64)
    codes = (pairs[:, 0] << np.uint64(_CHAR_BITS)) | pairs[:, 1]
    labelled = chars[heads] != 0
    ends = np.cumsum((lengths - 1) // 2)
    starts = chars[heads][labelled].astype(np.uint64) | np.uint64(_START)
    return np.insert(codes, ends[labelled], starts), (lengths - 1) // 2 + labelled


def _batch_codes(pages: Sequence[Features | str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`packed_codes` of ``pages``, a page given as its features (a set may hold several
    start labels, which no packed string does) read feature by feature."""
    packed = [page for page in pages if isinstance(page, str)]
    codes, sizes = packed_codes(packed)
    if len(packed) == len(pages):
        return codes, sizes
    parts, counts = [codes], [sizes]
    for page in pages:
        if not isinstance(page, str):
            parts.append(page_codes(page))
            counts.append(np.array([len(page)], dtype=np.int64))
    return np.concatenate(parts), np.concatenate(counts)


def code_names(codes: np.ndarray) -> list[str]:
    """The features the codes stand for, in their order (one decode for all of them)."""
    chars = np.zeros(2 * len(codes), dtype=np.uint32)
    chars[0::2] = (codes >> np.uint64(_CHAR_BITS)) & np.uint64(_CHAR_MASK)
    chars[1::2] = codes & np.uint64(_CHAR_MASK)
    starts = np.flatnonzero(codes & np.uint64(_START))
    chars[2 * starts] = chars[2 * starts + 1]
    text = chars.tobytes().decode("utf-32-le", "surrogatepass")
    names = [text[i : i + 2] for i in range(0, len(text), 2)]
    for n in starts.tolist():
        names[n] = names[n][0]
    return names


class PoolNumbers:
    """A site's feature numbers kept from one build of its
    :class:`~pagesim_scrapy.core.clusterfill.KeptNeighbours` to the next: a kept page is
    numbered once while it stays sampled, not at every re-estimate. Numbers are given in the
    order features are first met, page after page (any numbering gives the same sums)."""

    def __init__(self) -> None:
        #: each number's feature
        self.names: list[str] = []
        self._pages: dict[Features | str, np.ndarray] = {}
        self._reset_table()

    def _reset_table(self) -> None:
        #: the known codes, ascending, and each one's number
        self.codes = np.zeros(0, dtype=np.uint64)
        self.slots = np.zeros(0, dtype=np.int64)

    def of(self, page: Features | str) -> np.ndarray:
        """The page's feature numbers, ascending (``page``: its features, or packed)."""
        return self.of_all([page])[0]

    def of_all(self, pages: Sequence[Features | str]) -> list[np.ndarray]:
        """:meth:`of` of each page; the pages not numbered yet are numbered in one batch."""
        known = self._pages
        missing = [page for page in dict.fromkeys(pages) if page not in known]
        if missing:
            # packed pages first, in one encode; pages given as their features after
            missing.sort(key=lambda page: not isinstance(page, str))
            codes, sizes = _batch_codes(missing)
            distinct, where = np.unique(codes, return_inverse=True)
            ids = self._numbers_of(distinct)[where.reshape(-1)]
            for page, mine in zip(missing, np.split(ids, np.cumsum(sizes)[:-1])):
                mine.sort()
                known[page] = mine
        return [known[page] for page in pages]

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """Each code's number, -1 for a code not numbered."""
        return lookup_codes(self.codes, self.slots, codes)

    def _numbers_of(self, distinct: np.ndarray) -> np.ndarray:
        """Each of the ``distinct`` codes' number (ascending codes), the codes not numbered
        yet numbered first, in their order."""
        ids = self.lookup(distinct)
        new = ids < 0
        if new.any():
            fresh = distinct[new]
            numbers = np.arange(len(self.names), len(self.names) + len(fresh), dtype=np.int64)
            self.names.extend(code_names(fresh))
            self.codes, self.slots = _merged(self.codes, self.slots, fresh, numbers)
            ids[new] = numbers
        return ids

    def keep_only(self, pages: Iterable[Features | str], used: int) -> None:
        """Forget the pages not in ``pages`` (the sample now, whose pages use ``used``
        numbers), and every number once most belong to pages no longer sampled."""
        if len(self.names) > RENUMBER_AT * used:
            self.names, self._pages = [], {}
            self._reset_table()
            return
        self._pages = {page: self._pages[page] for page in pages}


def _merged(
    codes: np.ndarray, slots: np.ndarray, fresh: np.ndarray, numbers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The table (``codes`` ascending, their ``slots``) with the ``fresh`` codes (ascending,
    none in it) and their ``numbers`` merged in, in one pass."""
    at = np.searchsorted(codes, fresh) + np.arange(len(fresh))
    placed = np.zeros(len(codes) + len(fresh), dtype=bool)
    placed[at] = True
    merged_codes = np.empty(len(placed), dtype=np.uint64)
    merged_slots = np.empty(len(placed), dtype=np.int64)
    merged_codes[at], merged_slots[at] = fresh, numbers
    merged_codes[~placed], merged_slots[~placed] = codes, slots
    return merged_codes, merged_slots


def lookup_codes(table: np.ndarray, slots: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Each code's number in ``table`` (ascending codes) and ``slots``, -1 where absent."""
    if len(table) == 0:
        return np.full(len(codes), -1, dtype=np.int64)
    at = np.searchsorted(table, codes)
    np.minimum(at, len(table) - 1, out=at)
    return np.where(table[at] == codes, slots[at], -1).astype(np.int64)
