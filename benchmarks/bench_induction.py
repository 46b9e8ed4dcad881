"""Speed of template induction and record extraction.

Run: ``python benchmarks/bench_induction.py [--repeat N]``. Prints medians over the repeats.

* synthetic: 50 generated pages of one template with ~1,000 elements each (optional
  blocks, lists of different lengths, varying text, a JSON-LD block): induction of all 50
  pages, then extraction from each (parsing included and excluded);
* real: ../shared/data/recipe_scrapers_testdata, per site a wrapper from all its pages, then
  extraction from each of them (skipped if the data is absent).

Targets (issue 4): induction from 50 pages of ~1,000 elements <= 5 s; extraction >= 200
pages/s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.induce import Wrapper, parse_html  # noqa: E402

RECIPES = ROOT.parent / "shared" / "data" / "recipe_scrapers_testdata" / "tests" / "test_data"

WORDS = [
    "salt",
    "pepper",
    "onion",
    "garlic",
    "butter",
    "flour",
    "sugar",
    "lemon",
    "cream",
    "cheese",
    "tomato",
    "basil",
    "chicken",
    "rice",
    "oil",
    "vinegar",
    "honey",
    "thyme",
    "carrot",
    "celery",
    "potato",
    "egg",
    "milk",
    "water",
    "stock",
    "wine",
    "parsley",
    "dill",
]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def synthetic_page(rng: random.Random) -> str:
    """One page of a fixed template with random optional blocks and list lengths."""
    out = [
        "<!DOCTYPE html><html><head><title>",
        _words(rng, 4),
        " - Site</title>",
        '<meta property="og:title" content="',
        _words(rng, 4),
        '">',
        '<link rel="canonical" href="https://example.com/r/',
        str(rng.randrange(10**6)),
        '">',
        "<script type='application/ld+json'>",
        json.dumps(
            {
                "@context": "https://schema.org",
                "@type": "Recipe",
                "name": _words(rng, 4),
                "author": {"@type": "Person", "name": _words(rng, 2)},
                "recipeIngredient": [_words(rng, 4) for _ in range(rng.randrange(4, 16))],
                "recipeInstructions": [
                    {"@type": "HowToStep", "text": _words(rng, 20)}
                    for _ in range(rng.randrange(3, 10))
                ],
            }
        ),
        "</script></head><body class='page'>",
    ]
    out.append("<header class='site-header'><nav class='menu'><ul>")
    for k in range(80):
        out.append(f"<li class='menu-item'><a href='/c/{k}'><span>Cat {k}</span></a></li>")
    out.append("</ul></nav></header><div class='layout'><main class='content'>")
    out.append(f"<h1 class='entry-title'>{_words(rng, 4)}</h1>")
    out.append(
        f"<p class='byline'>By <a class='author' href='/a/{rng.randrange(50)}'>"
        f"{_words(rng, 2)}</a> <time datetime='2024-0{rng.randrange(1, 9)}-01'>date</time></p>"
    )
    if rng.random() < 0.6:
        out.append(f"<div class='notice'><strong>Note:</strong> {_words(rng, 10)}</div>")
    for _ in range(rng.randrange(4, 9)):
        out.append(f"<p>{_words(rng, 30)}</p>")
    out.append(
        f"<figure class='hero'><img src='/img/{rng.randrange(10**6)}.jpg' "
        f"alt='{_words(rng, 3)}'></figure>"
    )
    out.append("<table class='facts'>")
    for label in ("Prep", "Cook", "Serves"):
        out.append(f"<tr><th>{label}</th><td>{rng.randrange(1, 90)} min</td></tr>")
    out.append("</table><div class='ingredients'><h2>Ingredients</h2>")
    for _ in range(rng.randrange(1, 4)):
        out.append(f"<div class='group'><h3>{_words(rng, 2)}</h3><ul class='ing'>")
        for _ in range(rng.randrange(4, 16)):
            out.append(
                f"<li class='ingredient'><span class='amount'>{rng.randrange(1, 9)}</span> "
                f"<span class='unit'>cup</span> <span class='name'>{_words(rng, 3)}</span></li>"
            )
        out.append("</ul></div>")
    out.append("</div><ol class='steps'>")
    for _ in range(rng.randrange(3, 10)):
        out.append(f"<li class='step'><p>{_words(rng, 20)}</p></li>")
    out.append("</ol><section class='comments'>")
    for _ in range(rng.randrange(4, 20)):
        out.append(
            f"<article class='comment'><div class='meta'><b>{_words(rng, 1)}</b>"
            f"<span class='date'>{rng.randrange(1, 28)} May</span></div>"
            f"<div class='body'><p>{_words(rng, 25)}</p></div>"
            f"<a class='reply' href='#c{rng.randrange(10**5)}'>Reply</a></article>"
        )
    out.append("</section><div class='related'>")
    for k in range(30):
        out.append(
            f"<div class='card'><a href='/r/{rng.randrange(10**5)}'><img src='/t/{k}.jpg'>"
            f"<h4 class='card-title'>{_words(rng, 3)}</h4></a><p><span>{k}</span></p></div>"
        )
    out.append("</div></main><aside class='sidebar'>")
    for k in range(40):
        out.append(
            f"<div class='widget'><h4>Widget {k}</h4><ul><li><a href='/w/{k}'>one</a></li>"
            f"<li><a href='/w/{k}/2'>two</a></li></ul></div>"
        )
    out.append("</aside></div><footer class='site-footer'>")
    for k in range(30):
        out.append(f"<div class='col'><h5>Footer {k}</h5><p>{_words(rng, 5)}</p></div>")
    out.append("</footer></body></html>")
    return "".join(out)


#: "cpu" measures this process's CPU time (steadier on a shared machine), "wall" elapsed time.
CLOCK = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = time.process_time


def _median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = _clock()
        fn()
        times.append(_clock() - start)
    return statistics.median(times)


def bench_synthetic(repeat: int) -> None:
    rng = random.Random(4)
    pages = [synthetic_page(rng).encode() for _ in range(50)]
    trees = [parse_html(p) for p in pages]
    sizes = [sum(1 for _ in t.iter()) for t in trees]
    print(
        f"synthetic: {len(pages)} pages, median {statistics.median(sizes):.0f} elements "
        f"(min {min(sizes)}, max {max(sizes)}), "
        f"median {statistics.median(map(len, pages)) / 1024:.0f} KB"
    )

    def induce_parsed() -> Wrapper:
        wrapper = Wrapper()
        wrapper.add_pages([parse_html(p) for p in pages])
        wrapper.compiled()
        return wrapper

    t_induce = _median_time(induce_parsed, repeat)
    wrapper = induce_parsed()
    print(
        f"  induction of 50 pages (parsing included): {t_induce:.2f} s "
        f"({t_induce / 50 * 1000:.1f} ms/page); target <= 5 s: "
        f"{'OK' if t_induce <= 5 else 'MISSED'}"
    )
    print(f"  wrapper: {len(wrapper.fields)} fields, kind {wrapper.kind}")
    t_ext = _median_time(lambda: [wrapper.extract(p) for p in pages], repeat)
    t_ext_trees = _median_time(lambda: [wrapper.extract(t) for t in trees], repeat)
    t_parse = _median_time(lambda: [parse_html(p) for p in pages], repeat)
    print(
        f"  extraction (parsing included): {len(pages) / t_ext:.0f} pages/s; "
        f"on parsed trees: {len(pages) / t_ext_trees:.0f} pages/s; parsing alone: "
        f"{len(pages) / t_parse:.0f} pages/s; target >= 200 pages/s: "
        f"{'OK' if len(pages) / t_ext >= 200 else 'MISSED'}"
    )


def bench_real(repeat: int) -> None:
    if not RECIPES.is_dir():
        print("real: ../shared/data not found, skipped")
        return
    sites = []
    for site in sorted(RECIPES.iterdir()):
        pages = [p.read_bytes() for p in sorted(site.glob("*.testhtml"))]
        if len(pages) >= 2:
            sites.append(pages)
    n_pages = sum(len(s) for s in sites)
    sizes = [sum(1 for _ in parse_html(p).iter()) for s in sites for p in s]
    print(
        f"real: {len(sites)} recipe sites, {n_pages} pages, median {statistics.median(sizes):.0f} "
        f"elements"
    )
    wrappers: list[Wrapper] = []

    def induce_all() -> None:
        wrappers.clear()
        for pages in sites:
            wrapper = Wrapper()
            wrapper.add_pages(pages)
            wrapper.compiled()
            wrappers.append(wrapper)

    t_induce = _median_time(induce_all, repeat)
    print(
        f"  induction, all sites: {t_induce:.2f} s ({t_induce / n_pages * 1000:.1f} ms/page, "
        f"parsing included)"
    )
    trees = [[parse_html(p) for p in pages] for pages in sites]

    def extract_all() -> None:
        for wrapper, pages in zip(wrappers, sites):
            for page in pages:
                wrapper.extract(page)

    def extract_trees() -> None:
        for wrapper, ts in zip(wrappers, trees):
            for tree in ts:
                wrapper.extract(tree)

    t_ext = _median_time(extract_all, repeat)
    t_ext_trees = _median_time(extract_trees, repeat)
    t_parse = _median_time(lambda: [parse_html(p) for s in sites for p in s], repeat)
    print(
        f"  extraction (parsing included): {n_pages / t_ext:.0f} pages/s; on parsed trees: "
        f"{n_pages / t_ext_trees:.0f} pages/s; parsing alone: {n_pages / t_parse:.0f} pages/s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--clock", choices=sorted(CLOCK), default="cpu", help="default: cpu")
    args = parser.parse_args()
    global _clock
    _clock = CLOCK[args.clock]
    print(f"clock: {args.clock} time; medians of {args.repeat} runs")
    bench_synthetic(args.repeat)
    bench_real(args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
