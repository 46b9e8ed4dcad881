"""Site models carried from one crawl to the next (method ``site``).

A crawl learns each site's chrome from the pages it meets; without a saved model every crawl
starts from nothing and decides its first pages of a site on the templates alone. Saved at
close and adopted at the next start, the model lets a recurring crawl decide its first pages
as well as its last: the same pages met a second time are decided better, the first ones most
(``benchmarks/site_accuracy.py``, "recurring crawl").

What is saved per site: the page count, the document frequency of every feature (the
templates' own counts taken out: the next crawl adds its templates itself, which may differ),
and the features of its last kept pages. Bounds, so that the file stays small and a site that
changed is not outweighed by its past:

* at most ``max_sites`` sites, those with the most pages;
* a site counts as at most ``max_pages`` pages: larger counts are scaled down, which keeps
  every feature's weight (a ratio of counts) and lets a new crawl's pages weigh in;
* at most ``max_kept`` kept pages per site.

A recurring crawl meets the same pages again: a saved page met again (known by its kept
features) is counted once, not once per crawl, so the file keeps its size and the next crawl
starts from the same counts (see :meth:`~pagesim_scrapy.core.site.SavedSite.merged_again`).

The file is JSON (``ensure_ascii``: the feature codes include lone surrogates), read through
:func:`~pagesim_scrapy.core.statefile.read_state`: anything malformed is refused whole, and
the caller moves it aside and goes on with fresh models. Framework-free: no Scrapy import.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pagesim_scrapy.core.cluster.persist import options_to_dict
from pagesim_scrapy.core.site import SavedSite, unpack_features
from pagesim_scrapy.core.statefile import (
    StateFormatError,
    check_dict,
    check_int,
    check_list,
    check_str,
    read_document,
)
from pagesim_scrapy.core.summary import SummaryOptions

FORMAT = "pagesim-site-models"
VERSION = 1

#: Defaults of the bounds (see the module docstring).
MAX_SITES = 50
MAX_PAGES = 1000
MAX_KEPT = 100
#: Largest number of features accepted for one site (SiteModel's own bound, with room).
MAX_FEATURES = 200_000


def site_models_text(
    sites: list[SavedSite],
    options: SummaryOptions,
    *,
    max_sites: int = MAX_SITES,
    max_pages: int = MAX_PAGES,
    max_kept: int = MAX_KEPT,
) -> str:
    """The file's text: the ``max_sites`` sites with the most pages, each bounded."""
    chosen = sorted(sites, key=lambda s: (-s.pages, s.site or ""))[:max_sites]
    document = {
        "format": FORMAT,
        "version": VERSION,
        "summary_options": options_to_dict(options),
        "sites": [
            {"site": s.site, "pages": s.pages, "df": s.df, "kept": s.kept}
            for s in (site.bounded(max_pages, max_kept) for site in chosen)
        ],
    }
    return json.dumps(document, ensure_ascii=True, separators=(",", ":"))


def parse_site_models(text: str, options: SummaryOptions) -> list[SavedSite] | None:
    """The saved sites; None when they were summarised with other options (features of other
    summaries are not comparable: the caller starts afresh and says so). Raises
    :class:`~pagesim_scrapy.core.statefile.StateFormatError` for a file of the wrong form."""
    document = read_document(text, FORMAT, VERSION)
    if check_dict(document.get("summary_options"), "summary_options") != options_to_dict(options):
        return None
    sites = []
    seen: set[str | None] = set()
    for number, entry in enumerate(check_list(document.get("sites"), "sites")):
        where = f"sites[{number}]"
        entry = check_dict(entry, where)
        site = check_str(entry.get("site"), f"{where}.site", optional=True)
        if site in seen:
            raise StateFormatError(f"{where}: site {site!r} appears twice")
        seen.add(site)
        pages = check_int(entry.get("pages"), f"{where}.pages")
        df = _check_df(entry.get("df"), f"{where}.df", pages)
        kept = [
            _check_packed(page, f"{where}.kept[{i}]")
            for i, page in enumerate(check_list(entry.get("kept"), f"{where}.kept"))
        ]
        sites.append(SavedSite(site, pages, df, kept))
    return sites


def _check_df(value: Any, what: str, pages: int) -> dict[str, int]:
    counts: Mapping[str, Any] = check_dict(value, what)
    if len(counts) > MAX_FEATURES:
        raise StateFormatError(f"{what}: more than {MAX_FEATURES} features")
    out = {}
    for feature, n in counts.items():
        if not 1 <= len(feature) <= 2:
            raise StateFormatError(f"{what}: {feature!r} is not a feature")
        out[feature] = check_int(n, f"{what}[{feature!r}]", 1, max(1, pages))
    return out


def _check_packed(value: Any, what: str) -> str:
    packed = check_str(value, what)
    try:
        unpack_features(packed)
    except ValueError as exc:
        raise StateFormatError(f"{what}: {exc}") from None
    return str(packed)
