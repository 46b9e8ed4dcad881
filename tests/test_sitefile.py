"""Site models saved by one crawl and adopted by the next (core/sitefile.py, the classifier's
export/adopt, the middleware's load and save)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.site import SavedSite, pack_features
from pagesim_scrapy.core.siteaware import SAVED_SITE_WEIGHT, SiteAwareClassifier
from pagesim_scrapy.core.sitefile import parse_site_models, site_models_text
from pagesim_scrapy.core.statefile import CorruptStateError, StateFormatError, read_state
from pagesim_scrapy.core.summary import SummaryOptions, summarize
from tests.test_scrapy_crawl import (
    ADDON,
    TYPES,
    pages,
    pagesim_stats,
    run_crawl,
    serve,
    so_page,
    so_routes,
)

OPTIONS = SummaryOptions(max_nodes=300)


def _summary(kind: str, number: int, copy: int = 0) -> Any:
    """A fixture page; ``copy`` > 0 gives it another title: another page of the same
    structure (a page met again unchanged is counted once)."""
    html = so_page(kind, number).decode("utf-8")
    if copy:
        html = html.replace("<title>", f"<title>copy {copy} ", 1)
    return summarize(html, OPTIONS)


def _classifier() -> SiteAwareClassifier:
    clf = build_classifier(
        {"question": [_summary("question", 1), _summary("question", 2)]},
        method="site",
        summary_options=OPTIONS,
    )
    assert isinstance(clf, SiteAwareClassifier)
    return clf


def _crawled() -> SiteAwareClassifier:
    """A classifier that met three pages of the structure of each of the 15 fixture pages on
    one site."""
    clf = _classifier()
    for copy in range(3):
        for kind in TYPES:
            for number in (1, 2, 3):
                clf.classify(_summary(kind, number, copy), site="so.example")
    return clf


def test_export_takes_the_templates_out_and_adoption_puts_them_back() -> None:
    clf = _crawled()
    (saved,) = clf.export_sites()
    model = clf.site_model("so.example")
    assert saved.site == "so.example" and saved.pages == model.pages - 2 == 45
    assert saved.kept == list(model.recent)
    template = clf.template_features("question")[0]
    feature = next(iter(template))
    assert saved.df[feature] == model.df[feature] - sum(
        feature in page for page in clf.template_features("question")
    )
    fresh = _classifier()
    fresh.adopt_saved([saved], weight=1.0)
    assert fresh.sites() == []  # adopted at the site's first page, not before
    adopted = fresh.site_model("so.example")
    assert adopted.pages == model.pages and adopted.df == model.df


def test_a_recurring_crawl_decides_its_first_page_on_the_site_it_saw() -> None:
    first = _crawled()
    text = site_models_text(first.export_sites(), OPTIONS)
    saved = parse_site_models(text, OPTIONS)
    assert saved is not None
    second = _classifier()
    second.adopt_saved(saved)
    verdict = second.classify(_summary("users", 1), site="so.example")
    # without the saved site the first page is decided on the templates alone ("prior")
    assert _classifier().classify(_summary("users", 1), site="so.example").threshold_source == (
        "prior"
    )
    assert verdict.threshold_source == "distribution" and verdict.label is None
    right = second.classify(_summary("question", 3), site="so.example")
    assert right.label == "question"
    model = second.site_model("so.example")
    assert model.pages == round(45 * SAVED_SITE_WEIGHT) + 2 + 2  # saved, templates, 2 new pages


def test_sites_not_met_are_saved_again_unchanged() -> None:
    other = SavedSite(
        "elsewhere.example", 40, {"ab": 40, "cd": 3}, [pack_features(frozenset({"ab"}))]
    )
    clf = _crawled()
    clf.adopt_saved([other])
    exported = {s.site: s for s in clf.export_sites()}
    assert exported["elsewhere.example"] == other
    assert "so.example" in exported


def test_the_file_keeps_the_sites_with_most_pages_each_bounded() -> None:
    kept = [pack_features(frozenset({"ab", "cd"}))] * 150
    big = SavedSite("big", 4000, {"ab": 4000, "cd": 2000, "ef": 1}, kept)
    small = [SavedSite(f"s{i}", 10 + i, {"ab": 5}, kept[:5]) for i in range(5)]
    text = site_models_text([*small, big], OPTIONS, max_sites=3, max_pages=1000, max_kept=100)
    sites = parse_site_models(text, OPTIONS)
    assert sites is not None and [s.site for s in sites] == ["big", "s4", "s3"]
    scaled = sites[0]
    assert scaled.pages == 1000 and scaled.df == {"ab": 1000, "cd": 500}  # "ef" rounds away
    assert len(scaled.kept) == 100
    assert text.isascii()  # feature codes may be lone surrogates: escaped


def test_other_summary_options_are_not_adopted() -> None:
    text = site_models_text(_crawled().export_sites(), OPTIONS)
    assert parse_site_models(text, SummaryOptions(max_nodes=100)) is None


def _valid() -> dict[str, Any]:
    return json.loads(site_models_text(_crawled().export_sites(), OPTIONS))


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d.update(format="pagesim-wrapper"),
        lambda d: d.update(version=99),
        lambda d: d.update(sites={"a": 1}),
        lambda d: d["sites"][0].update(pages=-1),
        lambda d: d["sites"][0].update(pages=2.5),
        lambda d: d["sites"][0].update(site=7),
        lambda d: d["sites"][0]["df"].update(abc=1),
        lambda d: d["sites"][0]["df"].update(ab=10**9),
        lambda d: d["sites"][0]["df"].update(ab="1"),
        lambda d: d["sites"][0]["kept"].append("ab"),
        lambda d: d["sites"][0]["kept"].append(""),
        lambda d: d["sites"].append(dict(d["sites"][0])),
    ],
)
def test_malformed_files_are_refused(spoil: Any) -> None:
    document = _valid()
    spoil(document)
    text = json.dumps(document)
    with pytest.raises((StateFormatError, ValueError)):
        parse_site_models(text, OPTIONS)


def test_deep_nesting_is_refused_and_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "sites.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CorruptStateError):
        read_state(path, lambda text: parse_site_models(text, OPTIONS))
    assert (tmp_path / "sites.json.corrupt").exists() and not path.exists()


# --------------------------------------------------------------------------------------------
# In a crawl


def _templates(site: Any) -> dict[str, list[str]]:
    return {"question": [site.url(f"/so/question/{n:02d}.html") for n in (1, 2)]}


def _crawl(tmp_path: Path, sites_file: Path, site: Any) -> dict[str, Any]:
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_METHOD": "site",
            "PAGESIM_TEMPLATES": _templates(site),
            "PAGESIM_SITE_MODELS_FILE": str(sites_file),
        },
        pages(site),
    )
    assert result["finish_reason"] == "finished"
    return result


def test_a_crawl_saves_its_site_models_and_the_next_one_starts_from_them(tmp_path: Path) -> None:
    sites_file = tmp_path / "state" / "sites.json"
    for site in serve(so_routes()):  # one server for both crawls: one site, host and port
        first = _crawl(tmp_path, sites_file, site)
        assert pagesim_stats(first)["pagesim/site_models/saved"] == 1
        (saved,) = json.loads(sites_file.read_text())["sites"]
        assert saved["site"] == urlsplit(site.url("/")).netloc
        assert saved["pages"] == len(first["seen"]) == 15
        second = _crawl(tmp_path, sites_file, site)
    stats = pagesim_stats(second)
    assert stats["pagesim/site_models/loaded"] == 1
    assert not [r for r in second["log"] if r["level"] == "ERROR"]
    (again,) = json.loads(sites_file.read_text())["sites"]
    # the same 15 pages met again are counted once: a repeat crawl does not grow the file
    assert again["pages"] == 15


def test_a_corrupt_site_models_file_is_moved_aside_and_the_crawl_goes_on(tmp_path: Path) -> None:
    sites_file = tmp_path / "sites.json"
    sites_file.write_text('{"format": "pagesim-site-models", "version": 1, "sites": 5}')
    for site in serve(so_routes()):
        result = _crawl(tmp_path, sites_file, site)
    assert len(result["seen"]) == 15
    stats = pagesim_stats(result)
    assert stats["pagesim/state/corrupt"] == 1
    errors = [r["message"] for r in result["log"] if r["level"] == "ERROR"]
    assert len(errors) == 1 and str(sites_file) in errors[0], errors
    assert (tmp_path / "sites.json.corrupt").exists()
    assert json.loads(sites_file.read_text())["sites"][0]["pages"] == 15  # written anew


def test_a_crawl_with_site_models_off_neither_reads_nor_writes_them(tmp_path: Path) -> None:
    sites_file = tmp_path / "sites.json"
    for site in serve(so_routes()):
        run_crawl(
            tmp_path,
            {
                **ADDON,
                "PAGESIM_METHOD": "site",
                "PAGESIM_SITE_MODELS_FILE": str(sites_file),
                "PAGESIM_SITE_MODELS_SAVE": False,
                "PAGESIM_TEMPLATES": _templates(site),
            },
            pages(site),
        )
    assert not sites_file.exists()
