"""Learn one wrapper per page label during the crawl and fill every page item's records.

``TemplateInductionPipeline`` handles :class:`pagesim_scrapy.items.PageItem` (other items
pass through untouched):

* it learns the label's wrapper from the first ``PAGESIM_INDUCTION_MAX_PAGES`` page items
  (in a worker thread, so the reactor stays free), starting from a wrapper stored by an
  earlier crawl if there is one;
* every page item of a label is *held* until the label is *settled*: no more of its pages
  can come (the crawl has nothing else left to do, once the ``spider_idle`` listeners have
  been asked for more, or the spider closes). Its held items are then all extracted with the
  wrapper learned afresh from the label's pages in canonical order, so the same pages give
  the same records whatever the order and timing of the crawl; a label that meets more than
  ``PAGESIM_INDUCTION_MAX_PAGES`` pages learns a bottom-k sample of them (the pages of
  smallest digest), the same set in any order. Later items are extracted at once with that
  wrapper. ``process_item`` awaits a held item's release: a pipeline cannot emit items later
  by itself, so waiting is the honest way to hold one;
* an item's ``record`` leads with its page's core record (standard names from its
  structured data, :mod:`pagesim_scrapy.core.record`; their sources in
  ``verdict["induction"]["sources"]``, the page type in ``verdict["induction"]["page_type"]``),
  then the induced fields that add to it: repeated values and the site's chrome dropped,
  layout names replaced (:func:`pagesim_scrapy.core.record.item_record`, :mod:`.records`);
  a label that learned fewer than ``PAGESIM_INDUCTION_MIN_PAGES`` pages gives records marked
  ``"pagesim_wrapper": "partial"``;
* waiting is bounded: an item is released early — extracted with the wrapper learned so far
  (in arrival order; a full label's sample as it stands, which then stays the label's
  wrapper for the rest of the crawl), so its induced fields may differ from crawl to crawl —
  when more than
  ``PAGESIM_INDUCTION_BUFFER_SIZE`` items are held (the oldest goes), when the held pages take
  more than half of ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` (the oldest go; see below), or when it
  has waited ``PAGESIM_INDUCTION_WAIT`` seconds. No item is lost or dropped.
* holding an item keeps its response in Scrapy's scraper slot until ``process_item`` returns
  (the scraper counts a response's body in the slot's active size until every item of that
  response is processed, and the engine stops sending requests while that size exceeds
  ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``). There is no public way for a pipeline to hand the item on
  later without holding the response (dropping it and injecting it again would run the earlier
  pipelines twice and count it as dropped), so held pages are kept within a byte budget:
  their bodies (as Scrapy counts them, at least 1 KB each) stay within half of
  ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``, and whenever the slot is over its limit while items are
  held, the oldest held items are released until it is not. Held items therefore never stop
  the downloader; a larger ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` lets more pages wait for their
  wrapper (at the cost of memory). Stats ``pagesim/induction/released/memory`` and
  ``pagesim/induction/held_bytes_max``.
* at most ``PAGESIM_INDUCTION_MAX_LABELS`` labels get a wrapper in one crawl (a memory bound,
  stored wrappers included): page items of further labels pass at once with an empty record
  and a ``reason`` (stat ``pagesim/induction/skipped/label_limit``, one WARNING).
* the wrappers of a crawl hold at most ``PAGESIM_INDUCTION_MAX_NODES`` template nodes
  together (a memory bound, stored wrappers included): once they do, no wrapper learns more
  pages in this crawl, and page items are extracted with the wrappers as they are (stat
  ``pagesim/induction/not_learned/node_limit``, one WARNING; ``pagesim/induction/nodes_max``).
  The worker thread also hands the memory freed by parsed pages back to the system (glibc's
  ``malloc_trim``) after every relearning and every 100 pages.
* learning and extracting run in one worker thread of the pipeline's own, one page at a time
  (a page is parsed once, for both; stat ``pagesim/induction/time_ms``: that thread's CPU
  and the pipeline's own work in the reactor thread, one counter for induction's CPU):
  the work is pure Python under the GIL, so more threads would not run it faster, and each
  more thread would take a larger share of the interpreter away from the reactor that
  downloads.
* the same pages give the same wrapper whatever order they arrive in (issue 14, item 6): a
  label learns each page as it comes, and when it becomes ready
  (``PAGESIM_INDUCTION_MIN_PAGES`` pages), when it is settled and again at spider close, its
  wrapper is learned afresh from the pages learned so far in a fixed order (largest first,
  then by content: :func:`~pagesim_scrapy.core.induce.wrapper.page_order_key`, as
  :func:`~pagesim_scrapy.core.induce.induce` does; stat ``pagesim/induction/relearned``).
  A page of a label that is not settled is only parsed and kept, compressed (its parsed tree
  too, while the kept trees' pages stay within the held pages' byte budget), and learned once,
  when the label settles: in canonical order, or as it came when the pages came in that order
  with no compile between them (stat ``pagesim/induction/relearn_skipped``). A wrapper needed
  sooner (an item released early by a cap, ``PAGESIM_INDUCTION_BUFFER_SIZE`` 0) learns the
  waiting pages then, one by one as they came, which gives the wrapper learning each page at
  once gives; so does a label whose waiting pages could bring the wrappers to
  ``PAGESIM_INDUCTION_MAX_NODES``, so that learning stops at the same page. The pages are
  kept until the label's wrapper is fixed or the spider closes (at most
  ``PAGESIM_INDUCTION_MAX_PAGES`` per label, the sample). What may still differ between
  two crawls of the same pages (issue 31, item 5; docs: records, "Stability"): which pages
  a label learns once the wrappers reach ``PAGESIM_INDUCTION_MAX_NODES`` (the first ones);
  the records of items released early by a cap, and of a full label whose wrapper such a
  release fixed; and a wrapper that continues a stored one (its stored pages cannot be
  learned again: new pages are added in arrival order, and its items are not held). The
  saved wrapper of a label whose items all waited for the crawl to run dry, and every record
  extracted with it later, do not depend on the order.
* at spider close the wrappers are saved through ``PAGESIM_INDUCTION_STORE`` (default: JSON
  files under the project's data dir, ``.scrapy/pagesim/wrappers/<label>.json``) and the
  next crawl starts from them. A stored wrapper that cannot be used (corrupt, hostile, another
  format) is logged once as an ERROR, moved aside to ``<label>.json.corrupt`` and the label
  is learned afresh (stat ``pagesim/state/corrupt``).
* one page never costs its item: a page that cannot be parsed, learned or extracted (whatever
  the exception) leaves its item with an empty record and a ``reason`` in its verdict, a stat
  and a WARNING; the label's wrapper is not touched by a page that fails to parse.

Stats: ``pagesim/induction/...``, ``pagesim/state/...``.

The package's modules, one concern each: :mod:`.pipeline` (the Scrapy glue), :mod:`.holding`
(items held until their label's wrapper is ready), :mod:`.records` (the item's record from
the core record and the induced one), :mod:`.learning` (each label's wrapper and
the crawl's memory bounds), :mod:`.worker` (the worker thread), :mod:`.stores` (the wrapper
files). Every name importable from this module before the split still is.
"""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.pipelines.induction.holding import (
    HELD_SHARE,
    IDLE_CHECKS,
    MIN_RESPONSE_SIZE,
    WATCH_INTERVAL,
    Held,
    Holding,
)
from pagesim_scrapy.pipelines.induction.learning import LabelState, Learner, count_nodes
from pagesim_scrapy.pipelines.induction.pipeline import (
    LABEL_LIMIT_REASON,
    TemplateInductionPipeline,
)
from pagesim_scrapy.pipelines.induction.stores import (
    STATE_STATS_PREFIX,
    STATS_PREFIX,
    JsonFileWrapperStore,
    WrapperStore,
    logger,
)
from pagesim_scrapy.pipelines.induction.worker import TRIM_EVERY, InductionWorker
from pagesim_scrapy.settings import DEFAULTS, INDUCTION_SETTINGS, SPECS, InductionConfig

#: The induction settings and their defaults; the one place they are declared is
#: :data:`pagesim_scrapy.settings.SETTINGS`.
SETTING_DEFAULTS: dict[str, Any] = {name: DEFAULTS[name] for name in INDUCTION_SETTINGS}

#: What each setting means (from :data:`pagesim_scrapy.settings.SETTINGS`).
SETTING_DOCS: dict[str, str] = {name: SPECS[name].doc for name in INDUCTION_SETTINGS}

__all__ = [
    "HELD_SHARE",
    "IDLE_CHECKS",
    "LABEL_LIMIT_REASON",
    "MIN_RESPONSE_SIZE",
    "SETTING_DEFAULTS",
    "SETTING_DOCS",
    "STATE_STATS_PREFIX",
    "STATS_PREFIX",
    "TRIM_EVERY",
    "WATCH_INTERVAL",
    "Held",
    "Holding",
    "InductionConfig",
    "InductionWorker",
    "JsonFileWrapperStore",
    "LabelState",
    "Learner",
    "TemplateInductionPipeline",
    "WrapperStore",
    "count_nodes",
    "logger",
]
