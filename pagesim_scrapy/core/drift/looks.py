"""What a site's page types look like: the structural features of their recent pages.

A *look* is kept per (site, label) as the packed features of its most recent pages (the form
:class:`~pagesim_scrapy.core.site.SiteModel` keeps them in) with an id per page, plus the count
of all its pages. Pages without a label are kept too: they tell the site's chrome and the share
of the site each label takes. Framework-free and bounded, so it can be saved between crawls.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.drift.fields import FieldCounts
from pagesim_scrapy.core.drift.memo import once
from pagesim_scrapy.core.site import Features, pack_features, unpack_features
from pagesim_scrapy.core.summary import PageSummary, frozen_node_pairs

#: The key of pages that got no label (they still count for chrome and shares).
UNLABELLED = ""


def skeleton_features(summary: PageSummary) -> Features:
    """Parent -> child pairs of tag names only: the page's tag skeleton, which a theme that
    renames its classes keeps, and which tells a redesigned page type from another type."""
    return frozen_node_pairs(summary.bfs["rsn"], summary.parent_bfs)


@dataclass
class Look:
    """The recent pages of one label on one site (with their tag skeletons, where known)."""

    pages: int = 0
    kept: deque[tuple[str, str]] = field(default_factory=deque)  # (packed features, page id)
    #: the packed tag skeleton of each kept page ("" where unknown), in the order of ``kept``
    skeletons: deque[str] = field(default_factory=deque)

    @classmethod
    def bounded(cls, max_kept: int) -> Look:
        return cls(kept=deque(maxlen=max_kept), skeletons=deque(maxlen=max_kept))

    def add(self, features: Features, page_id: str = "", skeleton: Features | None = None) -> None:
        self.pages += 1
        self.keep(
            pack_features(features), page_id, "" if skeleton is None else pack_features(skeleton)
        )

    def keep(self, packed: str, page_id: str, skeleton: str = "") -> None:
        """Keep one page as packed (without counting it)."""
        self.kept.append((packed, page_id))
        self.skeletons.append(skeleton)

    def entries(self) -> Iterator[tuple[str, str, str]]:
        """(packed features, page id, packed skeleton or "") of each kept page."""
        skeletons = self.skeletons if len(self.skeletons) == len(self.kept) else None
        for number, (packed, page_id) in enumerate(self.kept):
            yield packed, page_id, skeletons[number] if skeletons is not None else ""

    def skeleton_features(self) -> list[Features | None]:
        return [
            unpack_features(skeleton) if skeleton else None for _, _, skeleton in self.entries()
        ]

    def features(self) -> list[Features]:
        """The kept pages' features (unpacked once per round of checks: :mod:`.memo`)."""
        return once(
            "features",
            (self,),
            self.state(),
            lambda: [unpack_features(packed) for packed, _ in self.kept],
        )

    def counts(self) -> Counter[str]:
        """On how many kept pages each feature is (in the order the pages first show them);
        once per round of checks, not to be changed."""
        return once(
            "counts", (self,), self.state(), lambda: Counter(f for p in self.features() for f in p)
        )

    def state(self) -> tuple[Any, ...]:
        """What changes whenever a page is added or kept (the newest kept entry itself)."""
        last = self.kept[-1] if self.kept else None
        return (self.pages, len(self.kept), id(last), last)

    def page_ids(self) -> list[str]:
        return [page_id for _, page_id in self.kept]


@dataclass
class SiteLooks:
    """Every label's look on one site (the unlabelled pages under :data:`UNLABELLED`)."""

    max_kept: int = 300
    labels: dict[str, Look] = field(default_factory=dict)
    #: per label, the fields its wrapper's records had (wrapper drift)
    fields: dict[str, FieldCounts] = field(default_factory=dict)

    def field_counts(self, label: str) -> FieldCounts:
        counts = self.fields.get(label)
        if counts is None:
            counts = self.fields[label] = FieldCounts()
        return counts

    def look(self, label: str | None) -> Look:
        key = UNLABELLED if label is None else label
        look = self.labels.get(key)
        if look is None:
            look = self.labels[key] = Look.bounded(self.max_kept)
        return look

    def add(
        self,
        label: str | None,
        features: Features,
        page_id: str = "",
        skeleton: Features | None = None,
    ) -> None:
        self.look(label).add(features, page_id, skeleton)

    @property
    def pages(self) -> int:
        return sum(look.pages for look in self.labels.values())

    def share(self, label: str) -> float:
        """The share of the site's pages given ``label``."""
        total = self.pages
        look = self.labels.get(label)
        return look.pages / total if total and look else 0.0

    def other_pages(self, label: str) -> list[Features]:
        """The kept pages of every other label (and the unlabelled ones)."""
        return [f for key, look in self.labels.items() if key != label for f in look.features()]

    def named_labels(self) -> Iterator[str]:
        return (key for key in self.labels if key != UNLABELLED)


@dataclass
class DriftBaseline:
    """The looks of every site as a past crawl (or a set of saved pages) left them."""

    sites: dict[str | None, SiteLooks] = field(default_factory=dict)
    max_kept: int = 300

    def site(self, site: str | None) -> SiteLooks:
        looks = self.sites.get(site)
        if looks is None:
            looks = self.sites[site] = SiteLooks(self.max_kept)
        return looks

    def add(
        self,
        site: str | None,
        label: str | None,
        features: Features,
        page_id: str = "",
        skeleton: Features | None = None,
    ) -> None:
        self.site(site).add(label, features, page_id, skeleton)

    def overlay(
        self,
        mine: DriftBaseline,
        looks: Iterable[tuple[str | None, str]],
        fields: Iterable[tuple[str | None, str]] = (),
    ) -> DriftBaseline:
        """This baseline with the ``looks`` and ``fields`` (site, label)s taken from
        ``mine``: a fleet worker's save replaces what it met and keeps what others saved."""
        for site, label in looks:
            self.site(site).labels[label] = mine.sites[site].labels[label]
        for site, label in fields:
            self.site(site).fields[label] = mine.sites[site].fields[label]
        return self

    def has(self, site: str | None, label: str) -> bool:
        looks = self.sites.get(site)
        return looks is not None and label in looks.labels
