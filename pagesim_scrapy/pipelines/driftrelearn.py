"""The induction pipeline's side of ``PAGESIM_DRIFT_ACTION = "relearn"``.

When the layout-change alarm finds a label's look changed, the wrapper learned from the old
look extracts little or wrong data from the new pages: it is dropped once, and the label learns
afresh from the pages that come next (not from the stored wrapper, which holds the old look;
the new wrapper replaces it at close).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pagesim_scrapy.middlewares.drift import take_relearn

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

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
