"""Does the proposed example help? One-class F1 with the second example proposed by
:func:`~pagesim_scrapy.core.examples.weigh_examples`, against the second page by path and a
random second page (5 draws), per site and pooled.

For every type of >= 5 pages of a site: start from its first page by path (``one``), or from
that page and its nearest page of the type (``copies``: two near-copies), classify the site with
those examples, take the page the advice proposes, and classify the site again with the first
page and the proposed one. Every F1 is over the site's pages less the two examples. ``drawn``:
two pages of the type drawn at random, the F1 pooled by whether the advice calls them weak.

    python benchmarks/eval_examples.py [--mode one|copies|drawn] [--sites NAME ...]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _data import shared
from site_accuracy import Counts, Page, load_site

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.examples import ExamplePolicy, SitePage, weigh_examples
from pagesim_scrapy.core.site import site_similarity, structural_features

DATA_SETS = ("site_page_types", "site_page_types_2")
DRAWS = 5
#: the advice with its proposal on (off for users until it beats a random second page)
PROPOSING = ExamplePolicy(propose=True)


def one_class(pages: list[Page], label: str, examples: list[Page]) -> Counts:
    """One-class counts of ``label`` with ``examples`` over the site's other pages."""
    tests = [page for page in pages if all(page is not e for e in examples)]
    clf = build_classifier({label: [e.summary for e in examples]}, method="site")
    counts = Counts()
    for page, verdict in zip(tests, clf.classify_all([p.summary for p in tests])):
        counts.add(page.label == label, verdict.label == label)
    return counts


def proposed(pages: list[Page], label: str, examples: list[Page]) -> tuple[Page | None, tuple]:
    """The page the advice proposes after a batch with ``examples``, and why."""
    tests = [page for page in pages if all(page is not e for e in examples)]
    clf = build_classifier({label: [e.summary for e in examples]}, method="site")
    verdicts = clf.classify_all([p.summary for p in tests])
    given = [
        SitePage(p.path, structural_features(p.summary), v.scores[label], v.label == label)
        for p, v in zip(tests, verdicts)
    ]
    _, source = clf.threshold_info(label)
    advice = weigh_examples(
        label,
        [structural_features(e.summary) for e in examples],
        given,
        clf.site_model(),
        threshold_source=source,
        policy=PROPOSING,
    )
    by_path = {p.path: p for p in pages}
    return (by_path[advice.proposed] if advice.proposed else None), advice.reasons


def near_copy(pages: list[Page], first: Page, mine: list[Page]) -> Page:
    """The page of ``first``'s type most like it under the site's weights."""
    clf = build_classifier({"x": [first.summary]}, method="site")
    for page in pages:
        clf.learn(page.summary)
    model = clf.site_model()
    a = structural_features(first.summary)
    return max(
        (p for p in mine if p is not first),
        key=lambda p: site_similarity(a, structural_features(p.summary), model),
    )


def evaluate_drawn(pages: list[Page], label: str) -> dict[str, Counts]:
    """Two pages of the type drawn at random, per draw: the F1 they give, pooled under
    ``warned`` when the advice finds them weak and ``fine`` when it does not."""
    mine = [page for page in pages if page.label == label]
    out: dict[str, Counts] = {}
    for draw in range(1, DRAWS + 1):
        pair = random.Random(f"pair{draw}:{label}").sample(mine, 2)
        _, reasons = proposed(pages, label, pair)
        counts = one_class(pages, label, pair)
        out.setdefault("warned" if reasons else "fine", Counts()).merge(counts)
        print(f"  {label:<22} draw {draw}  {','.join(reasons) or '-':<24} {counts.f1:.3f}")
    return out


def evaluate_type(pages: list[Page], label: str, mode: str) -> dict[str, Counts] | None:
    if mode == "drawn":
        return evaluate_drawn(pages, label)
    mine = [page for page in pages if page.label == label]
    first = mine[0]
    start = [first] if mode == "one" else [first, near_copy(pages, first, mine)]
    page, reasons = proposed(pages, label, start)
    if page is None:
        return None
    out = {"proposed": one_class(pages, label, [first, page])}
    out["path"] = one_class(pages, label, mine[:2])
    if mode == "copies":
        out["start"] = one_class(pages, label, start)
    for draw in range(1, DRAWS + 1):
        other = random.Random(f"{draw}:{label}").choice(mine[1:])
        out[f"random{draw}"] = one_class(pages, label, [first, other])
    print(
        f"  {label:<22} {len(mine):>4} pages  reasons {','.join(reasons) or '-':<24} "
        + "  ".join(f"{k} {v.f1:.3f}" for k, v in out.items()),
        flush=True,
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("one", "copies", "drawn"), default="one")
    parser.add_argument("--sites", nargs="*", default=None)
    args = parser.parse_args()
    pooled: dict[str, Counts] = {}
    for data_set in DATA_SETS:
        for folder in sorted(p for p in shared(data_set).iterdir() if p.is_dir()):
            if args.sites and folder.name not in args.sites:
                continue
            pages = load_site(folder)
            print(f"{data_set}/{folder.name}:", flush=True)
            site: dict[str, Counts] = {}
            for label, count in sorted(Counter(p.label for p in pages).items()):
                if count < 5:
                    continue
                result = evaluate_type(pages, label, args.mode)
                for key, counts in (result or {}).items():
                    site.setdefault(key, Counts()).merge(counts)
                    pooled.setdefault(key, Counts()).merge(counts)
            print("  site: " + "  ".join(f"{k} {v.f1:.3f}" for k, v in site.items()), flush=True)
    print(f"pooled ({args.mode}): " + "  ".join(f"{k} {v.f1:.3f}" for k, v in pooled.items()))
    draws = [
        pooled[f"random{draw}"].f1 for draw in range(1, DRAWS + 1) if f"random{draw}" in pooled
    ]
    if draws:
        print(f"pooled random draws, mean: {sum(draws) / len(draws):.3f}")


if __name__ == "__main__":
    main()
