"""Kept-page scorings of the site re-estimates, re-scoring all of them against the cache.

    python benchmarks/bench_rescores.py [--pages 2000]
    python benchmarks/bench_rescores.py --parts [--pages 800] [--rounds 3] [--sites 64]
    python benchmarks/bench_rescores.py --counts [--sizes 200,800,2000,5000]
    python benchmarks/bench_rescores.py --fill [--pages 800] [--rounds 3] [--sites 64]

Decides the pages ``bench_crawl.py`` serves, in its order, as one site, twice in one process:
once re-scoring every kept page at every re-estimate (as before the cache), once with the
cached scores (``pagesim_scrapy/core/keptscores.py``). Prints the scorings per page, the most
re-scorings of one page, the CPU time of the decisions per page, and how many verdicts differ.
Both runs leave alone the scores no cut reads yet (several labels, before the pages a cut
needs: ``cutrules.reads_the_scores``), which changes no verdict (see ``--parts``' digest).

``--parts`` times the core's per-page parts on the same pages in one process, without a
profiler (whose per-call overhead inflates the small functions): the walk, the structural
features, the decision, and the layout-change watch (its features and tag skeleton kept per
label), median of ``--rounds`` runs; with the number of scorings and a digest of the verdicts.
``--sites N`` decides the pages as N sites (a many-site crawl, where every site stays young).
``--fill`` times the crawl's neighbour fill (``fill_from_kept`` after each decision, as the
crawl's decision step calls it): its CPU per page, how many times a site's sample was built,
and a digest of the verdicts with why each was filled (``--sites`` too).
``--codes`` times the compiled walk with a fresh descriptor memory, a new descriptor's codes
computed in C or by the Python callback, alternating in one process, and checks they agree.
``--counts`` counts, deterministically, what the re-estimates do over crawl length: the
pages of bench_crawl.py decided as one site, for each of ``--sizes``: re-estimates, first
scorings and re-scorings of kept pages (per page of the crawl), the most times one page was
re-scored, and the weight-table builds and their entries.
``--split`` times the re-estimates over crawl length the same way (one site, or ``--sites``;
each of ``--sizes``, median of ``--rounds``) and splits them: the scoring of pages inside them, the
rest (sample, cached entries, anchors, cores, cut rules, coverage), and what the crawl does
for them as each page is kept (``KeptScores.kept``); of the rest, the anchors, the cores
and the cuts' placing apart.
Run it with another checkout first on ``PYTHONPATH`` to compare before and after.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time
from pathlib import Path
from typing import Any

import bench_crawl

from pagesim_scrapy.core.drift.looks import skeleton_features
from pagesim_scrapy.core.drift.monitor import DriftMonitor
from pagesim_scrapy.core.keptscores import KeptScores, RescoreLimits, kept_scores, shared_features
from pagesim_scrapy.core.site import Features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.summary import (
    PageParseError,
    SummaryOptions,
    _LabelCache,
    _start_element,
    _walk_c,
    parse_html,
    summarize_tree,
)

#: every cached page re-scored at every re-estimate: what the classifier did before the cache
EXACT = RescoreLimits(tolerance=0.0, min_growth=1.0, max_growth=1.0)


def template_files() -> dict[str, list[Path]]:
    """bench_crawl.py's templates as files (a ``str`` given to the core is HTML, not a path:
    given as such, every template was a one-node page)."""
    return {label: [Path(p) for p in paths] for label, paths in bench_crawl.templates().items()}


def served_features(pages: int, classifier: SiteAwareClassifier) -> list[Features]:
    """The structural features of the pages bench_crawl.py serves, in its order."""
    served, _ = bench_crawl.served_pages(pages)
    bases = [bench_crawl.read_page(Path(p)) for p in served["base"]]
    features = []
    for base, number in served["index"]:
        body = bench_crawl.variant(bases[base], number) if number else bases[base]
        try:
            features.append(classifier.features(summarize_tree(parse_html(body))))
        except PageParseError:
            continue
    return features


def run(features: list[Features], limits: RescoreLimits | None) -> tuple[list[Any], str, float]:
    classifier = SiteAwareClassifier(template_files())
    if limits is not None:
        classifier.rescore_limits = limits
    began = time.process_time()
    verdicts = [classifier.classify(page, site="s") for page in features]
    seconds = time.process_time() - began
    templates = {label: classifier.template_features(label) for label in classifier.labels}
    cache = kept_scores(
        classifier.site_model("s"), classifier.rescore_limits, shared_features(templates)
    )
    n = len(features)
    line = (
        f"first scorings {cache.scored}, re-scorings {cache.rescored} "
        f"({(cache.scored + cache.rescored) / n:.2f} scorings per page), most re-scorings of "
        f"a page {cache.most_rescored}"
    )
    return [(v.label, v.score) for v in verdicts], line, seconds * 1000 / n


def counted_run(features: list[Features]) -> dict[str, float]:
    """What the re-estimates did deciding ``features`` as one site (counts, no times)."""
    classifier = SiteAwareClassifier(template_files())
    refreshes, spent = 0, 0.0
    refresh = classifier._refresh

    def counted(state: Any, **kwargs: Any) -> None:
        nonlocal refreshes, spent
        refreshes += 1
        began = time.process_time()
        refresh(state, **kwargs)
        spent += time.process_time() - began

    classifier._refresh = counted  # type: ignore[method-assign]
    verdicts = [classifier.classify(page, site="s") for page in features]
    model = classifier.site_model("s")
    cache = kept_scores(model, classifier.rescore_limits, classifier._shared_features)
    n = len(features)
    digest = hashlib.sha1(repr([(v.label, v.score) for v in verdicts]).encode()).hexdigest()
    return {
        "pages": n,
        "re-estimates": refreshes,
        "first scorings/page": cache.scored / n,
        "re-scorings/page": cache.rescored / n,
        "most re-scorings of a page": cache.most_rescored,
        # (absent from a checkout before the counters: run with it on PYTHONPATH to compare)
        "table builds": getattr(model, "table_builds", 0),
        "table entries/page": getattr(model, "table_entries", 0) / n,
        "re-estimates ms/page (noisy)": spent * 1000 / n,
        "digest": int(digest[:8], 16),
    }


def counts(sizes: list[int]) -> None:
    """Deterministic counts of the re-estimates' work at each crawl length (one site)."""
    features = served_features(max(sizes), SiteAwareClassifier(template_files()))
    print(f"one site, 10 templates, counts; load {os.getloadavg()[0]:.1f}")
    for size in sizes:
        row = counted_run(features[:size])
        print(
            "  "
            + "; ".join(
                f"{name} {value:.2f}" if isinstance(value, float) else f"{name} {value}"
                for name, value in row.items()
                if name != "digest"
            )
            + f"; verdicts {row['digest']:08x}"
        )


def split_run(features: list[Features], sites: int = 1) -> dict[str, float]:
    """CPU ms per page of the re-estimates deciding ``features`` as ``sites`` sites (page i
    on site i % sites): in all, their scoring of pages, the rest, and the kept pages'
    bookkeeping done as each is kept."""
    classifier = SiteAwareClassifier(template_files())
    spent = dict.fromkeys(("re-estimates", "scoring", "kept()", *REST_PARTS), 0.0)
    clock = time.process_time
    refresh, score, kept = classifier._refresh, classifier._scores_of, KeptScores.kept
    inside = again_inside = False

    def refreshed(state: Any, **kwargs: Any) -> None:
        nonlocal inside
        began, inside = clock(), True
        refresh(state, **kwargs)
        inside = False
        spent["re-estimates"] += clock() - began

    def scored(features: Any, state: Any) -> dict[str, float]:
        began = clock()
        scores = score(features, state)
        if inside and not again_inside:
            spent["scoring"] += clock() - began
        return scores

    def scored_again(again: Any, packed: str | list[str]) -> Any:
        nonlocal again_inside
        began, again_inside = clock(), True
        scores = again(packed)
        again_inside = False
        spent["scoring"] += clock() - began
        return scores

    def prepared(seconds: float) -> None:
        spent["scoring"] += seconds

    def remembered(cache: KeptScores, packed: str, features: Features, *rest: Any) -> None:
        began = clock()
        kept(cache, packed, features, *rest)
        spent["kept()"] += clock() - began

    classifier._refresh = refreshed  # type: ignore[method-assign]
    classifier._scores_of = scored  # type: ignore[method-assign]
    hook_rescoring(classifier, scored_again, prepared)
    for part, method in REST_PARTS.items():
        setattr(classifier, method, _timed(getattr(classifier, method), spent, part))
    KeptScores.kept = remembered  # type: ignore[method-assign,assignment]
    try:
        for number, page in enumerate(features):
            classifier.classify(page, site="s" if sites == 1 else f"s{number % sites}")
    finally:
        KeptScores.kept = kept  # type: ignore[method-assign]
    n = len(features)
    row = {part: seconds * 1000 / n for part, seconds in spent.items()}
    row["rest"] = row["re-estimates"] - row["scoring"]
    return row


#: the steps of a re-estimate besides scoring, timed apart by ``--split`` (part -> method)
REST_PARTS = {"anchors": "_set_anchors", "cores": "_find_cores", "cuts": "_place_cuts"}


class _Hooked:
    """A re-estimate's scorer with ``around`` called for each page, and for each list of pages
    its ``many`` scores in one call (``around(many, pages)``) where the scorer has one."""

    def __init__(self, rescore: Any, around: Any) -> None:
        self._rescore, self._around = rescore, around
        if hasattr(rescore, "many"):
            self.many = lambda pages: around(rescore.many, pages)

    def __call__(self, packed: str) -> Any:
        return self._around(self._rescore, packed)


def hook_rescoring(classifier: SiteAwareClassifier, around: Any, prepared: Any = None) -> None:
    """Call ``around(rescore, packed)`` for every kept page a re-estimate scores again from the
    site's counts (``around(many, pages)`` for a list scored in one call), and
    ``prepared(seconds)`` with the CPU time of readying each re-estimate's scorer: the scorer
    made once per re-estimate (``_rescorer``), or the method called per page (``_rescored``)
    in a checkout before it; nothing in a checkout before either."""
    maker = getattr(classifier, "_rescorer", None)
    if maker is not None:

        def made(state: Any, cache: Any) -> Any:
            began = time.process_time()
            rescore = maker(state, cache)
            if prepared is not None:
                prepared(time.process_time() - began)
            return _Hooked(rescore, around)

        classifier._rescorer = made  # type: ignore[method-assign]
        return
    again = getattr(classifier, "_rescored", None)
    if again is not None:

        def per_page(packed: str, state: Any, cache: Any) -> Any:
            return around(lambda page: again(page, state, cache), packed)

        classifier._rescored = per_page  # type: ignore[method-assign]


def _timed(method: Any, spent: dict[str, float], part: str) -> Any:
    """``method`` with its CPU time added to ``spent[part]``."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[part] = spent.get(part, 0.0) + time.process_time() - began

    return timed


def split(sizes: list[int], rounds: int, sites: int = 1) -> None:
    """The re-estimates' CPU split at each crawl length (``sites`` sites), median of
    ``rounds``."""
    import pagesim_scrapy

    features = served_features(max(sizes), SiteAwareClassifier(template_files()))
    where = Path(pagesim_scrapy.__file__).parent.parent.name
    on = "one site" if sites == 1 else f"{sites} sites"
    print(f"{on}, 10 templates, pagesim from {where}; load {os.getloadavg()[0]:.1f}")
    for size in sizes:
        runs = [split_run(features[:size], sites) for _ in range(rounds)]
        parts = ", ".join(
            f"{part} {statistics.median(run[part] for run in runs):.3f}" for part in runs[0]
        )
        print(f"  {size} pages: {parts} ms/page (median of {rounds})")


def served_roots(pages: int) -> list[Any]:
    """The parsed pages bench_crawl.py serves, in its order."""
    served, _ = bench_crawl.served_pages(pages)
    bases = [bench_crawl.read_page(Path(p)) for p in served["base"]]
    roots = []
    for base, number in served["index"]:
        body = bench_crawl.variant(bases[base], number) if number else bases[base]
        try:
            roots.append(parse_html(body))
        except PageParseError:
            continue
    return roots


def timed_parts(roots: list[Any], sites: int = 1) -> tuple[dict[str, float], int, str]:
    """CPU ms per page of each part over ``roots`` as ``sites`` sites (page i on site
    i % sites); scorings; verdicts' digest."""
    classifier = SiteAwareClassifier(template_files())
    monitor = DriftMonitor()
    scorings = 0
    score = classifier._scores_of
    again_inside = False

    def counted(features: Features, state: Any) -> dict[str, float]:
        nonlocal scorings
        scorings += not again_inside
        return score(features, state)

    def counted_again(again: Any, packed: str | list[str]) -> Any:
        nonlocal scorings, again_inside
        scorings += len(packed) if isinstance(packed, list) else 1
        again_inside = True
        try:
            scores = again(packed)
        finally:
            again_inside = False
        return scores

    classifier._scores_of = counted  # type: ignore[method-assign,assignment]
    hook_rescoring(classifier, counted_again)
    spent = dict.fromkeys(("walk", "features", "decision", "drift watch"), 0.0)
    clock = time.process_time
    verdicts = []
    for number, root in enumerate(roots):
        began = clock()
        summary = summarize_tree(root)
        walked = clock()
        features = classifier.features(summary)
        featured = clock()
        site = "s" if sites == 1 else f"s{number % sites}"
        verdict = classifier.classify(features, site=site)
        decided = clock()
        monitor.observe(site, verdict.label, features, str(number), skeleton_features(summary))
        watched = clock()
        spent["walk"] += walked - began
        spent["features"] += featured - walked
        spent["decision"] += decided - featured
        spent["drift watch"] += watched - decided
        verdicts.append((verdict.label, verdict.score, sorted(verdict.scores.items())))
    n = len(roots)
    digest = hashlib.sha1(repr(verdicts).encode()).hexdigest()[:12]
    return {part: seconds * 1000 / n for part, seconds in spent.items()}, scorings, digest


def parts(pages: int, rounds: int, sites: int = 1) -> None:
    import pagesim_scrapy

    roots = served_roots(pages)
    where = "one site" if sites == 1 else f"{sites} sites"
    print(
        f"{len(roots)} pages of {where}, 10 templates, pagesim from "
        f"{Path(pagesim_scrapy.__file__).parent.parent.name}; load {os.getloadavg()[0]:.1f}"
    )
    runs = [timed_parts(roots, sites) for _ in range(rounds)]
    for part in runs[0][0]:
        median = statistics.median(run[0][part] for run in runs)
        print(f"  {part:12s} {median:.3f} ms/page (median of {rounds})")
    print(f"  scorings {runs[0][1]}; verdicts digest {runs[0][2]}")


def timed_fill(features: list[Features], sites: int = 1) -> tuple[float, float, int, int, str]:
    """Decide ``features`` as ``sites`` sites, each page then given the crawl's neighbour fill
    (``fill_from_kept``): decision and fill CPU ms per page, the fill's builds, the pages
    filled, and a digest of every verdict with why it was filled."""
    classifier = SiteAwareClassifier(template_files())
    builds, build = 0, classifier._kept_neighbours

    def counted(site: str | None) -> Any:
        nonlocal builds
        cached = classifier._neighbour_cache.get(site)
        found = build(site)
        builds += cached is None or cached[2] is not found
        return found

    classifier._kept_neighbours = counted  # type: ignore[method-assign]
    clock, decided, filled_ms, out = time.process_time, 0.0, 0.0, []
    for number, page in enumerate(features):
        site = "s" if sites == 1 else f"s{number % sites}"
        began = clock()
        verdict = classifier.classify(page, site=site)
        middle = clock()
        verdict, why = classifier.fill_from_kept(verdict, page, site)
        decided, filled_ms = decided + middle - began, filled_ms + clock() - middle
        out.append((verdict.label, verdict.score, None if why is None else why.as_meta()))
    n = max(1, len(features))
    filled = sum(why is not None for _, _, why in out)
    digest = hashlib.sha1(repr(out).encode()).hexdigest()[:12]
    return decided * 1000 / n, filled_ms * 1000 / n, builds, filled, digest


def fill(pages: int, rounds: int, sites: int = 1) -> None:
    features = served_features(pages, SiteAwareClassifier(template_files()))
    where = "one site" if sites == 1 else f"{sites} sites"
    print(f"{len(features)} pages of {where}, 5 labels; load {os.getloadavg()[0]:.1f}")
    runs = [timed_fill(features, sites) for _ in range(rounds)]
    decided = statistics.median(run[0] for run in runs)
    filled = statistics.median(run[1] for run in runs)
    _, _, builds, pages_filled, digest = runs[0]
    print(f"  decision {decided:.3f}, neighbour fill {filled:.3f} ms/page (median of {rounds})")
    print(f"  fill builds {builds}; pages filled {pages_filled}; verdicts digest {digest}")


def _fresh_walker(options: SummaryOptions, native: bool) -> Any:
    """A compiled walker with no descriptor met yet (codes in C, or all from Python)."""
    cache = _LabelCache(options)
    names = sorted(cache.value_names | {"class", "id"}) if options.normalise_volatile else None
    extra = cache.native_labels() if native else {}
    return _walk_c.Walker(tuple(options.skip_tags), names, cache.resolve, 10**7, **extra)


def codes(pages: int, rounds: int) -> None:
    """The walk of every served page with fresh descriptors, codes in C against Python."""
    roots = [_start_element(root) for root in served_roots(pages)]
    options = SummaryOptions(max_nodes=300)  # the crawl's default node budget
    print(f"{len(roots)} pages, fresh descriptors; load {os.getloadavg()[0]:.1f}")
    times: dict[bool, list[float]] = {False: [], True: []}
    walks: dict[bool, list[Any]] = {}
    for _ in range(rounds):
        for native in (False, True):
            walker = _fresh_walker(options, native)
            began = time.process_time()
            walks[native] = [walker.walk(root, -1, 300) for root in roots]
            times[native].append((time.process_time() - began) * 1000 / len(roots))
    for native, name in ((False, "codes from Python"), (True, "codes in C")):
        spent = ", ".join(f"{ms:.3f}" for ms in times[native])
        print(f"  {name:17s} {statistics.median(times[native]):.3f} ms/page ({spent})")
    print(f"  descriptors {walker.size()}; walks identical: {walks[False] == walks[True]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each")
    parser.add_argument("--parts", action="store_true", help="time the core's per-page parts")
    parser.add_argument(
        "--sites",
        type=int,
        default=1,
        help="with --parts, --fill, --split: decide the pages as this many sites (page i on "
        "site i %% sites)",
    )
    parser.add_argument("--fill", action="store_true", help="time the crawl's neighbour fill")
    parser.add_argument("--codes", action="store_true", help="time new descriptors' codes")
    parser.add_argument("--counts", action="store_true", help="count the re-estimates' work")
    parser.add_argument("--split", action="store_true", help="split the re-estimates' time")
    parser.add_argument("--sizes", default="200,800,2000,5000", help="with --counts, --split")
    args = parser.parse_args()
    if args.split:
        split([int(size) for size in args.sizes.split(",")], args.rounds, args.sites)
        return
    if args.counts:
        counts([int(size) for size in args.sizes.split(",")])
        return
    if args.codes:
        codes(args.pages, args.rounds)
        return
    if args.parts:
        parts(args.pages, args.rounds, args.sites)
        return
    if args.fill:
        fill(args.pages, args.rounds, args.sites)
        return
    features = served_features(args.pages, SiteAwareClassifier(template_files()))
    print(f"{len(features)} pages of one site, 10 templates; load average {os.getloadavg()[0]:.1f}")
    times: dict[str, list[float]] = {"re-scoring all": [], "cached scores": []}
    for _ in range(args.rounds):
        exact, exact_line, ms = run(features, EXACT)
        times["re-scoring all"].append(ms)
        cached, cached_line, ms = run(features, None)
        times["cached scores"].append(ms)
    for (name, ms_list), line in zip(times.items(), (exact_line, cached_line)):
        median = statistics.median(ms_list)
        print(f"  {name:15s} {line}; decisions {median:.3f} ms/page (median of {args.rounds})")
    labels = sum(a[0] != b[0] for a, b in zip(exact, cached))
    moved = max((abs(a[1] - b[1]) for a, b in zip(exact, cached)), default=0.0)
    print(f"  verdicts that differ: {labels}; largest score difference {moved:.4f}")


if __name__ == "__main__":
    main()
