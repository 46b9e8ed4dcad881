"""Induction's CPU per page item, as the pipeline spends it (issue 14, item 3).

Run: ``python benchmarks/bench_induction_cpu.py [--pages 200] [--learn 20] [--repeat 3]``.

On page types of ../shared/data/site_page_types (of 20 to 40 pages each, about ``--pages``
pages in all, the largest types of each site in turn), the pipeline's two steps in its
worker thread are timed on real pages:

* learning: parse a page (with its address) and add it to the label's wrapper, for the first
  ``--learn`` pages, then compile the wrapper once (its share is spread over those pages);
* extraction with a ready wrapper: parse each page of the type and extract its record.

Then, for large pages, ``--products`` shop pages of ../shared/data/zyte_product_extraction_benchmark
(one page per site): a wrapper learned from each page alone, then the page parsed again and
extracted.

Prints the median CPU milliseconds per page of each step (over ``--repeat`` runs), the parse's
share, and a digest of every wrapper's JSON and every record, so that two versions of the code
can be checked to give the same wrappers and records. ``--profile`` prints cProfile's top
functions of the extraction step instead.

``--pipeline`` times instead the induction pipeline's worker steps for a label's held items,
as a crawl gives them: each type's first ``--learn`` pages in a shuffled arrival order go
through the pipeline's learning step (its ``_take``, or ``_learn`` where there is none), then
the label settles (``_relearn_locked``, as an idle crawl releases its items) and every page is
extracted with its record (``_extract_record``). Prints the worker CPU per page item and a
digest of the records, to compare two versions of the code on the same pages.

``--split`` splits the pipeline's extraction-and-record CPU per item on the demo shop's
product pages (learned from ``--learn`` of them, then every one extracted, as ``--pipeline``
does) over its steps: the total without a profiler, each step's share from cProfile's
cumulative times (the profiler's overhead spread in proportion); and, apart, the CPU of
importing the record's reader, which a crawl pays once with its first page item.

``--steps`` times apart the record steps that read the page's shared walk
(:func:`pagesim_scrapy.core.induce.dom.page_elements`) on the demo shop's product pages, in
the pipeline's order: the labelled rows on the wrapper's tree, then the body posts and the
landmarks on the record's tree; the best of ``--repeat`` runs, in CPU milliseconds per page.

``--trees`` checks whether one parse could serve both of a page's trees: the record
reader's (``lxml.html``, comments, scripts and processing instructions kept) and the
wrapper's (``lxml.etree``, those removed at parse time). On the ``--pages`` pages, the
wrapper's tree (without its JSON-LD subtree and links made absolute, which it adds after
parsing) is compared with a copy of the record's tree with the same parts removed; prints
how many are the same and the CPU of each way, per page.

``--first-read`` prints the CPU of the first structured-data read of a page with microdata
in a fresh process (what a crawl's first such page item pays once, imports included) and
which of extruct's other readers' libraries that loaded.

``--settle`` times the settle's learning pass as a crawl of the demo shop runs it: the
bottom-``--sample`` sample (smallest digests, as a full label keeps) of the demo shop's product
pages learned once in canonical order (``Learner``'s ``_learn_afresh``); prints the best of
``--repeat`` runs in CPU ms per page, the shares of the folding walk, the labelled rows and the
section lists from cProfile, the calls that count the work (pages learned, elements folded,
children aligned) and a digest of the wrapper.

``--job`` replays the main job's induction worker in process, without Scrapy's crawl around
it: the demo shop's product pages (its ``labels.json``, 170 pages) in a fixed shuffled
arrival order go through the pipeline's ``_take``, the label settles (``_relearn_locked``),
and every page item is extracted with its record (``_extract_record``), as an idle crawl
releases its held items. Prints the worker's CPU per phase (best of ``--repeat`` runs), each
step's share from one cProfile run (the profiler's overhead spread in proportion), and a
digest of the records. The pages get the same ``file:///demo_site/...`` URLs in every
checkout, so the digest of two checkouts can be compared.

``--drops`` asks what a structural cut of the fields the item record throws away could
save, on the ``--job`` replay: for each of the wrapper's fields, how often the item record
kept it or dropped it (as a repeat, as chrome) and the item record's CPU on it; which fields
no page kept, and how many of those a verdict on the field's name alone drops (the only
drops that do not read the page's value); then the ceiling of such a cut, in ``--repeat``
alternating runs: the replay as it is, and with the fields every page dropped neither read
by the extraction (their lists' groups) nor checked by the item record, told in advance
(an oracle: a crawl cannot know them), each run's extraction-and-record CPU and digest.

``--crawl`` measures instead the README's main job: the sample project's crawl of its
offline demo shop (``scrapy crawl shop``) with ``PAGESIM_INDUCTION_ENABLED`` True and False,
in ``--rounds`` alternating pairs (the order flips each round). Prints each crawl's user+sys
CPU seconds with the load average, each pair's ratio and their median, and a digest of the
induction crawls' records (sorted by URL), which must be the same in every round. Each crawl
starts from an empty state folder of its own, as a user's first run does (``--keep-state``:
from the checkout's ``.scrapy/pagesim``, which the crawls before it saved into). Compare
digests of two versions run from the same folder: the demo shop's file URLs, and so the
order the wrapper learns its pages in, depend on where the checkout is.

``--account`` accounts for the main job's CPU with induction over without (issue 31): in
``--rounds`` alternating pairs, each crawl runs under ``_crawl_accounted.py``, which counts
each thread's CPU, the garbage collector's passes (``gc.callbacks``), the induction worker's
jobs by function and the ``time_ms`` stat, and a few reactor-thread functions (the
pipeline's steps, the drift watch, the feed export); prints each row's median with and
without, the difference and its share of the whole difference, and the records' digest.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import csv
import gzip
import hashlib
import importlib
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _data import shared

from pagesim_scrapy.core.induce import Wrapper, parse_html
from pagesim_scrapy.core.induce.dom import forget_page

Page = tuple[bytes, str]


def page_types(total: int) -> list[tuple[str, list[Page]]]:
    """Page types of at least 20 pages, the largest of each site in turn (sites in name
    order), until they hold ``total`` pages: a fixed, varied sample."""
    root = shared("site_page_types")
    per_site: list[list[tuple[str, list[Page]]]] = []
    for site in sorted(p for p in root.iterdir() if (p / "labels.csv").is_file()):
        by_type: dict[str, list[Page]] = {}
        with open(site / "labels.csv", newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                path = site / row["path"]
                if path.is_file():
                    by_type.setdefault(row["page_type"], []).append((path.read_bytes(), row["url"]))
        big = [(f"{site.name}/{k}", v) for k, v in by_type.items() if len(v) >= 20]
        per_site.append(sorted(big, key=lambda kv: (-len(kv[1]), kv[0])))
    chosen: list[tuple[str, list[Page]]] = []
    count = 0
    for rank in range(max(map(len, per_site), default=0)):
        for types in per_site:
            if rank < len(types) and count < total:
                chosen.append(types[rank])
                count += len(types[rank][1])
    return chosen


def learn(pages: list[Page], label: str) -> Wrapper:
    """The pipeline's learning step for each page, then one compile."""
    wrapper = Wrapper(label=label)
    for html, url in pages:
        wrapper.add_page(parse_html(html, structured=wrapper.structured, base_url=url))
        forget_page()
    wrapper.compiled()
    return wrapper


def extract_all(wrapper: Wrapper, pages: list[Page]) -> list[object]:
    """The pipeline's extraction step for each page: parse, extract, forget the tree."""
    out = []
    for html, url in pages:
        root = parse_html(html, structured=wrapper.structured, base_url=url)
        result = wrapper.extract(root, url=url)
        forget_page()
        out.append([result.record, result.records, round(result.fit, 6), result.reason])
    return out


def product_pages(count: int) -> list[Page]:
    """The first ``count`` pages of the product benchmark (in name order), with no address."""
    folder = shared("zyte_product_extraction_benchmark", "dataset", "html")
    paths = sorted(folder.glob("*.html.gz"))[:count]
    return [(gzip.decompress(path.read_bytes()), "") for path in paths]


def bench_products(pages: list[Page], repeat: int, digest: Any) -> None:
    """One wrapper per page, learned from that page, then the page extracted."""
    learn_ms: list[float] = []
    extract_ms: list[float] = []
    for _ in range(repeat):
        start = time.process_time()
        wrappers = [learn([page], "product") for page in pages]
        learn_ms.append((time.process_time() - start) * 1000 / len(pages))
        start = time.process_time()
        records = [extract_all(w, [page])[0] for w, page in zip(wrappers, pages)]
        extract_ms.append((time.process_time() - start) * 1000 / len(pages))
    for wrapper in wrappers:
        digest.update(wrapper.to_json().encode())
    digest.update(json.dumps(records, sort_keys=True, default=str).encode())
    size = statistics.median(len(html) for html, _ in pages) / 1024
    print(f"products: {len(pages)} pages, median {size:.0f} KB")
    print(f"  learning (parse + add_page + compile): {statistics.median(learn_ms):.1f} ms/page")
    print(f"  extraction (parse + extract):          {statistics.median(extract_ms):.1f} ms/page")


def bench_pipeline(types: list[tuple[str, list[Page]]], learn_pages: int, repeat: int) -> None:
    """The pipeline's worker steps for held items (see the module's docstring)."""
    import logging
    import random

    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    logging.disable(logging.WARNING)
    learning: list[float] = []
    extraction: list[float] = []
    digest = hashlib.sha256()
    items = 0
    for _ in range(repeat):
        digest = hashlib.sha256()
        items = 0
        learn_s = extract_s = 0.0
        for label, pages in types:
            order = [(html.decode("utf-8", "replace"), url) for html, url in pages[:learn_pages]]
            random.Random(label).shuffle(order)
            crawler = get_crawler(settings_dict=NO_STORE)
            pipeline = TemplateInductionPipeline.from_crawler(crawler)
            state = pipeline._label(label)
            step = getattr(pipeline, "_take", pipeline._learn)
            start = time.process_time()
            for html, url in order:
                step(state, html, url)
            pipeline._relearn_locked(state)
            learn_s += time.process_time() - start
            start = time.process_time()
            records = []
            for html, url in order:
                result, composed = pipeline._extract_record(state, html, html, url)
                records.append([composed.record, result.records, round(result.fit, 6)])
            extract_s += time.process_time() - start
            items += len(order)
            digest.update(json.dumps(records, sort_keys=True, default=str).encode())
        learning.append(learn_s * 1000 / items)
        extraction.append(extract_s * 1000 / items)
    print(f"pipeline learning and settling: {statistics.median(learning):.1f} ms/item")
    print(f"pipeline extraction and record: {statistics.median(extraction):.1f} ms/item")
    print(f"  {items} items, load average {os.getloadavg()[0]:.1f}")
    print(f"digest of records: {digest.hexdigest()[:16]}")


#: The pipeline's wrapper store, an empty folder: a stored wrapper of a label (the checkout's
#: ``.scrapy/pagesim/wrappers``, which a crawl of the sample project saves) would otherwise
#: stand in for the one the benchmark learns.
_EMPTY_STORE = tempfile.TemporaryDirectory(prefix="pagesim-bench-")
NO_STORE = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_DIR": _EMPTY_STORE.name}


#: The record path's steps: (file of the function, its name) -> the step's name.
STEPS = {
    ("induce/dom.py", "parse_html"): "wrapper's parse",
    ("induction/records.py", "labelled_rows"): "labelled rows",
    ("induction/learning.py", "extract"): "wrapper's extraction",
    ("record/read.py", "read_structured"): "record's parse and structured data",
    ("record/posts.py", "body_posts"): "body posts",
    ("record/bodyvariants.py", "body_variants"): "body variants",
    ("record/bodycrumbs.py", "body_breadcrumbs"): "body breadcrumbs",
    ("record/bodyfields.py", "body_fields"): "body fields",
    ("record/naming.py", "observe"): "body naming: observe",
    ("record/naming.py", "fill"): "body naming: fill",
    ("record/landmarks.py", "landmark_texts"): "landmarks",
    ("record/item.py", "item_record"): "item record",
}


def bench_split(learn_pages: int) -> None:
    """The extraction-and-record CPU per item on the demo shop's product pages, by step."""
    import logging

    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    # the record's structured-data reader loads with a crawl's first page item: its import is
    # printed on its own, no page's cost
    start = time.process_time()
    importlib.import_module("pagesim_scrapy.core.record.build")
    reader_import_ms = (time.process_time() - start) * 1000
    logging.disable(logging.WARNING)
    pages = demo_products()

    def run(profile: cProfile.Profile | None) -> float:
        pipeline = TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=NO_STORE))
        state = pipeline._label("product")
        for html, url in pages[:learn_pages]:
            pipeline._take(state, html, url)
        pipeline._relearn_locked(state)
        start = time.process_time()
        if profile is not None:
            profile.enable()
        for html, url in pages:
            pipeline._extract_record(state, html, html, url)
        if profile is not None:
            profile.disable()
        return (time.process_time() - start) * 1000 / len(pages)

    total = min(run(None) for _ in range(3))
    profile = cProfile.Profile(time.process_time)  # CPU time, as the total
    profiled = run(profile)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    print(f"{len(pages)} product pages: extraction and record {total:.1f} ms/item")
    print(f"  (once per crawl: the record reader's import {reader_import_ms:.0f} ms)")
    for (path, _, name), row in sorted(stats.items(), key=lambda kv: -kv[1][3]):
        step = next((s for (f, n), s in STEPS.items() if path.endswith(f) and n == name), None)
        if step is not None:
            print(f"  {step}: {row[3] * 1000 / len(pages) * total / profiled:.1f} ms/item")
    print(f"  load average {os.getloadavg()[0]:.1f}")


#: The worker's steps --job splits its CPU over: the record path's, and the settle's.
JOB_STEPS = {
    ("induction/learning.py", "_learn_afresh"): "settle: the wrapper's learning pass",
    ("induction/naming.py", "learn_namings"): "settle: the body namings' learning",
    ("record/bodyproduct.py", "product_from_body"): "body product fields",
    **STEPS,
}

#: The demo shop's pages as --job names them: the same URL in every checkout.
JOB_BASE = "file:///demo_site/"


def job_pages(seed: int = 0) -> list[tuple[str, str]]:
    """The main job's page items: the demo shop's product pages (HTML, URL under
    :data:`JOB_BASE`), in a fixed shuffled order."""
    import random

    site = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site"
    labels = json.loads((site / "labels.json").read_text(encoding="utf-8"))
    pages = [
        ((site / path).read_text(encoding="utf-8"), JOB_BASE + path)
        for path, label in sorted(labels.items())
        if label == "product"
    ]
    random.Random(seed).shuffle(pages)
    return pages


def _job_run(
    pages: list[tuple[str, str]], profile: cProfile.Profile | None
) -> tuple[dict[str, float], str]:
    """One run of the worker's three phases: CPU ms of each, and the records' digest."""
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    pipeline = TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=NO_STORE))
    state = pipeline._label("product")
    assert state is not None
    phases: dict[str, float] = {}
    records = []
    if profile is not None:
        profile.enable()
    start = time.thread_time()
    for html, url in pages:
        pipeline._take(state, html, url)
    phases["take"] = time.thread_time() - start
    start = time.thread_time()
    pipeline._relearn_locked(state)
    phases["settle"] = time.thread_time() - start
    start = time.thread_time()
    for html, url in pages:
        result, composed = pipeline._extract_record(state, html, html, url)
        records.append([url, composed.record, result.records, round(result.fit, 6)])
    phases["extraction and record"] = time.thread_time() - start
    if profile is not None:
        profile.disable()
    text = json.dumps(sorted(records, key=lambda r: r[0]), sort_keys=True, default=str)
    return {k: v * 1000 for k, v in phases.items()}, hashlib.sha256(text.encode()).hexdigest()[:16]


def bench_job(repeat: int) -> None:
    """The main job's induction worker replayed in process (see the docstring)."""
    import logging

    importlib.import_module("pagesim_scrapy.core.record.build")  # once per crawl: apart
    logging.disable(logging.WARNING)
    pages = job_pages()
    runs = [_job_run(pages, None) for _ in range(repeat)]
    best = min(runs, key=lambda run: sum(run[0].values()))[0]
    total = sum(best.values())
    print(f"{len(pages)} page items: worker CPU {total:.0f} ms ({total / len(pages):.2f} ms/item)")
    for phase, ms in best.items():
        print(f"  {phase}: {ms:.0f} ms")
    profile = cProfile.Profile(time.thread_time)
    profiled = sum(_job_run(pages, profile)[0].values())
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for (path, _, name), row in sorted(stats.items(), key=lambda kv: -kv[1][3]):
        step = next((s for (f, n), s in JOB_STEPS.items() if path.endswith(f) and n == name), None)
        if step is not None:
            print(f"  {step}: {row[3] * 1000 * total / profiled:.0f} ms")
    print(f"  load average {os.getloadavg()[0]:.1f}")
    print(f"digest of records: {', '.join(sorted({digest for _, digest in runs}))}")


def _item_verdicts(pages: list[tuple[str, str]]) -> tuple[dict[str, Any], dict[str, float]]:
    """Per wrapper field, the item record's verdicts (kept, repeat, chrome) over the --job
    replay, and its CPU (ms) on the field."""
    from collections import Counter, defaultdict

    from pagesim_scrapy.core.record import item

    verdicts: dict[str, Counter[str]] = defaultdict(Counter)
    cpu: dict[str, float] = defaultdict(float)
    add = item._Builder.add_induced

    def counted(self: Any, name: str, value: Any, page_url: str | None) -> None:
        size, before = len(self.record), dict(self.dropped)
        start = time.thread_time()
        add(self, name, value, page_url)
        cpu[name] += (time.thread_time() - start) * 1000
        why = next((k for k, n in self.dropped.items() if n != before.get(k, 0)), "kept")
        verdicts[name][why if len(self.record) == size else "kept"] += 1

    item._Builder.add_induced = counted  # type: ignore[method-assign]
    try:
        _job_run(pages, None)
    finally:
        item._Builder.add_induced = add  # type: ignore[method-assign]
    return verdicts, cpu


def _without_fields(never: set[str], on: bool) -> None:
    """The extraction's lists and the item record's checks skip the ``never`` fields (``on``),
    or run as they are."""
    from pagesim_scrapy.core.induce import extract
    from pagesim_scrapy.core.record import item

    region = getattr(extract._Walk, "_full_region", extract._Walk._region)
    add = getattr(item._Builder, "_full_add", item._Builder.add_induced)
    extract._Walk._full_region = region  # type: ignore[attr-defined]
    item._Builder._full_add = add  # type: ignore[attr-defined]

    def skipped_region(self: Any, c: Any, run: Any, rec: dict[str, Any]) -> None:
        if c.field in never and c is not self.comp.main:
            self.filled += len(run.groups)
            return
        region(self, c, run, rec)

    def skipped_add(self: Any, name: str, value: Any, page_url: str | None) -> None:
        if name in never:
            self._drop("never kept")
            return
        add(self, name, value, page_url)

    extract._Walk._region = skipped_region if on else region  # type: ignore[method-assign]
    item._Builder.add_induced = skipped_add if on else add  # type: ignore[method-assign]


def bench_drops(repeat: int) -> None:
    """What the item record keeps of the wrapper's fields, and the ceiling of not reading
    the fields no page keeps (see the module's docstring)."""
    import logging

    from pagesim_scrapy.core.record.tidy import _is_control_name

    importlib.import_module("pagesim_scrapy.core.record.build")
    logging.disable(logging.WARNING)
    pages = job_pages()
    verdicts, cpu = _item_verdicts(pages)
    totals = {why: sum(c[why] for c in verdicts.values()) for why in ("kept", "repeat", "chrome")}
    # a field every page's record checked under its own name and none kept
    never = {n for n, c in verdicts.items() if not c["kept"] and sum(c.values()) == len(pages)}
    print(f"{len(pages)} page items, {len(verdicts)} wrapper fields: {totals}")
    print(
        f"  fields no page kept: {len(never)} ({sum(sum(verdicts[n].values()) for n in never)}"
        f" field values); dropped by their name alone: {sum(map(_is_control_name, never))}"
    )
    print(
        f"  item record's checks of induced fields: {sum(cpu.values()):.0f} ms, of which on "
        f"fields no page kept {sum(cpu[n] for n in never):.0f} ms"
    )
    for name in sorted(verdicts, key=lambda n: -cpu[n])[:8]:
        print(f"    {name}: {cpu[name]:.1f} ms {dict(verdicts[name])}")
    for k in range(repeat):
        for on in (k % 2 == 1, k % 2 == 0):
            _without_fields(never, on)
            phases, digest = _job_run(pages, None)
            what = "without the never-kept fields" if on else "as it is"
            print(
                f"  extraction and record {what}: {phases['extraction and record']:.0f} ms, "
                f"digest {digest} (load {os.getloadavg()[0]:.1f})"
            )
    _without_fields(never, False)


def demo_products() -> list[tuple[str, str]]:
    """The demo shop's product pages (HTML, file URL), in a fixed shuffled order."""
    import random

    folder = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site" / "item"
    pages = [(p.read_text(encoding="utf-8"), p.as_uri()) for p in sorted(folder.glob("*.html"))]
    random.Random(0).shuffle(pages)
    return pages


def bench_steps(repeat: int) -> None:
    """The record steps that share the page's walk, each timed apart (see the docstring)."""
    from pagesim_scrapy.core.induce.labels import find_rows
    from pagesim_scrapy.core.record.landmarks import landmark_texts
    from pagesim_scrapy.core.record.posts import body_posts
    from pagesim_scrapy.core.record.read import read_structured

    pages = demo_products()
    steps: dict[str, Any] = {"labelled rows": find_rows, "body posts": body_posts}
    steps["landmarks"] = landmark_texts
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeat):
        trees = [(parse_html(h, base_url=u), read_structured(h, u).root) for h, u in pages]
        spent = dict.fromkeys(steps, 0.0)
        for wrapper_tree, record_tree in trees:
            forget_page()  # a new page, as the pipeline reads it
            for name, step in steps.items():
                if name == "body posts":
                    forget_page()  # the wrapper's extraction is done with its tree
                start = time.process_time()
                step(wrapper_tree if name == "labelled rows" else record_tree)
                spent[name] += time.process_time() - start
        for name in steps:
            best[name] = min(best[name], spent[name] * 1000 / len(trees))
    print(f"{len(pages)} product pages, best of {repeat} runs:")
    for name, ms in best.items():
        print(f"  {name}: {ms:.2f} ms/page")
    print(f"  the three: {sum(best.values()):.2f} ms/page; load average {os.getloadavg()[0]:.1f}")


def bench_settle(sample: int, repeat: int) -> None:
    """The settle's one learning pass over a full label's sample (see the docstring)."""
    from pagesim_scrapy.core.induce.dom import forget_page
    from pagesim_scrapy.core.induce.wrapper import page_order_key

    def trees() -> list[Any]:
        roots = [parse_html(h, base_url=u) for h, u in demo_products()]
        roots.sort(key=lambda root: page_order_key(root)[1])  # the bottom-k sample
        return sorted(roots[:sample], key=page_order_key)  # canonical order

    def learn_all(roots: list[Any]) -> Wrapper:
        wrapper = Wrapper(label="product")
        for root in roots:
            wrapper.add_page(root)
        forget_page()
        wrapper.compiled()
        return wrapper

    best = float("inf")
    for _ in range(repeat):
        roots = trees()
        start = time.process_time()
        wrapper = learn_all(roots)
        best = min(best, time.process_time() - start)
    prof = cProfile.Profile()
    roots = trees()
    prof.enable()
    learn_all(roots)
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    calls = {fn[2]: (row[1], row[3]) for fn, row in stats.items()}
    whole = calls["learn_all"][1]
    digest = hashlib.sha256(wrapper.to_json().encode()).hexdigest()[:16]
    print(
        f"{len(roots)} pages learned once in canonical order, best of {repeat}: "
        f"{best * 1000 / len(roots):.2f} ms/page; load average {os.getloadavg()[0]:.1f}"
    )
    for name in ("_fold", "_find_rows", "find_sections"):
        print(f"  {name}: {100 * calls[name][1] / whole:.0f} % (cProfile)")
    for name in ("add_page", "_add_element", "align_template_page", "page_items"):
        print(f"  calls of {name}: {calls[name][0]}")
    print(f"  wrapper digest {digest}")


def _derived_tree(record_root: Any) -> Any:
    """The wrapper's tree made from a copy of the record's: what its parser and
    :func:`parse_html` remove, removed."""
    from lxml import etree

    from pagesim_scrapy.core.induce.dom import LEAF_TAGS, SKIP_TAGS

    top = copy.deepcopy(record_root.getroottree().getroot())
    etree.strip_tags(top, etree.Comment, etree.ProcessingInstruction)
    etree.strip_elements(top, *SKIP_TAGS, with_tail=False)
    for leaf in top.iter(*LEAF_TAGS):
        for child in list(leaf):
            leaf.remove(child)
    return top


def _nodes(root: Any) -> list[tuple[Any, ...]]:
    """What the tree's readers see of each node: tag, attributes, text and tail."""
    return [(el.tag, sorted(el.attrib.items()), el.text, el.tail) for el in root.iter()]


def bench_trees(types: list[tuple[str, list[Page]]]) -> None:
    """One parse for both trees, or two (see the module's docstring)."""
    from pagesim_scrapy.core.induce.dom import decode_html
    from pagesim_scrapy.core.record.read import as_utf8
    from pagesim_scrapy.core.record.read import parse_html as record_parse

    texts = [decode_html(html) for _, pages in types for html, _ in pages]
    spent = {"record's parse": 0.0, "wrapper's parse": 0.0, "copy of the record's": 0.0}
    same = 0
    for text in texts:
        start = time.process_time()
        record_root = record_parse(as_utf8(text))
        middle = time.process_time()
        wrapper_root = parse_html(text, structured=False)
        end = time.process_time()
        derived = _derived_tree(record_root)
        spent["copy of the record's"] += time.process_time() - end
        spent["record's parse"] += middle - start
        spent["wrapper's parse"] += end - middle
        same += _nodes(wrapper_root) == _nodes(derived)
    print(f"{len(texts)} pages: the wrapper's tree is a copy of the record's on {same}")
    for name, seconds in spent.items():
        print(f"  {name}: {seconds * 1000 / len(texts):.2f} ms/page")
    print(f"  load average {os.getloadavg()[0]:.1f}")


_FIRST_READ = """
import sys, time
from pagesim_scrapy.core.record.read import read_structured
page = ('<html><body><div itemscope itemtype="http://schema.org/Product">'
        '<span itemprop="name">Mug</span></div></body></html>')
start = time.process_time()
read_structured(page, "http://shop.test/")
spent = (time.process_time() - start) * 1000
loaded = [m for m in ("mf2py", "bs4", "pyRdfa", "rdflib") if m in sys.modules]
print(f"{spent:.0f} ms CPU; other readers' libraries loaded: {loaded}")
"""


def bench_first_read(repeat: int) -> None:
    """The first microdata read of a fresh process, ``repeat`` times (see the docstring)."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", _FIRST_READ], capture_output=True, text=True, env=env
        )
        print(f"  {done.stdout.strip() or done.stderr.strip()[-200:]}")
    print(f"  load average {os.getloadavg()[0]:.1f}")


#: Where a crawl keeps what it learned (the checkout's ``.scrapy/pagesim`` by default): each
#: benchmark crawl gets a folder of its own, so that it learns as a user's first run does
#: instead of reusing the wrappers and site models a crawl before it saved.
STATE_FILES = {
    "PAGESIM_INDUCTION_DIR": "wrappers",
    "PAGESIM_SITE_MODELS_FILE": "sites.json",
    "PAGESIM_DRIFT_FILE": "drift.json",
    "PAGESIM_DISCOVERY_FILE": "discovery.json",
}


def crawl_cpu(induction: bool, out: Path, state: Path | None = None) -> float:
    """User+sys CPU seconds of one main-job crawl (a child process), its items in ``out``;
    with ``state``, the crawl starts from (and saves into) that empty folder."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "scrapy", "crawl", "shop", "-s", "LOG_LEVEL=ERROR"]
    command += ["-s", f"PAGESIM_INDUCTION_ENABLED={induction}", "-O", str(out)]
    if state is not None:
        for name, file in STATE_FILES.items():
            command += ["-s", f"{name}={state / file}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=root / "sample_project", env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def crawl_accounted(induction: bool, out: Path, state: Path) -> dict[str, Any]:
    """One main-job crawl run by ``_crawl_accounted.py``: its CPU per thread, the garbage
    collector's, the induction worker's counted jobs (see that file); items in ``out``."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    env["PAGESIM_ACCOUNT_OUT"] = str(out.with_suffix(".account.json"))
    command = [sys.executable, str(root / "benchmarks" / "_crawl_accounted.py"), "crawl", "shop"]
    command += ["-s", "LOG_LEVEL=ERROR", "-s", f"PAGESIM_INDUCTION_ENABLED={induction}"]
    command += ["-O", str(out)]
    for name, file in STATE_FILES.items():
        command += ["-s", f"{name}={state / file}"]
    subprocess.run(command, cwd=root / "sample_project", env=env, check=True)
    report: dict[str, Any] = json.loads(out.with_suffix(".account.json").read_text())
    return report


def _account_rows(report: dict[str, Any]) -> dict[str, float]:
    """A crawl's CPU seconds split into the rows of the ``--account`` table."""
    threads = dict(report["threads"])
    worker = report.get("worker", {})
    rows = {"main thread (reactor)": threads.pop("MainThread", 0.0)}
    gc_main = sum(v for k, v in report["gc"].items() if k.startswith("MainThread/"))
    rows["  of which garbage collection"] = gc_main
    user_sys_switches = report.get("main_thread_user_sys_switches") or [0.0] * 4
    rows["  of which system CPU"] = user_sys_switches[1]
    rows["  (its context switches, voluntary, count)"] = user_sys_switches[2] / 1000
    rows["  (its context switches, forced, count)"] = user_sys_switches[3] / 1000
    for name, seconds in sorted(report.get("calls", {}).items()):
        rows[f"  of which {name}"] = seconds
    induction = threads.pop("pagesim-induction", 0.0)
    rows["induction worker thread"] = induction
    for key in sorted(worker):
        if key.startswith("job/"):
            rows[f"  job {key[4:]}"] = worker[key]
    rows["  (memory trims before jobs)"] = worker.get("trim_memory", 0.0)
    rows["  outside jobs"] = induction - worker.get("counted_jobs", 0.0)
    gc_worker = sum(v for k, v in report["gc"].items() if k.startswith("pagesim-induction/"))
    rows["  (garbage collection in jobs)"] = gc_worker
    rows["induction's time_ms stat"] = worker.get("time_ms_stat", 0.0)
    rows["other threads"] = sum(threads.values())
    rows["process (user+sys)"] = report["process"]
    rows["  not in any thread's count"] = report["process"] - sum(report["threads"].values())
    return rows


def bench_account(rounds: int) -> None:
    """Where the main job's CPU with induction goes beyond the CPU without: alternating
    pairs of accounted crawls, the median of each row over the pairs."""
    with_rows: list[dict[str, float]] = []
    without_rows: list[dict[str, float]] = []
    digests: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(rounds):
            for induction in (True, False) if index % 2 == 0 else (False, True):
                out = Path(tmp) / f"items-{index}-{induction}.jsonl"
                rows = _account_rows(
                    crawl_accounted(induction, out, Path(tmp) / f"state-{index}-{induction}")
                )
                (with_rows if induction else without_rows).append(rows)
                print(
                    f"  round {index + 1}, induction {induction}: process "
                    f"{rows['process (user+sys)']:.2f} s, main thread "
                    f"{rows['main thread (reactor)']:.2f} s, load average {os.getloadavg()[0]:.1f}"
                )
                if induction:
                    digests.add(records_digest(out))
    names = list(dict.fromkeys(name for rows in with_rows + without_rows for name in rows))

    def median(runs: list[dict[str, float]], name: str) -> float:
        return statistics.median(rows.get(name, 0.0) for rows in runs) * 1000

    diff = median(with_rows, "process (user+sys)") - median(without_rows, "process (user+sys)")
    print(
        f"\n{'CPU, median of ' + str(rounds) + ' runs':40} {'with':>8} {'without':>8} "
        f"{'more':>8} {'share':>6}"
    )
    for name in names:
        more = median(with_rows, name) - median(without_rows, name)
        print(
            f"{name:40} {median(with_rows, name):8.0f} {median(without_rows, name):8.0f} "
            f"{more:8.0f} {100 * more / diff:5.0f}%"
        )
    print(f"digest of records: {', '.join(sorted(digests))}")


def records_digest(path: Path) -> str:
    """A digest of a crawl's items' records and induction verdicts, sorted by URL (the
    checkout's own folder left out of the demo shop's file URLs: the same in any clone)."""
    root = Path(__file__).resolve().parent.parent.as_posix()
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line.replace(root, ""))
        induction = (item.get("verdict") or {}).get("induction")
        kept = [item.get("url"), item.get("record"), item.get("records"), induction]
        rows.append(json.dumps(kept, sort_keys=True, default=str))
    return hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest()[:16]


def bench_crawl(rounds: int, keep_state: bool = False) -> None:
    """The main job's CPU with induction over without, in alternating pairs; each crawl
    from an empty state folder unless ``keep_state`` (then the checkout's own)."""
    ratios: list[float] = []
    digests: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(rounds):
            cpu: dict[bool, float] = {}
            for induction in (True, False) if index % 2 == 0 else (False, True):
                out = Path(tmp) / f"items-{index}-{induction}.jsonl"
                state = None if keep_state else Path(tmp) / f"state-{index}-{induction}"
                cpu[induction] = crawl_cpu(induction, out, state)
                load = os.getloadavg()[0]
                print(
                    f"  round {index + 1}, induction {induction}: {cpu[induction]:.2f} s CPU, "
                    f"load average {load:.1f}"
                )
                if induction:
                    digests.add(records_digest(out))
            ratios.append(cpu[True] / cpu[False])
            print(f"  round {index + 1}: ratio {ratios[-1]:.2f}")
    print(
        f"main job CPU with / without induction: median ratio {statistics.median(ratios):.2f} "
        f"over {rounds} pairs"
    )
    print(f"digest of records: {', '.join(sorted(digests))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200, help="pages extracted (about)")
    parser.add_argument("--learn", type=int, default=20, help="pages learned per type")
    parser.add_argument("--repeat", type=int, default=3, help="runs; medians are printed")
    parser.add_argument("--products", type=int, default=40, help="product pages (0: none)")
    parser.add_argument("--profile", action="store_true", help="cProfile the extraction step")
    parser.add_argument(
        "--pipeline", action="store_true", help="the pipeline's worker steps for held items"
    )
    parser.add_argument(
        "--crawl", action="store_true", help="the main job's CPU with / without induction"
    )
    parser.add_argument("--rounds", type=int, default=2, help="pairs of crawls (--crawl)")
    parser.add_argument(
        "--account", action="store_true", help="the main job's CPU with induction, per thread"
    )
    parser.add_argument(
        "--keep-state",
        action="store_true",
        help="(--crawl) crawl with the checkout's saved wrappers and site models",
    )
    parser.add_argument(
        "--split", action="store_true", help="the record path's CPU per step (demo shop)"
    )
    parser.add_argument(
        "--steps", action="store_true", help="the steps sharing the page's walk (demo shop)"
    )
    parser.add_argument(
        "--first-read", action="store_true", help="the first microdata read's CPU, imports in"
    )
    parser.add_argument(
        "--trees", action="store_true", help="one parse for the record's and wrapper's trees?"
    )
    parser.add_argument("--sample", type=int, default=50, help="(--settle) pages kept")
    parser.add_argument(
        "--settle", action="store_true", help="the settle's learning pass (demo shop sample)"
    )
    parser.add_argument(
        "--job", action="store_true", help="the main job's induction worker, in process"
    )
    parser.add_argument(
        "--drops", action="store_true", help="what the item record drops, a cut's ceiling"
    )
    args = parser.parse_args()
    modes = {
        "settle": lambda: bench_settle(args.sample, max(args.repeat, 3)),
        "split": lambda: bench_split(args.learn),
        "steps": lambda: bench_steps(max(args.repeat, 5)),
        "first_read": lambda: bench_first_read(args.repeat),
        "job": lambda: bench_job(args.repeat),
        "drops": lambda: bench_drops(args.repeat),
    }
    chosen = next((name for name in modes if getattr(args, name)), None)
    if chosen is not None:
        modes[chosen]()
        return
    if args.account:
        print(f"load average {os.getloadavg()[0]:.1f}")
        bench_account(args.rounds)
        return
    if args.crawl:
        print(f"load average {os.getloadavg()[0]:.1f}")
        bench_crawl(args.rounds, args.keep_state)
        return

    types = page_types(args.pages)
    total = sum(len(p) for _, p in types)
    print(
        f"{len(types)} page types, {total} pages ({args.learn} learned per type); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    if args.pipeline:
        bench_pipeline(types, args.learn, args.repeat)
        return
    if args.trees:
        bench_trees(types)
        return
    wrappers = [learn(pages[: args.learn], label) for label, pages in types]
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for wrapper, (_, pages) in zip(wrappers, types):
            extract_all(wrapper, pages)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(35)
        return

    learn_ms: list[float] = []
    extract_ms: list[float] = []
    parse_ms: list[float] = []
    for _ in range(args.repeat):
        start = time.process_time()
        for label, pages in types:
            learn(pages[: args.learn], label)
        learn_ms.append((time.process_time() - start) * 1000 / (args.learn * len(types)))
        start = time.process_time()
        for wrapper, (_, pages) in zip(wrappers, types):
            extract_all(wrapper, pages)
        extract_ms.append((time.process_time() - start) * 1000 / total)
        start = time.process_time()
        for _, pages in types:
            for html, url in pages:
                parse_html(html, base_url=url)
                forget_page()
        parse_ms.append((time.process_time() - start) * 1000 / total)

    digest = hashlib.sha256()
    for wrapper, (label, pages) in zip(wrappers, types):
        digest.update(wrapper.to_json().encode())
        start = time.process_time()
        records = extract_all(wrapper, pages)
        ms = (time.process_time() - start) * 1000 / len(pages)
        digest.update(json.dumps(records, sort_keys=True, default=str).encode())
        print(
            f"  {label}: {len(pages)} pages, {len(wrapper.fields)} fields, "
            f"kind {wrapper.kind}, extraction {ms:.1f} ms/page"
        )
    print(f"learning (parse + add_page + compile): {statistics.median(learn_ms):.1f} ms/page")
    print(f"extraction (parse + extract):          {statistics.median(extract_ms):.1f} ms/page")
    print(f"  of which parsing:                    {statistics.median(parse_ms):.1f} ms/page")
    if args.products:
        bench_products(product_pages(args.products), args.repeat, digest)
    print(f"digest of wrappers and records: {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
