"""What the crawl learns per label: each label's wrapper, the pages kept to learn it in
canonical order, and the memory bounds (labels, template nodes).

A page of a label that is not settled yet is parsed and kept, not learned (:meth:`Learner.take`):
its wrapper would be learned afresh in canonical order when the label settles anyway, so each
page is learned once, then. A wrapper is learned earlier, exactly as it would have been page by
page, only when something needs it before (an item released by a cap, no holding) or when the
template node budget could be reached by the pages waiting.

A label that meets more than ``PAGESIM_INDUCTION_MAX_PAGES`` pages keeps a bottom-k sample of
them (:meth:`Learner._sample`: the pages of smallest digest), so the pages its wrapper learns
do not depend on the order they came in; an item that needs a full label's wrapper before the
crawl is dry fixes it from the sample as it stands.

The learning and extracting steps run in the worker thread; each label's state is guarded by
its own lock. None of them raises: a page that fails becomes an outcome and a reason.
"""

from __future__ import annotations

import threading
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.core.induce import Extraction, Wrapper, parse_html
from pagesim_scrapy.core.induce.dom import Element, forget_page, kept_page_memo
from pagesim_scrapy.core.induce.template import document_fingerprint
from pagesim_scrapy.core.induce.wrapper import page_order_key
from pagesim_scrapy.core.statefile import describe_error
from pagesim_scrapy.pipelines.induction.holding import body_size
from pagesim_scrapy.pipelines.induction.naming import PageRead, Signatures, learn_namings
from pagesim_scrapy.pipelines.induction.sources import (
    Source,
    kept_source,
    parse_source,
    source_page,
)
from pagesim_scrapy.pipelines.induction.stores import load_wrapper, logger
from pagesim_scrapy.pipelines.induction.worker import trim_memory

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.pipelines.induction.stores import WrapperStore
    from pagesim_scrapy.settings import InductionConfig

#: The prefix of the stats this module counts (written out here: the docs scan each file).
STATS_PREFIX = "pagesim/induction"

#: A page as its item holds it: its HTML and URL.
PageKey = tuple[str | bytes, str | None]

#: Template nodes a page may add per element of its tree, as an upper bound: each element
#: and each text piece of a page becomes at most one node, and few pieces of text stand
#: between elements; the bound only decides when waiting pages are learned early, so that
#: ``PAGESIM_INDUCTION_MAX_NODES`` stops learning at the same page as learning each page at
#: once does.
NODES_PER_ELEMENT = 2


class LabelState:
    """Everything learned about one label in this crawl."""

    def __init__(self, label: str, wrapper: Wrapper, stored_pages: int) -> None:
        self.label = label
        self.wrapper = wrapper
        self.stored_pages = stored_pages
        self.learned = 0  # pages learned in this crawl
        self.lock = threading.Lock()  # learning happens in worker threads
        #: set when learning raised inside the wrapper: the tree may hold part of that page, so
        #: the label learns no more and its wrapper is not saved over the stored one
        self.failed: str | None = None
        #: the pages learned in this crawl, in arrival order, as (canonical order key,
        #: compressed HTML, whether it was text, URL): kept to learn them again in canonical
        #: order (see the package's docstring); None for a wrapper that continues a stored one
        self.sources: list[Source] | None = [] if stored_pages == 0 else None
        #: how many of ``sources`` the wrapper was last learned from in canonical order
        self.relearned = 0
        #: template nodes of the wrapper (counted after each page learned)
        self.nodes = count_nodes(wrapper)
        #: the wrapper is what learning ``sources`` afresh in canonical order gives: every
        #: page came after the one before in that order and the wrapper was not compiled
        #: between them (relearning it would give the same wrapper, so it is skipped)
        self.in_order = True
        #: the canonical order key of the last page learned (while ``in_order``)
        self.last_key: tuple[int, bytes] | None = None
        #: ``wrapper.compilations`` when the last page was learned
        self.compilations = 0
        #: how many of ``sources`` the wrapper learned; the others wait for the label to settle
        self.applied = 0
        #: the fingerprints of the waiting pages (a duplicate is told before it is learned)
        self.waiting_docs: set[int] = set()
        #: duplicates met while pages wait, by how many pages were kept when they came
        self.waiting_duplicates: Counter[int] = Counter()
        #: template nodes the waiting pages may add at most (``NODES_PER_ELEMENT``)
        self.waiting_nodes = 0
        #: the parsed trees of waiting pages, by their index in ``sources`` (within a budget),
        #: with their HTML's size and the page (its HTML and URL, as the item holds them)
        self.waiting_trees: dict[int, tuple[Element, int, PageKey]] = {}
        #: the trees of pages learned while their items waited, handed to those items so
        #: that they are not parsed again, with what learning read of them
        #: (:func:`.dom.kept_page_memo`) and their HTML's size, by page (within the
        #: learner's tree budget; for the pages of the last time the label settled only)
        self.read_pages: dict[PageKey, HandedTree] = {}
        #: the trees of pages the label did not keep (full, duplicates), for their held
        #: items, the same way (each item takes its own)
        self.held_trees: dict[PageKey, HandedTree] = {}
        #: the node bound of each waiting page, by its digest (a page leaving the sample
        #: takes its bound with it)
        self.waiting_bounds: dict[bytes, int] = {}
        #: what the body naming's learning read of a kept page (its core record and tree),
        #: with its HTML's size, by page: its item's record takes it instead of reading the
        #: page again (within the learner's tree budget; from the last learning only)
        self.record_reads: dict[PageKey, tuple[PageRead, int]] = {}

    @property
    def waiting(self) -> int:
        """Pages kept but not learned yet."""
        return len(self.sources) - self.applied if self.sources is not None else 0

    @property
    def pages(self) -> int:
        """Pages of the wrapper, the waiting ones included (they will be learned): the pages
        kept, while they are kept (a page that left the sample is no page of the wrapper)."""
        if self.sources is not None:
            return len(self.sources)
        return self.wrapper.pages


def count_nodes(wrapper: Wrapper) -> int:
    """The template nodes of a wrapper's tree."""
    root = wrapper.tree.root
    if root is None:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.children)
    return count


#: A waiting page's tree handed to its item: the tree, what learning read of it, its HTML's size.
HandedTree = tuple[Element, dict[str, Any], int]

#: What :meth:`Learner.learn` returns: the outcome, why for a failure, the parsed page.
LearnResult = tuple[str, str | None, Element | None]


class Learner:
    """The labels of one crawl and their wrappers, within the crawl's memory bounds."""

    def __init__(
        self,
        config: InductionConfig,
        stats: StatsCollector,
        store: WrapperStore | None,
        tree_budget: int = 0,
    ) -> None:
        self.config = config
        self.stats = stats
        self.store = store
        #: the bytes of pages (their HTML) whose parsed trees are kept: while they wait
        #: (``tree_bytes``), as record reads for their items (``read_bytes``) and as trees
        #: handed to their items once learned (``handed_bytes``), all within the one budget
        self.tree_budget = tree_budget
        self.tree_bytes = 0
        self.read_bytes = 0
        self.handed_bytes = 0
        self.labels: dict[str, LabelState] = {}
        #: template nodes over all wrappers (``PAGESIM_INDUCTION_MAX_NODES``)
        self.nodes = 0
        self._label_limit_logged = False
        #: ``PAGESIM_INDUCTION_MAX_NODES`` was reached: no wrapper learns more in this crawl
        self.node_limited = False
        #: which element holds a standard value on other sites (loaded when the crawl opens)
        self.signatures = Signatures()

    # --- labels ----------------------------------------------------------------------------

    def label(self, label: str) -> LabelState | None:
        """The label's state, created (from the store, or empty) at its first page; None
        when ``PAGESIM_INDUCTION_MAX_LABELS`` labels exist already (logged once)."""
        state = self.labels.get(label)
        if state is not None:
            return state
        if 0 < self.config.max_labels <= len(self.labels):
            self._log_label_limit(label)
            return None
        # whatever happens, the label's state is created below: the load is never retried
        wrapper = load_wrapper(self.store, label, self.stats) if self.store is not None else None
        if wrapper is not None:
            self.stats.inc_value(f"{STATS_PREFIX}/wrappers_loaded")
            logger.info("reusing the stored wrapper of %r (%d pages)", label, wrapper.pages)
            wrapper.label = wrapper.label or label
        else:
            wrapper = Wrapper(label=label)
        wrapper.lam = self.config.lam
        wrapper.min_fit = self.config.min_fit
        wrapper.structured = self.config.jsonld
        state = self.labels[label] = LabelState(label, wrapper, wrapper.pages)
        self.nodes += state.nodes  # a stored wrapper's nodes count too
        return state

    def takes(self, state: LabelState) -> bool:
        """Whether a page of the label may still be learned or enter its sample: a full label
        whose pages are kept keeps the bottom-k sample of every page it meets."""
        if state.failed is not None:
            return False
        return state.sources is not None or state.pages < self.config.max_pages

    def sampling(self, state: LabelState) -> bool:
        """Whether the label is full and keeps its pages: a new page replaces one of them."""
        return state.sources is not None and len(state.sources) >= self.config.max_pages

    def settled(self, state: LabelState) -> bool:
        """Whether the label's wrapper learns no more pages in this crawl (it is full, it
        continues a stored wrapper and is ready, learning failed, or the node budget is
        spent): its items can then be extracted at once with a wrapper that will not change.
        Until then its items are held, so that every item is extracted with the wrapper of
        the same pages whatever order they came in."""
        if state.failed is not None or self.node_limited:
            return True
        return state.sources is None and state.pages >= self.config.min_pages

    def _log_label_limit(self, label: str) -> None:
        if self._label_limit_logged:
            return
        self._label_limit_logged = True
        logger.warning(
            "pagesim: %d labels have wrappers (PAGESIM_INDUCTION_MAX_LABELS): page items "
            "of further labels, %r first, get no record in this crawl",
            len(self.labels),
            label,
        )

    # --- learning (worker thread) ------------------------------------------------------------

    def learn(self, state: LabelState, html: str, url: str | None) -> LearnResult:
        """Worker thread: parse and learn one page. Returns the outcome, for a failure why,
        and the parsed page (None after an error) so that extraction need not parse it
        again. Outcomes: ``"learned"``, ``"duplicate"`` (a page learned already), ``"full"``
        (the wrapper reached ``PAGESIM_INDUCTION_MAX_PAGES`` meanwhile), ``"node_limit"``
        (the wrappers reached ``PAGESIM_INDUCTION_MAX_NODES``), ``"error"`` (not
        parseable, or any exception while parsing: the wrapper is untouched) or
        ``"failed"`` (an exception inside the wrapper's learning step). Never raises.

        The wrapper is compiled here only once the label is settled (:meth:`settled`: its
        items are extracted at once): before that, the label is learned again in canonical
        order when its held items go anyway, and they compile it once for all of them,
        instead of once per page learned."""
        root, reason = self._parse(state, html, url)
        if root is None:
            return "error", reason, None
        with state.lock:
            self._replay(state)  # pages kept by take() come first
            return self._learn_parsed(state, root, html, url)

    def take(self, state: LabelState, html: str, url: str | None) -> LearnResult:
        """Worker thread: :meth:`learn`'s outcomes for one page, but a page of a label that
        is not settled is only parsed and kept (outcome ``"learned"``): the label's wrapper
        is learned when it settles (:meth:`relearn_locked`) or when an item needs it sooner
        (:meth:`catch_up`), each page once, and it is then the wrapper :meth:`learn` gives.
        Pages are learned at once while the template node budget is near."""
        root, reason = self._parse(state, html, url)
        if root is None:
            return "error", reason, None
        with state.lock:
            if state.failed is not None or (
                state.sources is None and state.pages >= self.config.max_pages
            ):
                return "full", None, root
            bound = NODES_PER_ELEMENT * sum(1 for _ in root.iter())
            if self.sampling(state) and not self.node_limited:
                return self._sample(state, root, html, url, bound)
            if not self._room_for(bound):
                # PAGESIM_INDUCTION_MAX_NODES may be reached: learn as the pages came, so
                # that learning stops at the same page
                self._catch_up_all(state)
                return self._learn_parsed(state, root, html, url)
            if state.sources is None:  # a stored wrapper continued, or a full one
                return self._learn_parsed(state, root, html, url)
            return self._keep_waiting(state, root, html, url, bound)

    def _parse(self, state: LabelState, html: str, url: str | None) -> tuple[Element | None, str]:
        """The page's tree, or None and why it cannot be parsed (logged)."""
        try:
            return parse_html(html, structured=state.wrapper.structured, base_url=url), ""
        except Exception as exc:  # PageParseError, or lxml/json/url errors on hostile pages
            reason = f"cannot parse the page: {describe_error(exc)}"
            logger.warning("pagesim: page item %s of %r not learned: %s", url, state.label, reason)
            return None, reason

    def _learn_parsed(
        self, state: LabelState, root: Element, html: str, url: str | None
    ) -> LearnResult:
        """Worker thread, under ``state.lock``: learn one parsed page now."""
        if state.failed is not None or state.pages >= self.config.max_pages:
            return "full", None, root
        if self._over_node_budget():
            return "node_limit", None, root
        try:
            if not state.wrapper.add_page(root):
                return "duplicate", None, root
            self._after_page(state, root, html, url)
        except Exception as exc:
            # a bug in learning, triggered by this page: the tree may hold part of it
            self._fail(state, url, exc)
            return "failed", state.failed, None
        return "learned", None, root

    def _fail(self, state: LabelState, url: str | None, exc: Exception) -> None:
        state.failed = f"learning failed: {describe_error(exc)}"
        logger.error(
            "pagesim: page item %s of %r: %s; the label learns no more pages in this "
            "crawl and its wrapper will not be saved",
            url,
            state.label,
            state.failed,
        )

    def _after_page(self, state: LabelState, root: Element, html: str, url: str | None) -> None:
        """Worker thread, under ``state.lock``, after a page was added to the wrapper: keep
        it for relearning, then :meth:`_after_learned`."""
        if state.sources is not None:
            self._keep_source(state, root, html, url)
            state.applied = len(state.sources)
        self._after_learned(state)

    def _after_learned(self, state: LabelState) -> None:
        """Worker thread, under ``state.lock``, after a page was added to the wrapper (and
        kept): count it, relearn at readiness or when full, compile when due."""
        state.learned += 1
        self._recount(state)
        if state.sources is not None:
            if state.learned == self.config.min_pages:
                self._relearn(state)
            if state.wrapper.pages >= self.config.max_pages:
                # the label learns no more pages: its close-time relearning can be
                # done now, and its pages need not be kept until close
                self._relearn(state)
                self._release_sources(state)
        if state.sources is None and state.wrapper.pages >= self.config.min_pages:
            # compiling names fields for good: only a wrapper that will not be learned
            # again in canonical order is compiled after every page (its items are
            # extracted at once); the others are compiled when their held items go
            state.wrapper.compiled()

    def _release_sources(self, state: LabelState) -> None:
        if state.sources is not None:
            self._learn_namings(state)  # the last time the pages are at hand
            self.stats.inc_value(f"{STATS_PREFIX}/sources_released/full")
            state.sources = None

    def _learn_namings(self, state: LabelState) -> None:
        """Under ``state.lock``: the label's body namings learned from the pages its wrapper
        learned, in the same canonical order (:mod:`.naming`); what they read of each page
        is kept for its item's record."""
        if state.sources and state.failed is None:
            self._drop_reads(state)
            keep = partial(self._keep_read, state)
            learn_namings(state, state.sources[: state.applied], keep, self.signatures)

    def _keep_read(self, state: LabelState, page: PageKey, read: PageRead) -> None:
        """Keep what learning read of ``page`` for its item, within the tree budget. A
        read saves its item the whole record reading, a held tree only a parse: held trees
        leave the budget to make room for a read."""
        size = body_size(page[0])
        if page in state.record_reads:
            return
        if not self._trees_fit(size):
            self._drop_held(state, size)
        if not self._trees_fit(size):
            return
        state.record_reads[page] = (read, size)
        self.read_bytes += size

    def _room_to_hand(self, state: LabelState, reparsed: set[PageKey], page: PageKey) -> bool:
        """Whether the tree of ``page``, parsed again to settle the label (it did not wait
        parsed), goes to its item with what learning read of it (its rows and sections):
        counted now, held trees making room (they spare a parse only)."""
        size = body_size(page[0])
        if not self._trees_fit(size):
            self._drop_held(state, size)
        if not self._trees_fit(size):
            return False
        self.handed_bytes += size
        reparsed.add(page)
        return True

    def _drop_held(self, state: LabelState, size: int) -> None:
        """Held trees of ``state`` let go, the last held first, until ``size`` bytes fit
        (their items parse their pages again)."""
        while state.held_trees and not self._trees_fit(size):
            page = next(reversed(state.held_trees))
            self.handed_bytes -= state.held_trees.pop(page)[2]

    def _trees_fit(self, size: int) -> bool:
        """Whether a parsed page of ``size`` bytes of HTML may be kept (the budget counts
        the waiting pages' trees, the kept record reads and the handed trees together)."""
        kept = self.tree_bytes + self.read_bytes + self.handed_bytes
        return kept + size <= self.tree_budget

    def take_read(self, state: LabelState, page: PageKey) -> PageRead | None:
        """Worker thread: what learning read of ``page`` (None if nothing), handed over
        once: the item's record is composed from it instead of reading the page again."""
        kept = state.record_reads.pop(page, None)
        if kept is None:
            return None
        self.read_bytes -= kept[1]
        return kept[0]

    def hold_tree(self, state: LabelState, page: PageKey, root: Element) -> None:
        """Worker thread: keep the tree of a page the label does not keep for its held item
        (within the tree budget), which takes it with :meth:`take_tree`."""
        size = body_size(page[0])
        if page in state.held_trees or not self._trees_fit(size):
            return
        state.held_trees[page] = (root, {}, size)
        self.handed_bytes += size

    def take_tree(self, state: LabelState, page: PageKey) -> tuple[Element, dict[str, Any]] | None:
        """Worker thread: the tree of ``page`` parsed while its item waited, with what
        learning read of it (None if not kept), handed over once: the item is not parsed
        again."""
        handed = state.read_pages.pop(page, None) or state.held_trees.pop(page, None)
        if handed is None:
            return None
        self.handed_bytes -= handed[2]
        return handed[0], handed[1]

    def _drop_handed(self, state: LabelState) -> None:
        """The trees of the label's last settling whose items did not take them."""
        self.handed_bytes -= sum(size for _, _, size in state.read_pages.values())
        state.read_pages.clear()

    def _drop_reads(self, state: LabelState) -> None:
        """The reads of the label's last learning whose items did not take them."""
        self.read_bytes -= sum(size for _, size in state.record_reads.values())
        state.record_reads.clear()

    def _keep_source(self, state: LabelState, root: Element, html: str, url: str | None) -> None:
        """Keep the page learned, compressed, to learn it again in canonical order."""
        assert state.sources is not None
        key = page_order_key(root)
        self._note_order(state, key)
        state.sources.append(kept_source(key, html, url))

    # --- pages kept, not learned yet (worker thread, under the label's lock) -----------------

    def _room_for(self, bound: int) -> bool:
        """Whether one more page may wait: the wrappers stay under the node budget whatever
        the waiting pages add (so every check learning them at once makes passes too)."""
        limit = self.config.max_nodes
        if not limit:
            return True
        if self.node_limited:
            return False
        waiting = sum(state.waiting_nodes for state in self.labels.values())
        return self.nodes + waiting + bound < limit

    def _keep_waiting(
        self, state: LabelState, root: Element, html: str, url: str | None, bound: int
    ) -> LearnResult:
        """Keep the page to learn it when the label settles."""
        assert state.sources is not None
        fingerprint = document_fingerprint(root)
        if fingerprint in state.wrapper.tree.docs or fingerprint in state.waiting_docs:
            state.waiting_duplicates[len(state.sources)] += 1
            return "duplicate", None, root
        self._add_waiting(state, root, html, url, bound, (fingerprint, page_order_key(root)))
        return "learned", None, root

    def _add_waiting(
        self,
        state: LabelState,
        root: Element,
        html: str,
        url: str | None,
        bound: int,
        ids: tuple[int, tuple[int, bytes]],
    ) -> None:
        """Keep the page, with its fingerprint and canonical order key (``ids``), waiting."""
        assert state.sources is not None
        fingerprint, key = ids
        state.waiting_docs.add(fingerprint)
        state.waiting_nodes += bound
        state.waiting_bounds[key[1]] = bound
        size = body_size(html)
        if self._trees_fit(size):
            state.waiting_trees[len(state.sources)] = (root, size, (html, url))
            self.tree_bytes += size
        state.sources.append(kept_source(key, html, url))

    # --- the bottom-k sample of a full label (worker thread, under the label's lock) ---------

    def _sample(
        self, state: LabelState, root: Element, html: str, url: str | None, bound: int
    ) -> LearnResult:
        """A full label keeps the ``PAGESIM_INDUCTION_MAX_PAGES`` pages of smallest digest
        among all the pages it meets (a bottom-k sample): once every page has come, that is
        the same set whatever their order. A page below the largest kept digest replaces
        that page (outcome ``"sampled"``); the others are not kept (``"full"``)."""
        assert state.sources is not None
        fingerprint = document_fingerprint(root)
        if fingerprint in state.wrapper.tree.docs or fingerprint in state.waiting_docs:
            return "duplicate", None, root
        worst = sample_worst(state.sources)
        key = page_order_key(root)
        if key[1] >= state.sources[worst][0][1]:
            return "full", None, root
        self._evict(state, worst)
        self._add_waiting(state, root, html, url, bound, (fingerprint, key))
        return "sampled", None, root

    def _evict(self, state: LabelState, index: int) -> None:
        """The kept page at ``index`` leaves the sample. A page the wrapper learned already
        makes the wrapper stale: it is learned afresh from the sample when the label
        settles (``in_order`` off)."""
        assert state.sources is not None
        digest = state.sources.pop(index)[0][1]
        if index < state.applied:
            state.applied -= 1
            state.in_order = False
        state.waiting_nodes -= state.waiting_bounds.pop(digest, 0)
        kept = state.waiting_trees.pop(index, None)
        if kept is not None:
            self.tree_bytes -= kept[1]
            self._hand_evicted(state, kept)
        state.waiting_trees = {k - (k > index): tree for k, tree in state.waiting_trees.items()}
        state.waiting_duplicates = Counter(
            {k - (k > index): n for k, n in state.waiting_duplicates.items()}
        )

    def _hand_evicted(self, state: LabelState, kept: tuple[Element, int, PageKey]) -> None:
        """The tree of a waiting page that left the sample stays for its item, as a page
        the full sample never took does (:meth:`hold_tree`): the item is not parsed again.
        A waiting page's item is not extracted yet (an extraction first learns every
        waiting page), and it is held while the label is not settled."""
        if self.config.buffer_size > 0:
            root, _, page = kept
            self.hold_tree(state, page, root)

    def catch_up(self, state: LabelState) -> None:
        """Worker thread: learn the label's waiting pages now (an item needs the wrapper):
        as they came, which gives the wrapper learning each page at once gives; a full
        label's sample as it stands, in canonical order, and the label then learns no more
        in this crawl (its later items use that one wrapper)."""
        with state.lock:
            if self.sampling(state):
                self._settle(state)
            else:
                self._replay(state)

    def _catch_up_all(self, current: LabelState) -> None:
        """Every label's waiting pages learned as they came (``current``'s lock is held)."""
        for state in list(self.labels.values()):
            if state is current:
                self._replay(state)
            elif state.waiting:
                with state.lock:
                    self._replay(state)

    def _replay(self, state: LabelState) -> None:
        """Learn the waiting pages one by one in the order they came, with every step
        :meth:`learn` takes for each: the wrapper is then the one it gives."""
        sources = state.sources
        while sources is not None and state.applied < len(sources) and state.failed is None:
            index = state.applied
            key, _, _, url = sources[index]
            self._add_duplicates(state, index)
            try:
                state.wrapper.add_page(self._waiting_tree(state, index))
                state.applied += 1
                self._note_order(state, key)
                self._after_learned(state)
            except Exception as exc:  # a bug in learning: as learn() meets it
                self._fail(state, url, exc)
            sources = state.sources
        if state.failed is None:
            self._add_duplicates(state, len(sources) if sources is not None else state.applied)
        self._forget_waiting(state)

    @staticmethod
    def _add_duplicates(state: LabelState, index: int) -> None:
        """The duplicates that came after ``index`` pages, counted by the wrapper."""
        count = state.waiting_duplicates.pop(index, 0)
        state.wrapper.tree.duplicates += count

    def _waiting_tree(self, state: LabelState, index: int) -> Element:
        kept = state.waiting_trees.pop(index, None)
        if kept is not None:
            self.tree_bytes -= kept[1]
            return kept[0]
        assert state.sources is not None
        return parse_source(state.sources[index], state.wrapper.structured)

    def _forget_waiting(self, state: LabelState) -> None:
        """No page waits any more."""
        for _, size, _ in state.waiting_trees.values():
            self.tree_bytes -= size
        state.waiting_trees.clear()
        state.waiting_bounds.clear()
        state.waiting_docs.clear()
        state.waiting_duplicates.clear()
        state.waiting_nodes = 0

    def _settle(self, state: LabelState) -> None:
        """The label's pages are all here (for now): learn the waiting ones. As the pages
        came in canonical order, one by one; otherwise the wrapper is learned afresh from all
        of them in canonical order, which is what learning them one by one and then again
        in canonical order gives."""
        if not state.waiting or state.failed is not None:
            return
        if self._waiting_in_order(state):
            self._replay(state)
            return
        assert state.sources is not None
        waiting = state.waiting
        self._drop_handed(state)
        handed: dict[PageKey, HandedTree] = {}
        reparsed: set[PageKey] = set()  # counted in the budget as they are handed
        room = partial(self._room_to_hand, state, reparsed)
        try:
            wrapper = _learn_afresh(state.wrapper, state.sources, state.waiting_trees, handed, room)
        except Exception:  # a bug: learn them as they came, which meets it as learn() does
            self.handed_bytes -= sum(handed[page][2] for page in reparsed if page in handed)
            self._replay(state)
            return
        # the waiting trees stay for their items: they move from one count to the other
        state.read_pages.update(handed)
        self.handed_bytes += sum(
            size for page, (_, _, size) in handed.items() if page not in reparsed
        )
        state.wrapper = wrapper
        state.learned += waiting
        state.applied = len(state.sources)
        self._forget_waiting(state)
        self._relearned(state)
        if state.wrapper.pages >= self.config.max_pages:
            self._release_sources(state)

    @staticmethod
    def _waiting_in_order(state: LabelState) -> bool:
        """Whether learning the waiting pages one by one keeps ``in_order`` (no relearning
        in canonical order would change the wrapper): see :meth:`_note_order`."""
        assert state.sources is not None
        in_order = state.in_order and state.wrapper.compilations == state.compilations
        last = state.last_key
        for key, _, _, _ in state.sources[state.applied :]:
            in_order = in_order and (last is None or key > last)
            last = key
        return in_order

    def _recount(self, state: LabelState) -> None:
        """Worker thread, under ``state.lock``: the label's wrapper changed."""
        nodes = count_nodes(state.wrapper)
        self.nodes += nodes - state.nodes
        state.nodes = nodes
        self.stats.max_value(f"{STATS_PREFIX}/nodes_max", self.nodes)

    def _over_node_budget(self) -> bool:
        """``PAGESIM_INDUCTION_MAX_NODES`` reached: no wrapper learns more (WARNING once)."""
        limit = self.config.max_nodes
        if not limit or self.nodes < limit:
            return False
        if not self.node_limited:
            self.node_limited = True
            logger.warning(
                "pagesim: the wrappers hold %d template nodes (PAGESIM_INDUCTION_MAX_NODES %d): "
                "they learn no more pages in this crawl; page items are still extracted",
                self.nodes,
                limit,
            )
        return True

    @staticmethod
    def _note_order(state: LabelState, key: tuple[int, bytes]) -> None:
        """Worker thread, under ``state.lock``, just after a page of canonical order ``key``
        was learned: is the wrapper still the one canonical-order learning gives?"""
        if state.in_order:
            state.in_order = state.wrapper.compilations == state.compilations and (
                state.last_key is None or key > state.last_key
            )
            state.last_key = key
        state.compilations = state.wrapper.compilations

    # --- relearning in canonical order (worker thread) ---------------------------------------

    def relearn_locked(self, state: LabelState) -> None:
        """Worker thread: the label settled (for now): its wrapper and its body namings
        learned from all its pages in canonical order."""
        with state.lock:
            if state.failed is None:
                self._settle(state)
            if state.failed is None:
                self._relearn(state)
            self._learn_namings(state)

    def _relearn(self, state: LabelState) -> None:
        """Worker thread, under ``state.lock``: learn the label's wrapper afresh from the pages
        it learned in this crawl, in canonical order (nothing to do when it learned none since
        the last time). Skipped when the pages came in canonical order with no compile
        between them (``in_order``: one page, or pages that arrived sorted): the wrapper is then
        the one relearning gives. A compile between pages (after readiness, or for an item
        released early) names fields for good, so such a wrapper is learned afresh. The kept
        pages are parsed one at a time, in their order. A failure keeps the wrapper as
        learned, in arrival order, with a WARNING."""
        sources = state.sources[: state.applied] if state.sources is not None else None
        if not sources or state.relearned == len(sources):
            return
        if state.in_order:  # learned in canonical order already (one page, or sorted)
            state.relearned = len(sources)
            if len(sources) > 1:
                self.stats.inc_value(f"{STATS_PREFIX}/relearn_skipped")
            return
        try:
            wrapper = _learn_afresh(state.wrapper, sources, {})
        except Exception as exc:  # the same pages were learned once already: a bug
            logger.warning(
                "pagesim: cannot learn the wrapper of %r again in canonical order, keeping "
                "it as learned in arrival order: %s",
                state.label,
                describe_error(exc),
            )
            state.sources = None
            return
        state.wrapper = wrapper
        self._relearned(state)

    def _relearned(self, state: LabelState) -> None:
        """The label's wrapper was learned afresh from its ``applied`` pages."""
        self._recount(state)
        trim_memory()  # the old wrapper and the parsed pages are gone
        state.relearned = state.applied
        # compiled after its last page: the next page learned is out of order
        state.in_order, state.last_key, state.compilations = True, None, 0
        self.stats.inc_value(f"{STATS_PREFIX}/relearned")

    # --- extracting (worker thread) ----------------------------------------------------------

    @staticmethod
    def extract(state: LabelState, page: str | Element, url: str | None) -> Extraction:
        """Worker thread: apply the label's wrapper to the page's HTML, or to its tree as
        :meth:`learn` parsed it (the same options: the same tree). Never raises: any failure
        gives an empty record and a reason (the wrapper is only read)."""
        try:
            return state.wrapper.extract(page, url=url)
        except Exception as exc:  # lxml/json/url errors on a hostile page, or a bug
            reason = f"extraction failed: {describe_error(exc)}"
            logger.warning(
                "pagesim: no record for page item %s of %r: %s", url, state.label, reason
            )
            return Extraction({}, [], 0.0, reason)
        finally:
            forget_page()  # the page's tree is not needed any more


def sample_worst(sources: list[Source]) -> int:
    """The index of the kept page with the largest digest (the second part of its canonical
    order key): the first to leave the bottom-k sample. The digest is a uniform draw that
    does not favour large pages, as the size part of the key would."""
    return max(range(len(sources)), key=lambda k: sources[k][0][1])


def _learn_afresh(
    old: Wrapper,
    sources: list[Source],
    trees: dict[int, tuple[Element, int, PageKey]],
    handed: dict[PageKey, HandedTree] | None = None,
    room: Callable[[PageKey], bool] | None = None,
) -> Wrapper:
    """A new wrapper with ``old``'s options, learned from the kept pages in canonical order
    (as ``Wrapper.add_pages`` learns them), one parsed page at a time (the trees of a full
    label's pages together would take far too much memory): a page's tree in ``trees`` (by
    its index) is used, the others are parsed again. The trees used go to ``handed``, with
    what learning read of them, for their items; of the trees parsed again, those ``room``
    takes (by their page) too."""
    wrapper = Wrapper(label=old.label, lam=old.lam, min_fit=old.min_fit, structured=old.structured)
    for index in sorted(range(len(sources)), key=lambda k: sources[k][0]):
        kept = trees.get(index)
        if kept is not None:
            root, page = kept[0], kept[2]
        else:
            page = (source_page(sources[index]), sources[index][3])
            root = parse_html(page[0], structured=old.structured, base_url=page[1])
        wrapper.add_page(root)
        if handed is not None and (kept is not None or (room is not None and room(page))):
            size = kept[1] if kept is not None else body_size(page[0])
            handed[page] = (root, kept_page_memo(root), size)
    forget_page()
    wrapper.compiled()
    return wrapper
