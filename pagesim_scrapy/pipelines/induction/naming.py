"""The body naming of each label and site (:class:`~pagesim_scrapy.core.record.naming.BodyNaming`):
which body field the site's own metadata names ``price``, ``brand``...

It is learned from the label's kept pages in canonical order whenever its wrapper is learned
from them (the label settles, or it is full and lets its pages go: their HTML is at hand only
until then), and then fixed: a page item's record is only filled from it, so the same pages
give the same records whatever order they came in. A naming learned as pages come would
depend on that order: which pages it saw before it settled, and which records were composed
before it knew a name. Until a label first settles (items released early by a cap, a label
that continues a stored wrapper), each page teaches the naming as its record is composed,
then is filled from it, so early records are not emptier.

What learning read of a kept page (its core record, the tree it was read from, its body
fields) is handed to ``keep``, so that the record composed for the same page's item need not
read it again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

from pagesim_scrapy.core.induce.dom import forget_page
from pagesim_scrapy.core.record.model import CoreRecord
from pagesim_scrapy.core.record.naming import BodyNaming
from pagesim_scrapy.core.record.signatures import SignatureMemory
from pagesim_scrapy.core.statefile import describe_error
from pagesim_scrapy.pipelines.induction.sources import Source, in_canonical_order, source_page
from pagesim_scrapy.pipelines.induction.stores import logger

#: the body namings of each label's state (kept as long as the state), per site
_NAMINGS: WeakKeyDictionary[Any, dict[str, BodyNaming]] = WeakKeyDictionary()
#: the canonical order keys of the pages each state's namings were last learned from
_LEARNED_FROM: WeakKeyDictionary[Any, tuple[tuple[int, bytes], ...]] = WeakKeyDictionary()
_NAMINGS_LOCK = threading.Lock()

#: What learning read of a page: its core record, the tree the record reader read it from,
#: and every body field of that tree (None when they were not all read).
PageRead = tuple[CoreRecord, Any, dict[str, str] | None]
#: Called with each page learning read ((its HTML as its item holds it, its URL), the read).
KeepRead = Callable[[tuple[str | bytes, str | None], PageRead], None]


@dataclass
class Signatures:
    """The crawl's memory of which element holds a standard value on other sites
    (:mod:`~pagesim_scrapy.core.record.signatures`).

    ``known`` is what earlier crawls saved, asked and never changed during this crawl, so a
    site's records do not depend on which other site settled first; ``taught`` starts as a
    copy of it and learns what this crawl's sites agree on, to be saved for the next crawl.
    """

    known: SignatureMemory | None = None
    taught: SignatureMemory = field(default_factory=SignatureMemory)

    @classmethod
    def from_saved(cls, saved: SignatureMemory | None) -> Signatures:
        if saved is None:
            return cls()
        return cls(saved, SignatureMemory.from_dict(saved.to_dict()))


def site_of(url: str | None) -> str:
    """The site a page's naming is kept for: its host name."""
    return (urlsplit(url or "").hostname or "").lower()


def body_naming(state: Any, url: str | None, signatures: Signatures | None = None) -> BodyNaming:
    """The body naming learned for ``state``'s label on the site of ``url``."""
    site = site_of(url)
    with _NAMINGS_LOCK:
        per_site = _NAMINGS.setdefault(state, {})
        naming = per_site.get(site)
        if naming is None:
            memory = signatures.known if signatures is not None else None
            naming = per_site[site] = BodyNaming(memory=memory, site=site)
        return naming


def learn_namings(
    state: Any,
    sources: list[Source],
    keep: KeepRead | None = None,
    signatures: Signatures | None = None,
) -> None:
    """Worker thread, under the label's lock: the label's naming of each site learned afresh
    from its kept pages of that site in canonical order, then fixed (nothing to do when they
    are the pages it was learned from last time). A site none of whose pages is kept (not
    in a full label's sample) keeps the naming its pages taught as they came. Each page read
    goes to ``keep``; each site's naming asks ``signatures.known`` and teaches
    ``signatures.taught``."""
    pages = in_canonical_order(sources)
    keys = tuple(source[0] for source in pages)
    with _NAMINGS_LOCK:
        if not pages or _LEARNED_FROM.get(state) == keys:
            return
    by_site: dict[str, list[Source]] = {}
    for source in pages:
        by_site.setdefault(site_of(source[3]), []).append(source)
    learned = {
        site: _learned(site_pages, keep, site, signatures) for site, site_pages in by_site.items()
    }
    with _NAMINGS_LOCK:
        _NAMINGS.setdefault(state, {}).update(learned)
        _LEARNED_FROM[state] = keys


def _learned(
    sources: list[Source],
    keep: KeepRead | None = None,
    site: str = "",
    signatures: Signatures | None = None,
) -> BodyNaming:
    """A fixed naming learned from ``sources`` in their order, until it stops learning."""
    memory = signatures.known if signatures is not None else None
    naming = BodyNaming(memory=memory, site=site)
    for source in sources:
        if not naming.learning:
            break
        page = source_page(source)
        read = _observe(naming, page, source[3])
        if read is not None and keep is not None:
            keep((page, source[3]), read)
    naming.stop_learning()
    if signatures is not None:
        naming.teach(signatures.taught)
    return naming


def _observe(naming: BodyNaming, page: str | bytes, url: str | None) -> PageRead | None:
    """The kept page teaches ``naming`` as a page item's record would; returns what it read
    (None when the record reader failed). Never raises (a page that fails teaches
    nothing, with a WARNING)."""
    # the structured-data reader (extruct, rdflib) loads with the first page item
    from pagesim_scrapy.core.record.bodyfields import body_fields
    from pagesim_scrapy.core.record.build import read_page

    url = url or ""
    read: PageRead | None = None
    try:
        core, root = read_page(page, url)
        read = core, root, None
        wanted = naming.wanted()
        body = body_fields(root, url, wanted)
        read = core, root, body if wanted is None else None
        naming.observe(core, body)
    except Exception as exc:  # a bug: the naming learns from the other pages
        logger.warning("pagesim: page %s teaches no body names: %s", url, describe_error(exc))
    finally:
        forget_page()
    return read
