"""A label's core: the node pairs all of its templates share, which a page under the cut may
still hold (``siteaware.holds_the_core``), on real sites from ../shared/data."""

from __future__ import annotations

import csv
import json

import pytest

from pagesim_scrapy.cli import main
from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.explain import explain_page
from pagesim_scrapy.core.siteaware import DOMINANT_SHARE
from pagesim_scrapy.core.summary import PageSummary, SummaryOptions, summarize
from tests.conftest import shared_data, without_body_class

OPTIONS = SummaryOptions(max_nodes=300)


def _site(name: str) -> list[tuple[str, PageSummary]]:
    """(page type, summary) of a real site's pages by path; the wiki's <body> class, which
    names the page type, removed (as the data's README says)."""
    folder = shared_data("site_page_types", name)
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: row["path"])
    pages: list[tuple[str, PageSummary]] = []
    for row in rows:
        data = (folder / row["path"]).read_bytes()
        if name == "awesomewm_wiki":
            data = without_body_class(data)
        pages.append((row["page_type"], summarize(data, OPTIONS)))
    return pages


def _one_class(name: str, label: str, templates: int = 2):
    pages = _site(name)
    mine = [s for t, s in pages if t == label][:templates]
    tests = [(t, s) for t, s in pages if not any(s is x for x in mine)]
    clf = build_classifier({label: mine}, summary_options=OPTIONS)
    verdicts = clf.classify_all([s for _, s in tests], site=name)
    return clf, tests, verdicts


@pytest.mark.parametrize(("label", "cut_keeps_at_most"), [("template", 2), ("user_talk", 5)])
def test_a_free_form_type_s_pages_under_the_cut_are_given_the_label_by_its_core(
    label, cut_keeps_at_most
):
    """The wiki's template and user-talk pages differ from their two templates in content as
    much as other pages do: the cut keeps only the few nearest a template (2 of 10, 5 of 12).
    Every other page of the type holds what both templates share, and no page of another type
    does."""
    clf, tests, verdicts = _one_class("awesomewm_wiki", label)
    truth = [t == label for t, _ in tests]
    by_cut = [v.label == label and not v.core for v in verdicts]
    by_core = [v.label == label and v.core for v in verdicts]
    assert sum(by_cut) <= cut_keeps_at_most
    assert all(v.score < v.threshold for v, core in zip(verdicts, by_core) if core)
    assert sum(by_core) >= 6
    # every page of the type gets the label, save at most one, and no page of another type
    assert sum(t and (a or b) for t, a, b in zip(truth, by_cut, by_core)) >= sum(truth) - 1
    assert not any(b and not t for t, b in zip(truth, by_core))
    core, share = clf.core(label, "awesomewm_wiki")
    assert core and share < DOMINANT_SHARE
    described = clf.describe("awesomewm_wiki")["labels"][label]
    assert described["core_pairs"] == len(core)
    assert described["core_share"] == pytest.approx(share, abs=1e-4)
    # explain says that the core gave the label, and how much of it the page holds
    index = by_core.index(True)
    explanation = explain_page(clf, tests[index][1], site="awesomewm_wiki")
    assert explanation.verdict.label == label and explanation.verdict.core
    text = explanation.render()
    assert f"holds {len(core)} of the {len(core)} pairs" in text
    assert "given the label for holding them all" in text
    assert explanation.as_dict()["core"]["on_page"] == len(core)


def test_a_core_that_the_site_s_layout_is_gives_nothing():
    """On Python's docs the tutorial's two templates share only the site's one layout: most of
    the site's pages hold that core, and it gives no page the label."""
    clf, tests, verdicts = _one_class("cpython_docs", "tutorial")
    core, share = clf.core("tutorial", "cpython_docs")
    assert core and share >= DOMINANT_SHARE
    holding = [v for (_, s), v in zip(tests, verdicts) if core <= clf.features(s)]
    assert len(holding) >= len(tests) / 2
    assert not any(v.core for v in verdicts)
    assert sum(v.label == "tutorial" for v in verdicts) < len(holding) / 4


def test_one_template_has_no_core_and_a_young_site_none_yet():
    """A single template is not a core (a page holding all of one example is not of its type
    often enough), and on a site with too few pages for a cut of its own the prior decides
    alone."""
    clf, _, verdicts = _one_class("awesomewm_wiki", "template", templates=1)
    assert clf.core("template", "awesomewm_wiki") == (frozenset(), 0.0)
    assert not any(v.core for v in verdicts)
    pages = _site("awesomewm_wiki")
    mine = [s for t, s in pages if t == "template"]
    young = build_classifier({"template": mine[:2]}, summary_options=OPTIONS)
    for summary in mine[2:]:
        verdict = young.classify(summary, site="w")
        assert verdict.threshold_source == "prior" and not verdict.core


def test_the_classify_command_writes_whether_the_core_gave_the_label(tmp_path, capsys):
    """`classify` over a folder of the wiki's template and talk pages: each line says
    ``core``, and the core's pages are the template type's."""
    folder = shared_data("site_page_types", "awesomewm_wiki")
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: row["path"])
    site = tmp_path / "site"
    site.mkdir()
    kinds = {}
    for index, row in enumerate(rows):
        if row["page_type"] in ("template", "talk", "user", "article", "user_talk"):
            name = f"{index:03d}.html"
            (site / name).write_bytes(without_body_class((folder / row["path"]).read_bytes()))
            kinds[name] = row["page_type"]
    templates = sorted(name for name, kind in kinds.items() if kind == "template")[:2]
    out = tmp_path / "verdicts.jsonl"
    args = ["classify", "--no-progress", "-o", str(out)]
    for name in templates:
        args += ["--template", f"template={site / name}"]
    assert main([*args, str(site)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert all("core" in line for line in lines)
    by_core = [line for line in lines if line["core"]]
    assert by_core, "no page was given the label by its core"
    for line in by_core:
        name = line["path"].rsplit("/", 1)[-1]
        assert kinds[name] == "template" and line["label"] == "template"
        assert line["score"] < line["threshold"]
