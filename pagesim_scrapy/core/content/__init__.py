"""Content relevance (seed 001): content structure tree, main content, TF-IDF query relevance.

Framework-free. Typical use::

    df = DocumentFrequencies()                    # learned over the pages of a crawl
    result = analyze_content(html_or_root, query="electric cars", df=df, learn=True)
    result.main_text, result.score

In a crawl, :class:`ContentScorer` (or :func:`score_page`) is the per-response entry point: it
takes the response's already-parsed lxml root and returns ``(relevance, main_text)``; its
document frequencies may be shared by concurrent callers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pagesim_scrapy.core.content.main import (
    DEFAULT_MAIN_OPTIONS,
    MainContent,
    MainContentOptions,
    extract_main,
)
from pagesim_scrapy.core.content.relevance import (
    BlockRelevance,
    block_term_counts,
    page_terms,
    score_blocks,
)
from pagesim_scrapy.core.content.tfidf import (
    DocumentFrequencies,
    cosine,
    query_weights,
    tokenize,
)
from pagesim_scrapy.core.content.tree import (
    BLOCK_TAGS,
    Block,
    ContentInputError,
    ContentNode,
    ContentTree,
    build_tree,
    parse_html,
)

logger = logging.getLogger(__name__)

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_MAX_TERMS",
    "SCOPES",
    "Block",
    "BlockRelevance",
    "ContentInputError",
    "ContentNode",
    "ContentResult",
    "ContentScorer",
    "ContentTree",
    "DocumentFrequencies",
    "MainContent",
    "MainContentOptions",
    "analyze_content",
    "build_tree",
    "cosine",
    "extract_main",
    "parse_html",
    "query_weights",
    "relevance",
    "scope_exclusions",
    "score_blocks",
    "score_page",
    "tokenize",
]

#: Vocabulary bound of the document frequencies a :class:`ContentScorer` creates (~50 MB).
DEFAULT_MAX_TERMS = 500_000

#: Which blocks may carry a page's relevance (see :mod:`.relevance`).
SCOPES: tuple[str, ...] = ("main", "page")


@dataclass(frozen=True, slots=True)
class ContentResult:
    """What :func:`analyze_content` finds in one page.

    ``score`` is the page's relevance to the query in [0, 1] (None without a query);
    ``best_block`` the block that carries it; ``block_scores`` every block's score after sibling
    elimination. Block indices refer to ``tree.blocks``.
    """

    main_text: str
    main_block: int
    score: float | None
    best_block: int | None
    block_scores: list[float] | None
    tree: ContentTree

    def block_text(self, block: int) -> str:
        """All text of a block's subtree, one paragraph per line."""
        return self.tree.subtree_text(block)


def scope_exclusions(tree: ContentTree, main: MainContent, scope: str) -> list[bool] | None:
    """Blocks that may not score: everything outside the main content for scope "main"."""
    if scope == "page":
        return None
    if scope != "main":
        raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
    excluded = [not kept for kept in main.kept]
    for node in tree.texts:
        if node.tag == "h1":
            excluded[node.block] = False
    return excluded


def analyze_content(
    source: Any,
    *,
    query: str | None = None,
    df: DocumentFrequencies | None = None,
    learn: bool = False,
    scope: str = "main",
    options: MainContentOptions = DEFAULT_MAIN_OPTIONS,
) -> ContentResult:
    """Build the CST of a page, find its main text, and score it against ``query``.

    ``source``: an lxml root (``lxml.etree`` or ``lxml.html``, e.g. a Scrapy response's
    ``response.selector.root``), an ElementTree, a parsel Selector, or HTML bytes/str.
    ``df``: document frequencies for the idf (None: every idf is 1). ``learn``: add this page
    to ``df`` first. Raises :class:`ContentInputError` for input that is not HTML.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
    tree = build_tree(source)
    main = extract_main(tree, options)
    counts = None
    if learn and df is not None:
        counts = block_term_counts(tree)
        df.add_page(page_terms(counts))
    if query is None:
        return ContentResult(main.text, main.block, None, None, None, tree)
    rel = score_blocks(tree, query, df, counts, scope_exclusions(tree, main, scope))
    return ContentResult(main.text, main.block, rel.score, rel.best_block, rel.scores, tree)


def relevance(
    source: Any, query: str, df: DocumentFrequencies | None = None, *, scope: str = "main"
) -> float:
    """A page's relevance to ``query`` in [0, 1] (the best block score, see :mod:`.relevance`)."""
    score = analyze_content(source, query=query, df=df, scope=scope).score
    return 0.0 if score is None else score


def score_page(
    root: Any,
    query: str | None,
    df: DocumentFrequencies | None = None,
    *,
    learn: bool = False,
    scope: str = "main",
) -> tuple[float | None, str]:
    """``(relevance, main_text)`` of one page; never raises on bad page content.

    Relevance is None without a query. A page that is not HTML gives ``(0.0, "")`` (``None``
    without a query) and a WARNING log line.
    """
    try:
        result = analyze_content(root, query=query, df=df, learn=learn, scope=scope)
    except ContentInputError as exc:
        logger.warning("content: cannot analyse page: %s", exc)
        return (None if query is None else 0.0), ""
    return result.score, result.main_text


class ContentScorer:
    """Per-response relevance and main text for a crawl, learning document frequencies as it goes.

    One instance serves a whole crawl: :meth:`score` may be called from several threads; the
    shared :class:`DocumentFrequencies` serialises its own updates. With ``learn`` (default)
    every scored page is added to the frequencies before it is scored, so idf reflects the
    pages crawled so far (early pages are scored against little evidence: their idf is flat).
    Without ``df`` it creates frequencies bounded to :data:`DEFAULT_MAX_TERMS` terms.
    """

    def __init__(
        self,
        query: str | None,
        df: DocumentFrequencies | None = None,
        *,
        learn: bool = True,
        scope: str = "main",
        options: MainContentOptions = DEFAULT_MAIN_OPTIONS,
    ) -> None:
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
        if query is not None and not tokenize(query):
            raise ValueError(f"query {query!r} has no searchable terms")
        self.query = query
        self.df = df if df is not None else DocumentFrequencies(max_terms=DEFAULT_MAX_TERMS)
        self.learn = learn
        self.scope = scope
        self.options = options

    def analyze(self, root: Any) -> ContentResult:
        """Full result for one page; raises :class:`ContentInputError` for non-HTML input."""
        return analyze_content(
            root,
            query=self.query,
            df=self.df,
            learn=self.learn,
            scope=self.scope,
            options=self.options,
        )

    def score(self, root: Any) -> tuple[float | None, str]:
        """``(relevance, main_text)``; bad pages give ``(0.0, "")`` and a WARNING log line."""
        try:
            result = self.analyze(root)
        except ContentInputError as exc:
            logger.warning("content: cannot analyse page: %s", exc)
            return (None if self.query is None else 0.0), ""
        return result.score, result.main_text
