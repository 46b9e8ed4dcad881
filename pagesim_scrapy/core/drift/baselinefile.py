"""Drift baselines saved between crawls, and baselines made from the saved site models.

The file is JSON (``ensure_ascii``: feature codes include lone surrogates) in the form of the
other state files, checked on reading through :mod:`~pagesim_scrapy.core.statefile`: a
malformed file is refused whole. Features summarised with other options are not comparable,
so a file written under other summary options reads as no baseline.
"""

from __future__ import annotations

import json
from typing import Any

from pagesim_scrapy.core.cluster.persist import options_to_dict
from pagesim_scrapy.core.drift.fields import FieldCounts
from pagesim_scrapy.core.drift.looks import DriftBaseline, Look
from pagesim_scrapy.core.site import SavedSite, unpack_features
from pagesim_scrapy.core.statefile import (
    StateFormatError,
    check_dict,
    check_int,
    check_list,
    check_str,
    check_str_list,
    read_document,
)
from pagesim_scrapy.core.summary import SummaryOptions

FORMAT = "pagesim-drift-looks"
VERSION = 1

#: The label of a site's pages taken from saved site models, which keep no labels.
ALL_PAGES = "(all pages)"


def baseline_text(baseline: DriftBaseline, options: SummaryOptions) -> str:
    document = {
        "format": FORMAT,
        "version": VERSION,
        "summary_options": options_to_dict(options),
        "sites": [
            {
                "site": site,
                "labels": {label: _look_document(look) for label, look in looks.labels.items()},
                "fields": {label: counts.as_dict() for label, counts in looks.fields.items()},
            }
            for site, looks in baseline.sites.items()
        ],
    }
    return json.dumps(document, ensure_ascii=True, separators=(",", ":"))


def _look_document(look: Look) -> dict[str, Any]:
    document: dict[str, Any] = {"pages": look.pages, "kept": [list(page) for page in look.kept]}
    skeletons = [skeleton for _, _, skeleton in look.entries()]
    if any(skeletons):  # files of earlier versions have none: they read as unknown
        document["skeletons"] = skeletons
    return document


def parse_baseline(text: str, options: SummaryOptions, max_kept: int = 300) -> DriftBaseline | None:
    """The saved baseline; None when its pages were summarised with other options. Raises
    :class:`~pagesim_scrapy.core.statefile.StateFormatError` for a file of the wrong form."""
    document = read_document(text, FORMAT, VERSION)
    if check_dict(document.get("summary_options"), "summary_options") != options_to_dict(options):
        return None
    baseline = DriftBaseline(max_kept=max_kept)
    for number, entry in enumerate(check_list(document.get("sites"), "sites")):
        where = f"sites[{number}]"
        entry = check_dict(entry, where)
        looks = baseline.site(check_str(entry.get("site"), f"{where}.site", optional=True))
        for label, saved in check_dict(entry.get("labels"), f"{where}.labels").items():
            looks.labels[label] = _parse_look(saved, f"{where}.labels[{label!r}]", max_kept)
        for label, saved in check_dict(entry.get("fields", {}), f"{where}.fields").items():
            looks.fields[label] = _parse_fields(saved, f"{where}.fields[{label!r}]")
    return baseline


def _parse_fields(value: Any, where: str) -> FieldCounts:
    """A label's field counts (files saved before wrapper drift have none)."""
    try:
        return FieldCounts.from_dict(check_dict(value, where))
    except (TypeError, ValueError) as exc:
        raise StateFormatError(f"{where}: {exc}") from None


def _parse_look(value: Any, where: str, max_kept: int) -> Look:
    saved = check_dict(value, where)
    look = Look.bounded(max_kept)
    look.pages = check_int(saved.get("pages"), f"{where}.pages")
    for i, page in enumerate(check_list(saved.get("kept"), f"{where}.kept")):
        pair = check_list(page, f"{where}.kept[{i}]")
        if len(pair) != 2:
            raise StateFormatError(f"{where}.kept[{i}]: not a [features, page id] pair")
        packed = check_str(pair[0], f"{where}.kept[{i}][0]")
        try:
            unpack_features(packed)
        except ValueError as exc:
            raise StateFormatError(f"{where}.kept[{i}]: {exc}") from None
        look.kept.append((packed, check_str(pair[1], f"{where}.kept[{i}][1]")))
    skeletons = check_str_list(saved.get("skeletons", []), f"{where}.skeletons")
    if len(skeletons) == len(look.kept):
        look.skeletons.extend(skeletons)
    else:
        look.skeletons.extend([""] * len(look.kept))
    return look


def baseline_from_site_models(sites: list[SavedSite], max_kept: int = 300) -> DriftBaseline:
    """A baseline from saved site models (``sites.json``): they keep no labels, so each site's
    kept pages form one look, :data:`ALL_PAGES` (a change of the whole site's look)."""
    baseline = DriftBaseline(max_kept=max_kept)
    for saved in sites:
        look = baseline.site(saved.site).look(ALL_PAGES)
        for packed in saved.kept:
            look.keep(packed, "")
        look.pages = max(saved.pages, len(saved.kept))
    return baseline
