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


def _known_pages(before: SiteLooks) -> list[tuple[str, Features, Features | None]]:
    return [
        (key, features, skeleton)
        for key, look in before.labels.items()
        for features, skeleton in list(zip(look.features(), look.skeleton_features()))[
            -NEAREST_SAMPLE:
        ]
    ]


def _nearest(
    page: Features, known: list[tuple[str, Features, Features | None]], skeleton: bool = False
) -> tuple[str, float]:
    """The key (label, or unlabelled) of the baseline page most like ``page`` (by their
    features, or by their tag skeletons), and how alike they are."""
    best_key, best = UNLABELLED, -1.0
    for key, features, tags in known:
        other = tags if skeleton else features
        if other is None:
            continue
        similarity = _similarity(page, other)
        if similarity > best:
            best_key, best = key, similarity
    return best_key, best


def _own_skeleton_likeness(known: list[tuple[str, Features, Features | None]], label: str) -> float:
    """How alike the label's own baseline pages' skeletons are: the mean, over its pages, of
    the nearest other page's skeleton similarity (a redesigned page of the label comes near)."""
    own = [tags for key, _, tags in known if key == label and tags is not None]
    if len(own) < 2:
        return 0.0
    nearest = [
        max(_similarity(tags, other) for j, other in enumerate(own) if j != i)
        for i, tags in enumerate(own)
    ]
    return sum(nearest) / len(nearest)


class _StandInTest:
    """Is an unlabelled page a page of ``label`` in a new look? Its features are nearest the
    label's baseline pages, and, where the tag skeletons are known, so is its skeleton, within
    ``skeleton_margin`` of how alike the label's own pages are: a redesign (classes renamed,
    a block moved or added) keeps most of the label's tag skeleton, while a type the
    baseline never met, which is nearest the label only because nothing else is nearer,
    does not."""

    def __init__(self, before: SiteLooks, label: str, options: DriftOptions) -> None:
        self.label = label
        self.known = _known_pages(before)
        self.bar = _own_skeleton_likeness(self.known, label) - options.skeleton_margin

    def __call__(self, packed: str, skeleton: str) -> bool:
        if _nearest(unpack_features(packed), self.known)[0] != self.label:
            return False
        if not skeleton or self.bar <= 0.0:  # no skeletons known (an earlier version's file)
            return True
        key, similarity = _nearest(unpack_features(skeleton), self.known, skeleton=True)
        return key == self.label and similarity >= self.bar


def with_stand_ins(
    before: SiteLooks, now: SiteLooks, label: str, options: DriftOptions
) -> tuple[SiteLooks, int]:
    """``now`` with its unlabelled pages that pass :class:`_StandInTest` moved under the label
    (with the few pages it still has), and how many moved."""
    unlabelled = now.labels.get(UNLABELLED)
    if unlabelled is None:
        return now, 0
    stands_in = _StandInTest(before, label, options)
    rest, stand_in = Look.bounded(now.max_kept), Look.bounded(now.max_kept)
    own = now.labels.get(label)
    if own is not None:
        for entry in own.entries():
            stand_in.keep(*entry)
        stand_in.pages = own.pages
    moved = 0
    for packed, page_id, skeleton in unlabelled.entries():
        if stands_in(packed, skeleton):
            stand_in.keep(packed, page_id, skeleton)
            moved += 1
        else:
            rest.keep(packed, page_id, skeleton)
    stand_in.pages += moved
    rest.pages = unlabelled.pages - moved
    looks = SiteLooks(now.max_kept, dict(now.labels), dict(now.fields))
    looks.labels[UNLABELLED] = rest
    looks.labels[label] = stand_in
    return looks, moved
