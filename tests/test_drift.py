"""Layout-change alarm (issue 33): drift verdicts on real pages, the monitor, the command."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from pagesim_scrapy.cli import main
from pagesim_scrapy.core.drift import (
    CHANGED,
    TWO_LOOKS,
    UNCHANGED,
    DriftBaseline,
    DriftMonitor,
    DriftOptions,
    SiteLooks,
    baseline_text,
    compare_looks,
    parse_baseline,
)
from pagesim_scrapy.core.drift.fisher import fisher_two_sided
from pagesim_scrapy.core.site import Features

from .conftest import load_benchmark, shared_data

# the controlled theme changes live in the benchmark: one definition for both
bench = load_benchmark("eval_drift")


@pytest.fixture(scope="module")
def demo() -> dict[str, list[Path]]:
    return bench.demo_site()


def _features(path: Path, change=None) -> Features:
    data = path.read_bytes() if change is None else bench.changed_page(path, change)
    return bench.features_of(data, str(path))


def _looks(pages: dict[str, list[tuple[str, Features]]]) -> SiteLooks:
    return bench.looks_of(pages)


def _demo_split(demo, label: str, count: int = 40):
    files = sorted(demo[label])[: 2 * count]
    return bench.halves(files, random.Random(7))


def test_fisher_matches_a_hand_worked_table() -> None:
    # 5 of 5 pages before, 0 of 5 now: 2 of the C(10, 5) = 252 splits are as extreme
    assert fisher_two_sided(5, 5, 0, 5) == pytest.approx(2 / 252)
    assert fisher_two_sided(3, 6, 3, 6) == 1.0


def test_a_theme_change_is_detected_with_the_changed_part_named(demo) -> None:
    old, new = _demo_split(demo, "product", 15)
    before = _looks({"product": [(str(p), _features(p)) for p in old]})
    now = _looks({"product": [(str(p), _features(p, bench.rename_classes)) for p in new]})
    report = compare_looks("shop", "product", before, now)
    assert report.verdict == CHANGED and report.drifted
    assert report.confidence is not None and report.confidence > 0.8
    names = bench.readable_names([*old[:3], *new[:3]], bench.rename_classes)
    report.name_features(names)
    gone = " ".join(move.text for move in report.disappeared)
    came = " ".join(move.text for move in report.appeared)
    assert "price-box" in gone and "v0-" in came
    assert "price-box" in report.render() or "product-page" in report.render()


@pytest.mark.parametrize("change", ["move_block", "add_gallery", "wrap_layout"])
def test_smaller_redesigns_of_real_pages_are_detected(change: str) -> None:
    site = shared_data("site_page_types", "cc_opensource_blog")
    files = sorted(bench.labelled_csv_site(site)["author_page"])
    old, new = bench.halves(files, random.Random(3))
    transform = bench.THEME_CHANGES[change]
    before = _looks({"author_page": [(str(p), _features(p)) for p in old]})
    now = _looks({"author_page": [(str(p), _features(p, transform)) for p in new]})
    report = compare_looks("cc", "author_page", before, now)
    assert report.verdict == CHANGED, report.render()
    assert report.disappeared or report.appeared


@pytest.mark.parametrize(
    ("collection", "site", "label"),
    [
        ("site_page_types", "cc_opensource_blog", "blog_entry"),
        ("site_page_types", "android_stackexchange", "question"),
        ("site_page_types_2", "oem_forum", "forum_topic"),
    ],
)
def test_a_random_split_of_real_pages_is_not_a_change(collection, site, label) -> None:
    pages = bench.read_site({label: bench.labelled_csv_site(shared_data(collection, site))[label]})
    for seed in range(3):
        before, now = bench.split_site(pages, random.Random(seed))
        report = compare_looks(site, label, _looks(before), _looks(now))
        assert report.verdict == UNCHANGED, report.render()
        assert not report.disappeared and not report.appeared


def test_an_ab_mix_says_two_looks(demo) -> None:
    old, new = _demo_split(demo, "product", 40)
    half = len(new) // 2
    mixed = [(str(p), _features(p, bench.add_gallery)) for p in new[:half]]
    mixed += [(str(p), _features(p)) for p in new[half:]]
    before = _looks({"product": [(str(p), _features(p)) for p in old]})
    report = compare_looks("shop", "product", before, _looks({"product": mixed}))
    assert report.verdict == TWO_LOOKS, report.render()
    assert 0.3 <= report.new_look_now <= 0.7 and report.new_look_before == 0.0
    # the other way round: a variant that was on the baseline's pages is no change
    back = compare_looks("shop", "product", _looks({"product": mixed}), before)
    assert back.verdict != CHANGED


def test_no_baseline_no_verdict(demo) -> None:
    pages = [(str(p), _features(p)) for p in sorted(demo["product"])[:10]]
    report = compare_looks("shop", "product", None, _looks({"product": pages}))
    assert report.verdict is None and "no baseline" in report.reason
    monitor = DriftMonitor()
    assert all(monitor.observe("shop", "product", f, page) is None for page, f in pages)
    assert [r.verdict for r in monitor.reports()] == [None]


def test_the_monitor_reports_a_drifted_label_once_and_saves_its_look(demo) -> None:
    old, new = _demo_split(demo, "category", 12)
    monitor = DriftMonitor(first_pages=len(old))
    for page in old:  # the first pages of the crawl are the label's baseline
        assert monitor.observe("shop", "category", _features(page), str(page)) is None
    reports = [
        monitor.observe("shop", "category", _features(p, bench.wrap_layout), str(p)) for p in new
    ]
    found = [r for r in reports if r is not None]
    assert len(found) == 1 and found[0].verdict == CHANGED
    assert monitor.drifted() == found
    snapshot = monitor.snapshot()
    text = baseline_text(snapshot, bench.OPTIONS)
    again = parse_baseline(text, bench.OPTIONS)
    assert isinstance(again, DriftBaseline)
    assert again.sites["shop"].labels["category"].page_ids() == [str(p) for p in new]


def test_the_command_exit_status_says_whether_a_look_changed(demo, tmp_path, capsys) -> None:
    old, new = _demo_split(demo, "search", 8)
    for name, files, change in (("old", old, None), ("new", new, bench.rename_classes)):
        folder = tmp_path / name / "search"
        folder.mkdir(parents=True)
        for i, path in enumerate(files):
            data = path.read_bytes() if change is None else bench.changed_page(path, change)
            (folder / f"{i:02d}.html").write_bytes(data)
    assert main(["drift", str(tmp_path / "old"), str(tmp_path / "new"), "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == CHANGED and report["label"] == "search"
    assert report["disappeared"] and "?" not in report["disappeared"][0]["pair"]
    assert main(["drift", str(tmp_path / "old"), str(tmp_path / "old")]) == 0
    assert "unchanged" in capsys.readouterr().out
    shutil.rmtree(tmp_path / "new")
    assert main(["drift", str(tmp_path / "old"), str(tmp_path / "new")]) == 2


def _unlabelled_crawl(demo, label: str, change) -> tuple[SiteLooks, SiteLooks]:
    """A baseline of three labels (other pages unlabelled), and a crawl in which ``label``'s
    pages got no label (changed by ``change``, or not met at all when it is None)."""
    site = {k: [(str(p), _features(p)) for p in sorted(v)[:60]] for k, v in demo.items()}
    before, now = bench.split_site(site, random.Random(3))
    labels = ["product", "category", "search"]
    crawl = bench.unlabel({k: v for k, v in now.items() if k != label}, labels)
    if change is not None:
        pages = [(p, _features(Path(p), change)) for p, _ in now[label]]
        crawl[bench.UNLABELLED] = crawl.get(bench.UNLABELLED, []) + pages
    return _looks(bench.unlabel(before, labels)), _looks(crawl)


def test_a_redesign_that_leaves_a_label_without_pages_is_detected(demo) -> None:
    before, now = _unlabelled_crawl(demo, "product", bench.rename_classes)
    report = compare_looks("shop", "product", before, now)
    assert report.verdict == CHANGED, report.render()
    assert report.share_now == 0.0 and report.share_before > 0.3 and report.stand_ins >= 5
    assert "share of the site's pages fell" in report.reason
    assert report.disappeared and report.appeared and report.examples_now


def test_a_label_the_crawl_did_not_meet_is_no_change(demo) -> None:
    before, now = _unlabelled_crawl(demo, "product", None)
    assert compare_looks("shop", "product", before, now).verdict is None
    monitor = DriftMonitor(_baseline_of(before))
    for key, look in now.labels.items():
        for features, page_id in zip(look.features(), look.page_ids()):
            assert monitor.observe("shop", key or None, features, page_id) is None
    assert all(report.label != "product" for report in monitor.reports())


def test_the_monitor_reports_a_collapse_from_unlabelled_pages(demo) -> None:
    before, now = _unlabelled_crawl(demo, "product", bench.rename_classes)
    monitor = DriftMonitor(_baseline_of(before))
    reports = [
        monitor.observe("shop", key or None, features, page_id)
        for key, look in now.labels.items()
        for features, page_id in zip(look.features(), look.page_ids())
    ]
    found = [r for r in reports if r is not None]
    assert [(r.label, r.verdict) for r in found] == [("product", CHANGED)]
    assert any(r.label == "product" and r.verdict == CHANGED for r in monitor.reports())


def _baseline_of(looks: SiteLooks) -> DriftBaseline:
    baseline = DriftBaseline()
    baseline.sites["shop"] = looks
    return baseline


def test_a_collapsed_label_with_no_page_without_a_label_is_no_verdict(demo) -> None:
    """A crawl whose every page got a label, none of them the missing one's: nothing stands in
    for the label, so there is no verdict (this raised KeyError in a demo crawl)."""
    before, now = _unlabelled_crawl(demo, "product", None)
    labelled_only = SiteLooks(now.max_kept, {k: v for k, v in now.labels.items() if k})
    assert not any(not key for key in labelled_only.labels)
    assert compare_looks("shop", "product", before, labelled_only).verdict is None


def test_a_type_no_earlier_crawl_met_does_not_stand_in_for_a_missing_label(demo) -> None:
    """A crawl that meets none of the label's pages but a page type the baseline never met:
    those pages are nearest the label's only because nothing else is nearer; their tag
    skeleton is not the label's, so they do not stand in for it (a redesign's does)."""
    site = {k: [(str(p), _features(p)) for p in sorted(v)[:60]] for k, v in demo.items()}
    before, now = bench.split_site(site, random.Random(5))
    labels = ["product", "category", "search"]
    before.pop("help")
    crawl = bench.unlabel({k: v for k, v in now.items() if k != "search"}, labels)
    baseline = _looks(bench.unlabel(before, labels))
    report = compare_looks("shop", "search", baseline, _looks(crawl))
    assert report.verdict != CHANGED, report.render()
    redesigned, redesign = _unlabelled_crawl(demo, "search", bench.add_gallery)
    assert compare_looks("shop", "search", redesigned, redesign).verdict == CHANGED


def test_the_pages_tag_skeletons_are_saved_with_the_looks(demo) -> None:
    before, _ = _unlabelled_crawl(demo, "product", None)
    options = bench.OPTIONS
    text = baseline_text(_baseline_of(before), options)
    again = parse_baseline(text, options)
    assert again is not None
    look = again.sites["shop"].labels["product"]
    assert all(look.skeleton_features()) and len(look.skeletons) == len(look.kept)
    # a file saved before the skeletons were kept reads with none known
    document = json.loads(text)
    for entry in document["sites"]:
        for saved in entry["labels"].values():
            saved.pop("skeletons", None)
    older = parse_baseline(json.dumps(document), options)
    assert older is not None
    assert not any(older.sites["shop"].labels["product"].skeleton_features())


def test_the_saved_looks_keep_the_sites_met_most_recently(demo) -> None:
    # each crawl meets one site; the saved looks hold it and the sites the latest earlier
    # crawls met, at most max_sites: the drift file does not grow with every site crawled
    options = DriftOptions(max_sites=2)
    pages = sorted(demo["category"])[:6]
    saved: DriftBaseline | None = None
    for site in ("a.example", "b.example", "c.example", "b.example"):
        monitor = DriftMonitor(saved, options)
        for page in pages:
            monitor.observe(site, "category", _features(page), str(page))
        text = baseline_text(monitor.snapshot(), bench.OPTIONS)
        saved = parse_baseline(text, bench.OPTIONS)
        assert saved is not None
    assert list(saved.sites) == ["b.example", "c.example"]
    assert saved.sites["c.example"].labels["category"].page_ids() == [str(p) for p in pages]
    with pytest.raises(ValueError, match="max_sites"):
        DriftOptions(max_sites=0)
