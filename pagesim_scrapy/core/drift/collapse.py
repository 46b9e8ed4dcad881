"""A label whose pages vanished from a site: a redesign its templates no longer match.

When a page type is redesigned enough (every class of its main content renamed), its pages stop
matching the label's templates and are left unlabelled: the label then has no pages to compare.
Its share of the site *collapsing* is the sign; the unlabelled pages of the site nearest the
label's saved pages stand in for its pages now, and are compared with its look as usual. Pages
of other types the crawl meets instead (another order or proportion) are nearer to the
baseline's pages of their own type, so they do not stand in.
"""

from __future__ import annotations

from pagesim_scrapy.core.drift.looks import UNLABELLED, Look, SiteLooks
from pagesim_scrapy.core.drift.options import DriftOptions
from pagesim_scrapy.core.site import Features, unpack_features

#: Baseline pages per label a page is compared with to find its nearest type (the newest).
NEAREST_SAMPLE = 60


def collapsed(before: SiteLooks, now: SiteLooks, label: str, options: DriftOptions) -> bool:
    """The label had a clear share of the site, and the site's pages now, enough to hold
    ``collapse_pages`` of the label's at that share, hold almost none."""
    look = before.labels.get(label)
    share_before = before.share(label)
    if look is None or len(look.kept) < options.min_pages:
        return False
    if share_before < options.collapse_share or now.pages * share_before < options.collapse_pages:
        return False
    return now.share(label) <= share_before * options.collapse_ratio


def _similarity(a: Features, b: Features) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _known_pages(before: SiteLooks) -> list[tuple[str, Features]]:
    return [
        (key, features)
        for key, look in before.labels.items()
        for features in look.features()[-NEAREST_SAMPLE:]
    ]


def _nearest_type(page: Features, known: list[tuple[str, Features]]) -> str:
    """The key (label, or unlabelled) of the baseline page most like ``page``."""
    best_key, best = UNLABELLED, -1.0
    for key, features in known:
        similarity = _similarity(page, features)
        if similarity > best:
            best_key, best = key, similarity
    return best_key


def with_stand_ins(before: SiteLooks, now: SiteLooks, label: str) -> tuple[SiteLooks, int]:
    """``now`` with its unlabelled pages nearest the label's baseline pages moved under the
    label (with the few pages it still has), and how many moved."""
    unlabelled = now.labels.get(UNLABELLED)
    if unlabelled is None:
        return now, 0
    known = _known_pages(before)
    rest, stand_in = Look.bounded(now.max_kept), Look.bounded(now.max_kept)
    own = now.labels.get(label)
    if own is not None:
        stand_in.kept.extend(own.kept)
        stand_in.pages = own.pages
    moved = 0
    for packed, page_id in unlabelled.kept:
        if _nearest_type(unpack_features(packed), known) == label:
            stand_in.kept.append((packed, page_id))
            moved += 1
        else:
            rest.kept.append((packed, page_id))
    stand_in.pages += moved
    rest.pages = unlabelled.pages - moved
    looks = SiteLooks(now.max_kept, dict(now.labels))
    looks.labels[UNLABELLED] = rest
    looks.labels[label] = stand_in
    return looks, moved
