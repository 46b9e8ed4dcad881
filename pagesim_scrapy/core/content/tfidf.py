"""Terms, document frequencies and TF-IDF weights (seed 001, section VI).

Tokeniser. Text is lower-cased; runs of letters and digits are words (one-letter words are
dropped). Scripts written without spaces between words (Chinese, Japanese kana, Thai, Lao,
Khmer, Myanmar) have no words to split on, so their runs become overlapping character bigrams
("東京都" -> "東京", "京都"), the usual dictionary-free indexing unit for those scripts; a lone
character stays a unigram. Korean Hangul separates words with spaces and is tokenised as words.

Weights. The seed weights a term by ``tf · log(N / n)`` (N pages, n pages holding the term). That
weight is undefined for a term no page has seen yet (a query word, or the first page of a crawl)
and zero for a term in every page, so we use the smoothed form ``idf = ln((1 + N) / (1 + n)) + 1``:
finite for unseen terms, still ordering terms by rarity. Without document frequencies every idf
is 1 and the cosine is a plain term-frequency cosine.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: Version of :meth:`DocumentFrequencies.to_dict`'s JSON layout.
DF_FORMAT_VERSION = 1

# Scripts written without spaces: Thai, Lao, Myanmar, Khmer, CJK (kana, ideographs, compatibility
# ideographs, halfwidth katakana). Ranges include their combining marks.
_NO_SPACE = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
)
_NO_SPACE_RUN = re.compile(f"[{_NO_SPACE}]+")
_WORD = re.compile(f"[^\\W_{_NO_SPACE}]{{2,}}")


def tokenize(text: str) -> list[str]:
    """Split text into index terms: lower-cased words, and character bigrams for CJK/Thai runs."""
    text = text.lower()
    out = _WORD.findall(text)
    if _NO_SPACE_RUN.search(text) is not None:
        for run in _NO_SPACE_RUN.findall(text):
            if len(run) == 1:
                out.append(run)
            else:
                out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def term_counts(text: str) -> Counter[str]:
    """Term frequencies of a text."""
    return Counter(tokenize(text))


class DocumentFrequencies:
    """How many pages hold each term, learned page by page (a crawl) or from a corpus.

    ``add_page`` takes a lock, so crawl threads (or concurrent callbacks) can feed it while others
    score; lookups are lock-free single dict reads. ``max_terms`` bounds memory on long crawls:
    when the vocabulary grows past it, the rarest terms are forgotten (they then count as unseen,
    which gives them the highest idf, as their true rarity would).
    """

    def __init__(self, *, max_terms: int | None = None) -> None:
        if max_terms is not None and max_terms < 1:
            raise ValueError("max_terms must be positive")
        self._df: dict[str, int] = {}
        self._documents = 0
        self._max_terms = max_terms
        self._lock = threading.Lock()
        #: called with each added page's distinct terms, under the lock (a crawl fleet
        #: records its deltas there: keep it cheap)
        self.add_listener: Callable[[set[str]], None] | None = None

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], *, max_terms: int | None = None
    ) -> DocumentFrequencies:
        """Document frequencies of a corpus given as one text per document."""
        df = cls(max_terms=max_terms)
        for text in texts:
            df.add_page(tokenize(text))
        return df

    @property
    def documents(self) -> int:
        """N: the number of pages added."""
        return self._documents

    def __len__(self) -> int:
        return len(self._df)

    def __contains__(self, term: object) -> bool:
        return term in self._df

    def frequency(self, term: str) -> int:
        """n: the number of pages holding ``term``."""
        return self._df.get(term, 0)

    def idf(self, term: str) -> float:
        """Smoothed inverse document frequency ``ln((1 + N) / (1 + n)) + 1``."""
        return math.log((1 + self._documents) / (1 + self._df.get(term, 0))) + 1.0

    def add_page(self, terms: Iterable[str]) -> None:
        """Count one page; ``terms`` are its tokens (repeats are counted once)."""
        unique = set(terms)
        with self._lock:
            df = self._df
            for term in unique:
                df[term] = df.get(term, 0) + 1
            self._documents += 1
            if self.add_listener is not None:
                self.add_listener(unique)
            if self._max_terms is not None and len(df) > self._max_terms:
                self._prune()

    def _prune(self) -> None:
        """Forget the rarest terms until the vocabulary is 90 % of ``max_terms`` (lock held)."""
        assert self._max_terms is not None
        target = int(self._max_terms * 0.9)
        by_count = Counter(self._df.values())
        limit, kept = 0, len(self._df)
        for count in sorted(by_count):
            if kept <= target:
                break
            kept -= by_count[count]
            limit = count
        self._df = {t: n for t, n in self._df.items() if n > limit}
        logger.debug(
            "document frequencies pruned to %d terms (df <= %d dropped)", len(self._df), limit
        )

    def merge(self, other: DocumentFrequencies) -> None:
        """Add the counts of another instance (e.g. learned by another process)."""
        items, documents = other._snapshot()
        with self._lock:
            for term, n in items.items():
                self._df[term] = self._df.get(term, 0) + n
            self._documents += documents
            if self._max_terms is not None and len(self._df) > self._max_terms:
                self._prune()

    def adopt(
        self,
        documents: int,
        counts: Mapping[str, int],
        local: Callable[[], tuple[int, Mapping[str, int]]] | None = None,
    ) -> None:
        """Replace the counts with ``documents`` and ``counts`` (a crawl fleet's totals) plus
        what ``local()`` returns, called under the lock: this process's pages not pushed yet."""
        df = dict(counts)
        with self._lock:
            if local is not None:
                local_documents, local_counts = local()
                documents += local_documents
                for term, n in local_counts.items():
                    df[term] = df.get(term, 0) + n
            self._df = df
            self._documents = documents
            if self._max_terms is not None and len(df) > self._max_terms:
                self._prune()

    def _snapshot(self) -> tuple[dict[str, int], int]:
        with self._lock:
            return dict(self._df), self._documents

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy, with a format version."""
        df, documents = self._snapshot()
        return {"format": DF_FORMAT_VERSION, "documents": documents, "df": df}

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, max_terms: int | None = None
    ) -> DocumentFrequencies:
        """Rebuild from :meth:`to_dict` output; raises ``ValueError`` on another layout."""
        if not isinstance(data, Mapping) or data.get("format") != DF_FORMAT_VERSION:
            raise ValueError(f"not document frequencies of format {DF_FORMAT_VERSION}")
        documents = data.get("documents")
        table = data.get("df")
        if not isinstance(documents, int) or documents < 0 or not isinstance(table, Mapping):
            raise ValueError("document frequencies need 'documents' (int) and 'df' (object)")
        out = cls(max_terms=max_terms)
        for term, n in table.items():
            if not isinstance(term, str) or not isinstance(n, int) or n < 0:
                raise ValueError(f"bad document frequency entry: {term!r}: {n!r}")
            if n:
                out._df[term] = n
        out._documents = documents
        return out

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, *, max_terms: int | None = None) -> DocumentFrequencies:
        """Read a file written by :meth:`save`."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read document frequencies from {path}: {exc}") from exc
        return cls.from_dict(data, max_terms=max_terms)


def idf_function(df: DocumentFrequencies | None) -> Any:
    """``term -> idf``: the frequencies' idf, or a constant 1 without frequencies."""
    if df is None:
        return lambda term: 1.0
    return df.idf


def query_weights(query: str, df: DocumentFrequencies | None) -> dict[str, float]:
    """TF-IDF weights of a query's terms."""
    idf = idf_function(df)
    return {term: n * idf(term) for term, n in term_counts(query).items()}


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Cosine of two sparse weight vectors (0.0 when either is empty), eq. (1) of seed 001."""
    if len(a) > len(b):
        a, b = b, a
    dot = sum(w * b.get(t, 0.0) for t, w in a.items())
    if dot <= 0.0:
        return 0.0
    na = math.sqrt(sum(w * w for w in a.values()))
    nb = math.sqrt(sum(w * w for w in b.values()))
    return min(1.0, dot / (na * nb))
