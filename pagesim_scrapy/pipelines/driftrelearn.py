"""The induction pipeline's side of the layout-change alarm: ``PAGESIM_DRIFT_ACTION =
"relearn"``, and the learned wrappers' records counted for wrapper drift (:func:`watch_record`).

When the layout-change alarm finds a label's look changed, the wrapper learned from the old
look extracts little or wrong data from the new pages: it is dropped once, and the label learns
afresh from the pages that come next (not from the stored wrapper, which holds the old look;
the new wrapper replaces it at close).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pagesim_scrapy.core.site import site_key
from pagesim_scrapy.middlewares.drift import take_relearn, watch_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from pagesim_scrapy.items import PageItem
    from pagesim_scrapy.pipelines.induction.learning import Learner

logger = logging.getLogger(__name__)


def relearn_if_drifted(crawler: Crawler | None, learner: Learner, label: str) -> bool:
    """Drop ``label``'s wrapper when its look changed (once per change); True if dropped."""
    if not take_relearn(crawler, label):
        return False
    old = learner.labels.pop(label, None)
    if old is not None:
        learner.nodes -= old.nodes
    store, learner.store = learner.store, None  # not the stored wrapper: it has the old look
    try:
        learner.label(label)
    finally:
        learner.store = store
    logger.info(
        "pagesim: the wrapper of %r relearns from the new pages (its layout changed; %d pages "
        "learned before are dropped)",
        label,
        0 if old is None else old.pages,
    )
    return True


def watch_record(crawler: Crawler | None, item: PageItem, status: str) -> None:
    """Count the record of a ready wrapper (not a partial one, still learning) for the
    alarm's wrapper drift: its fields found, and the kinds of their values."""
    watch = watch_of(crawler)
    if watch is None or status != "ready" or not item.label or item.record is None:
        return
    watch.observe_record(site_key(item.url), item.label, item.record)
