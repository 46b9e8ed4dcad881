"""Crawl-time discovery (OnlineDiscovery) and the representatives file.

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause).
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from pagesim_scrapy.core.cluster import (
    OnlineDiscovery,
    RepresentativesError,
    cluster_pages,
    read_representatives,
)
from pagesim_scrapy.core.cluster.persist import summary_from_dict, summary_to_dict
from pagesim_scrapy.core.pageio import iter_page_paths
from pagesim_scrapy.core.similarity import similarity
from pagesim_scrapy.core.summary import SummaryOptions, summarize
from tests.conftest import FIXTURES

STACKOVERFLOW = FIXTURES / "stackoverflow"


@pytest.fixture(scope="module")
def pages() -> list[tuple[str, str, object, str]]:
    """(type, url, summary, html) of the 15 fixture pages, types interleaved."""
    out = []
    for path in iter_page_paths([STACKOVERFLOW]):
        html = path.read_text(encoding="utf-8")
        url = f"https://stackoverflow.example/{path.parent.name}/{path.stem}"
        out.append((path.parent.name, url, summarize(html, source=url), html))
    # interleave the types, as a crawl would meet them
    return sorted(out, key=lambda row: (row[1].rsplit("/", 1)[1], row[0]))


def partition(labels: list[str | None]) -> set[frozenset[int]]:
    groups: dict[str | None, set[int]] = defaultdict(set)
    for i, label in enumerate(labels):
        groups[label].add(i)
    return {frozenset(g) for g in groups.values()}


def test_assigns_types_online(pages) -> None:
    discovery = OnlineDiscovery()
    results = [discovery.assign(summary, source=url) for _, url, summary, _ in pages]
    labels = [label for label, _, _ in results]
    truth = [kind for kind, _, _, _ in pages]
    assert partition(labels) == partition(truth)
    assert len(discovery) == 5
    new = [is_new for _, _, is_new in results]
    assert sum(new) == 5
    first_of_type = [truth.index(kind) == i for i, kind in enumerate(truth)]
    assert new == first_of_type
    assert sorted(set(labels)) == [f"cluster-{n}" for n in range(1, 6)]
    for _, score, is_new in results:
        assert (score == 1.0) if is_new else (0.6 <= score <= 1.0)
    assert discovery.counts() == {label: 3 for label in set(labels)}
    described = discovery.describe()
    assert described["pages"] == 15 and described["unassigned"] == 0


def test_bounded_number_of_types(pages) -> None:
    discovery = OnlineDiscovery(max_clusters=2)
    results = [discovery.assign(summary, source=url) for _, url, summary, _ in pages]
    labels = {label for label, _, _ in results}
    assert labels - {None} == {"cluster-1", "cluster-2"}
    assert len(discovery) == 2
    unassigned = [r for r in results if r[0] is None]
    assert len(unassigned) == 9 == discovery.unassigned
    assert all(not is_new and score < 0.6 for _, score, is_new in unassigned)


def test_save_and_load_continue_the_same_types(pages, tmp_path: Path) -> None:
    discovery = OnlineDiscovery()
    first = [discovery.assign(s, source=u, html=h)[0] for _, u, s, h in pages[:8]]
    path = tmp_path / "sub" / "types.json"
    discovery.save(path)
    document = json.loads(path.read_text())
    assert document["format"] == "pagesim-discovery" and document["version"] == 1
    assert all("html" in c and "summary" in c for c in document["clusters"])

    loaded = OnlineDiscovery.load(path)
    assert loaded.threshold == discovery.threshold and loaded.method == discovery.method
    assert loaded.counts() == discovery.counts()
    again = [loaded.assign(s, source=u)[0] for _, u, s, _ in pages[:8]]
    assert again == first  # the same pages get the same labels, no new types
    assert len(loaded) == len(discovery)
    rest = [loaded.assign(s, source=u) for _, u, s, _ in pages[8:]]
    fresh = sorted(label for label, _, is_new in rest if is_new)
    known = max(int(label.rsplit("-", 1)[1]) for label in first)
    assert all(int(label.rsplit("-", 1)[1]) > known for label in fresh)


def test_saved_piece_by_piece_as_one_document(pages, tmp_path: Path) -> None:
    """The file is written one type at a time (a crawl's 200 types with their HTML took
    4.6 times the file's size at once); its text is the one document's, byte for byte."""
    discovery = OnlineDiscovery()
    for _, url, summary, html in pages:
        discovery.assign(summary, source=url, html=html)
    path = tmp_path / "types.json"
    discovery.save(path)
    whole = {
        "format": "pagesim-discovery",
        "version": 1,
        "settings": discovery.settings(),
        "summary_options": json.loads(path.read_text())["summary_options"],
        "clusters": [rep.to_dict() for rep in discovery.representatives()],
    }
    assert len(whole["clusters"]) == 5
    assert path.read_text() == json.dumps(whole, ensure_ascii=True)
    discovery.save(path, include_html=False)
    for cluster in whole["clusters"]:
        del cluster["html"]
    assert path.read_text() == json.dumps(whole, ensure_ascii=True)


def test_load_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(RepresentativesError):
        OnlineDiscovery.load(bad)
    bad.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(RepresentativesError, match="not a pagesim-discovery"):
        OnlineDiscovery.load(bad)
    bad.write_text(json.dumps({"format": "pagesim-discovery", "version": 99}))
    with pytest.raises(RepresentativesError, match="version"):
        OnlineDiscovery.load(bad)
    with pytest.raises(RepresentativesError):
        OnlineDiscovery.load(tmp_path / "missing.json")


def test_broken_entries_are_skipped(pages, tmp_path: Path, caplog) -> None:
    discovery = OnlineDiscovery()
    for _, url, summary, _ in pages[:5]:
        discovery.assign(summary, source=url)
    path = tmp_path / "types.json"
    discovery.save(path)
    document = json.loads(path.read_text())
    document["clusters"][0]["summary"]["parent_bfs"][3] = 99999  # not breadth-first
    del document["clusters"][1]["summary"]
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        loaded = OnlineDiscovery.load(path)
    assert len(loaded) == 3
    assert caplog.text.count("skipping representative") == 2


def test_other_summary_options_rebuild_from_html(pages, tmp_path: Path, caplog) -> None:
    discovery = OnlineDiscovery()
    for kind, url, summary, html in pages[:5]:
        discovery.assign(summary, source=url, html=html if kind in ("jobs", "tags") else None)
    path = tmp_path / "types.json"
    discovery.save(path)
    with_html = 2
    options = SummaryOptions(max_depth=6)
    with caplog.at_level(logging.WARNING):
        reps, _, file_options = read_representatives(path, options)
    assert file_options != options
    assert len(reps) == with_html
    assert all(rep.summary.options == options and rep.summary.depth <= 7 for rep in reps)
    assert caplog.text.count("no HTML is stored") == 3
    loaded = OnlineDiscovery.load(path, options=options)
    with pytest.raises(ValueError, match="options"):
        loaded.assign(pages[0][2])


def test_summary_round_trip(pages) -> None:
    for _, _, summary, _ in pages[:5]:
        data = json.loads(json.dumps(summary_to_dict(summary)))
        rebuilt = summary_from_dict(data)
        assert rebuilt.bfs == summary.bfs
        assert rebuilt.parent_bfs == summary.parent_bfs
        assert rebuilt.tags == summary.tags and rebuilt.classes == summary.classes
        assert rebuilt.title == summary.title and rebuilt.source == summary.source
        for method in ("lcs", "combined", "layers"):
            assert similarity(rebuilt, pages[7][2], method) == similarity(
                summary, pages[7][2], method
            )


def test_templates_snippet_is_python(pages) -> None:
    discovery = OnlineDiscovery(examples=2)
    for _, url, summary, _ in pages:
        discovery.assign(summary, source=url)
    snippet = discovery.templates_snippet()
    namespace: dict[str, object] = {}
    exec(snippet, namespace)
    templates = namespace["PAGESIM_TEMPLATES"]
    assert isinstance(templates, dict) and len(templates) == 5
    for label, sources in templates.items():
        assert label.startswith("cluster-") and len(sources) == 2
        kinds = {source.split("/")[3] for source in sources}
        assert len(kinds) == 1  # examples of one type are pages of that type


def test_concurrent_assignments(pages) -> None:
    discovery = OnlineDiscovery()
    results: dict[int, list[tuple[int, str | None]]] = defaultdict(list)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        order = list(range(len(pages))) * 4
        rng.shuffle(order)
        try:
            for i in order:
                label, _, _ = discovery.assign(pages[i][2], source=pages[i][1])
                results[seed].append((i, label))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert discovery.pages == 4 * 4 * len(pages)
    assert sum(discovery.counts().values()) == discovery.pages
    label_of: dict[int, set[str | None]] = defaultdict(set)
    for rows in results.values():
        for i, label in rows:
            label_of[i].add(label)
    # every page got one label throughout, and the labels split the pages by type
    assert all(len(labels) == 1 for labels in label_of.values())
    final = [next(iter(label_of[i])) for i in range(len(pages))]
    assert partition(final) == partition([kind for kind, _, _, _ in pages])


def test_batch_clusters_seed_a_crawl(pages, tmp_path: Path) -> None:
    result = cluster_pages([summary for _, _, summary, _ in pages])
    path = tmp_path / "batch.json"
    result.save(path, html={result.clusters[0].representative: pages[0][3]})
    reps, settings, _ = read_representatives(path)
    assert [rep.label for rep in reps] == [c.label for c in result.clusters]
    assert reps[0].html is not None and reps[1].html is None
    assert settings["method"] == result.options.method
    discovery = OnlineDiscovery.load(path)
    labels = [discovery.assign(summary)[0] for _, _, summary, _ in pages]
    assert labels == result.labels()
    assert len(discovery) == 5
