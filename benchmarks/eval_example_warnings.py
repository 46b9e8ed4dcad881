"""The weak-examples warnings' constants, chosen leave-one-site-out.

For every type of >= 5 pages of each visible site, pairs of its pages are drawn at random as
the label's two examples; each pair gives a one-class F1 over the site's other pages, and the
inputs the advice decides on (the examples' likeness, the type's spread, the pages that passed
the cut, where the cut came from). A pair is *weak* when its F1 is below ``--weak-f1``. For each
held-out site the constants of :class:`~pagesim_scrapy.core.examples.ExamplePolicy` that sort
the other sites' pairs best (balanced accuracy of "warned" against "weak") are chosen from a
grid and scored on the held-out site's pairs; the shipped constants are scored beside them.

The site-based check (:mod:`pagesim_scrapy.core.examplecheck`: the label's cut sits where the
site's scores run on) is scored beside the shipped warnings the same way: its gap constant is
chosen on the other sites, and for each pair it warns, the page it proposes as the second
example is tried (the pair's F1 with it).

    python benchmarks/eval_example_warnings.py [--draws 10] [--weak-f1 0.8]
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import random
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _data import shared
from site_accuracy import Counts, Page, load_site

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.examplecheck import (
    DEFAULT_CHECK_POLICY,
    CheckPolicy,
    cut_gap,
    propose_example,
)
from pagesim_scrapy.core.examples import (
    DEFAULT_EXAMPLE_POLICY,
    ExamplePolicy,
    SitePage,
    _examples_likeness,
    _reasons,
    _spread,
    candidates,
    mean_likeness,
)
from pagesim_scrapy.core.site import structural_features

DATA_SETS = ("site_page_types", "site_page_types_2")
GRID = {
    "near_copy": (0.9, 0.93, 0.95, 0.97, 0.99),
    "varies_below": (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "spread_quantile": (0.05, 0.1, 0.2, 0.3),
    "min_pages": (2, 3, 5, 8),
}
#: the site-based check's constant (0 turns it off)
CHECK_GRID = {"gap_below": (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)}


@dataclass
class Pair:
    """One drawn pair of examples: its F1 and what the advice decides on."""

    site: str
    label: str
    f1: float
    likeness: float | None
    passed: int
    source: str | None
    #: the type's spread by (spread_quantile, min_pages)
    spreads: dict[tuple[float, int], float | None]
    #: the site check's inputs: the gap at the label's cut, the site's pages scored
    gap: float = 1.0
    pages: int = 0
    #: the page the site check proposes as the second example, its type and the pair's F1
    proposed: str | None = None
    proposed_label: str | None = None
    proposed_f1: float | None = None
    #: the site's pages as the label saw them: (score, given the label, of its type), and the cut
    seen: tuple[tuple[float, bool, bool], ...] = ()
    cut: float = 0.0

    def warned(self, policy: ExamplePolicy, check: CheckPolicy | None = None) -> bool:
        spread = self.spreads[policy.spread_quantile, policy.min_pages]
        if _reasons(2, self.likeness, spread, self.passed, self.source, policy):
            return True
        return check is not None and self.site_warned(check)

    def site_warned(self, check: CheckPolicy) -> bool:
        return self.pages >= check.min_pages and self.site_gap < check.gap_below

    @property
    def site_gap(self) -> float:
        """The gap at the label's cut, from the scores kept (a pairs file outlives the code)."""
        return cut_gap([score for score, _, _ in self.seen], self.cut)


def pair_f1(pages: list[Page], label: str, pair: list[Page]) -> tuple[Any, list[Page], Any, float]:
    """The classifier a pair of examples makes, the site's other pages, their verdicts and
    the label's one-class F1 over them."""
    tests = [page for page in pages if all(page is not e for e in pair)]
    clf = build_classifier({label: [e.summary for e in pair]}, method="site")
    verdicts = clf.classify_all([p.summary for p in tests])
    counts = Counts()
    for page, verdict in zip(tests, verdicts):
        counts.add(page.label == label, verdict.label == label)
    return clf, tests, verdicts, counts.f1


def measure_pair(site: str, pages: list[Page], label: str, pair: list[Page]) -> Pair:
    clf, tests, verdicts, f1 = pair_f1(pages, label, pair)
    given = [
        SitePage(p.path, structural_features(p.summary), v.scores[label], v.label == label)
        for p, v in zip(tests, verdicts)
    ]
    cut, source = clf.threshold_info(label)
    model = clf.site_model()
    pool = candidates(given, DEFAULT_EXAMPLE_POLICY)
    features = [page.features for page in pool]
    typical = mean_likeness(features, model)
    spreads = {
        (q, m): _spread(
            features,
            typical,
            model,
            replace(DEFAULT_EXAMPLE_POLICY, spread_quantile=q, min_pages=m),
        )
        for q in GRID["spread_quantile"]
        for m in GRID["min_pages"]
    }
    likeness = _examples_likeness([structural_features(e.summary) for e in pair], model)
    passed = sum(page.given for page in given)
    found = Pair(site, label, f1, likeness, passed, source, spreads)
    found.gap = cut_gap([page.score for page in given], cut)
    found.pages = len(given)
    found.cut = cut
    found.seen = tuple(
        (page.score, page.given, test.label == label) for page, test in zip(given, tests)
    )
    examples = [structural_features(e.summary) for e in pair]
    proposal = propose_example(examples, given, model, DEFAULT_CHECK_POLICY)
    if proposal is not None:
        index, keep, _, _ = proposal
        page = tests[index]
        found.proposed, found.proposed_label = page.path, page.label
        found.proposed_f1 = pair_f1(pages, label, [pair[keep], page])[3]
    return found


def balanced_accuracy(pairs: list[Pair], policy: ExamplePolicy, weak_f1: float) -> float:
    """The mean of the share of weak pairs warned and the share of good pairs not warned (a
    side without pairs counts as fully right)."""
    hit = Counter()
    total = Counter()
    for pair in pairs:
        weak = pair.f1 < weak_f1
        total[weak] += 1
        hit[weak] += pair.warned(policy) == weak
    return sum(hit[side] / total[side] if total[side] else 1.0 for side in (True, False)) / 2


def policies() -> list[ExamplePolicy]:
    names = list(GRID)
    return [
        replace(DEFAULT_EXAMPLE_POLICY, **dict(zip(names, values)))
        for values in itertools.product(*(GRID[name] for name in names))
    ]


def _distance(policy: ExamplePolicy) -> tuple[int, ...]:
    """How far a policy's constants are from the shipped ones, in grid steps (ties go to the
    nearest)."""
    return tuple(
        abs(
            GRID[name].index(getattr(policy, name))
            - GRID[name].index(getattr(DEFAULT_EXAMPLE_POLICY, name))
        )
        for name in GRID
    )


def choose(pairs: list[Pair], weak_f1: float) -> ExamplePolicy:
    return max(
        policies(),
        key=lambda p: (round(balanced_accuracy(pairs, p, weak_f1), 6), [-d for d in _distance(p)]),
    )


def draw_pairs(draws: int) -> list[Pair]:
    pairs = []
    for data_set in DATA_SETS:
        for folder in sorted(p for p in shared(data_set).iterdir() if p.is_dir()):
            pages = load_site(folder)
            for label, count in sorted(Counter(p.label for p in pages).items()):
                if count < 5:
                    continue
                mine = [page for page in pages if page.label == label]
                for draw in range(1, draws + 1):
                    pair = random.Random(f"pair{draw}:{label}").sample(mine, 2)
                    pairs.append(measure_pair(folder.name, pages, label, pair))
            print(f"  {data_set}/{folder.name}: {len(pairs)} pairs so far", flush=True)
    return pairs


def by_reason(pairs: list[Pair], weak_f1: float, policy: ExamplePolicy, name: str) -> None:
    """Each warning's pairs under ``policy``: how many, their mean F1, how many weak."""
    rows: dict[str, list[Pair]] = {}
    for pair in pairs:
        spread = pair.spreads[policy.spread_quantile, policy.min_pages]
        reasons = _reasons(2, pair.likeness, spread, pair.passed, pair.source, policy)
        for reason in reasons or ("(none)",):
            rows.setdefault(reason, []).append(pair)
    for reason, mine in sorted(rows.items()):
        weak = sum(p.f1 < weak_f1 for p in mine)
        mean = sum(p.f1 for p in mine) / len(mine)
        print(f"  {name} {reason:<12} {len(mine):>4} pairs  mean F1 {mean:.3f}  weak {weak}")


def _pooled(judged: Sequence[tuple[Pair, CheckPolicy | None]], weak_f1: float) -> float:
    hit, total = Counter(), Counter()
    for pair, check in judged:
        side = pair.f1 < weak_f1
        total[side] += 1
        hit[side] += pair.warned(DEFAULT_EXAMPLE_POLICY, check) == side
    return sum(hit[s] / total[s] if total[s] else 1.0 for s in (True, False)) / 2


def choose_check(pairs: list[Pair], weak_f1: float) -> CheckPolicy:
    """The site check's gap constant that, beside the shipped example warnings, sorts
    ``pairs`` best (ties to the smaller gap: fewer warnings)."""
    checks = [replace(DEFAULT_CHECK_POLICY, gap_below=g) for g in CHECK_GRID["gap_below"]]
    return max(
        checks,
        key=lambda c: (round(_pooled([(p, c) for p in pairs], weak_f1), 6), -c.gap_below),
    )


def _held_out_checks(pairs: list[Pair], weak_f1: float) -> list[tuple[Pair, CheckPolicy]]:
    """Each pair with the site check's constant chosen without its site (printed per site)."""
    judged: list[tuple[Pair, CheckPolicy]] = []
    for site in sorted({pair.site for pair in pairs}):
        check = choose_check([p for p in pairs if p.site != site], weak_f1)
        mine = [(p, check) for p in pairs if p.site == site]
        judged += mine
        alone = _pooled([(p, None) for p, _ in mine], weak_f1)
        print(
            f"{site:<22} site check gap_below={check.gap_below}  held out "
            f"{_pooled(mine, weak_f1):.3f}  shipped warnings alone {alone:.3f}"
        )
    return judged


def _warned_counts(judged: list[tuple[Pair, CheckPolicy]], weak_f1: float) -> None:
    weak = [(p, c) for p, c in judged if p.f1 < weak_f1]
    good = [(p, c) for p, c in judged if p.f1 >= weak_f1]
    before = sum(p.warned(DEFAULT_EXAMPLE_POLICY) for p, _ in weak)
    after = sum(p.warned(DEFAULT_EXAMPLE_POLICY, c) for p, c in weak)
    good_before = sum(p.warned(DEFAULT_EXAMPLE_POLICY) for p, _ in good)
    good_after = sum(p.warned(DEFAULT_EXAMPLE_POLICY, c) for p, c in good)
    alone = _pooled([(p, None) for p, _ in judged], weak_f1)
    print(
        f"site check, held out: balanced accuracy {_pooled(judged, weak_f1):.3f} (shipped "
        f"warnings alone {alone:.3f}); weak pairs warned {after} of {len(weak)} (before "
        f"{before}); good pairs warned {good_after} of {len(good)} (before {good_before})"
    )


def _proposals(name: str, group: list[Pair], weak_f1: float) -> None:
    """How the proposed second example does on ``group``'s pairs."""
    proposed = [p for p in group if p.proposed_f1 is not None]
    after = [p.proposed_f1 for p in proposed if p.proposed_f1 is not None]
    same = sum(p.proposed_label == p.label for p in proposed)
    before = sum(p.f1 for p in proposed) / len(proposed) if proposed else 0.0
    mean = sum(after) / len(after) if after else 0.0
    print(
        f"  site-warned {name} pairs {len(group)}: a page proposed for {len(proposed)} "
        f"({same} of the label's type); not weak with it {sum(f >= weak_f1 for f in after)}; "
        f"better {sum(f > p.f1 for f, p in zip(after, proposed))}, worse "
        f"{sum(f < p.f1 for f, p in zip(after, proposed))}; mean F1 {before:.3f} -> {mean:.3f}"
    )


def report_check(pairs: list[Pair], weak_f1: float) -> None:
    """The site-based check beside the shipped warnings: its constant chosen leave-one-site-out,
    the held-out balanced accuracy and weak pairs warned, and how often its proposed second
    example makes a pair not weak."""
    judged = _held_out_checks(pairs, weak_f1)
    _warned_counts(judged, weak_f1)
    site_warned = [p for p, c in judged if p.site_warned(c)]
    _proposals("weak", [p for p in site_warned if p.f1 < weak_f1], weak_f1)
    _proposals("good", [p for p in site_warned if p.f1 >= weak_f1], weak_f1)


def describe(policy: ExamplePolicy) -> str:
    return " ".join(f"{name}={getattr(policy, name)}" for name in GRID)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--weak-f1", type=float, default=0.8)
    parser.add_argument("--pairs-file", help="keep the drawn pairs here (read if it exists)")
    args = parser.parse_args()
    if args.pairs_file and Path(args.pairs_file).exists():
        pairs = pickle.loads(Path(args.pairs_file).read_bytes())
    else:
        pairs = draw_pairs(args.draws)
        if args.pairs_file:
            Path(args.pairs_file).write_bytes(pickle.dumps(pairs))
    by_reason(pairs, args.weak_f1, DEFAULT_EXAMPLE_POLICY, "shipped")
    weak = sum(pair.f1 < args.weak_f1 for pair in pairs)
    print(f"{len(pairs)} pairs, {weak} weak (F1 < {args.weak_f1})")
    sites = sorted({pair.site for pair in pairs})
    held_out: list[tuple[Pair, ExamplePolicy]] = []
    chosen = Counter()
    for site in sites:
        policy = choose([p for p in pairs if p.site != site], args.weak_f1)
        chosen[describe(policy)] += 1
        mine = [p for p in pairs if p.site == site]
        held_out += [(p, policy) for p in mine]
        print(
            f"{site:<22} chosen {describe(policy)}  held out "
            f"{balanced_accuracy(mine, policy, args.weak_f1):.3f}  shipped "
            f"{balanced_accuracy(mine, DEFAULT_EXAMPLE_POLICY, args.weak_f1):.3f}"
        )
    # pooled held-out figure: each pair judged by the constants chosen without its site
    hit, total = Counter(), Counter()
    for pair, policy in held_out:
        side = pair.f1 < args.weak_f1
        total[side] += 1
        hit[side] += pair.warned(policy) == side
    pooled = sum(hit[s] / total[s] if total[s] else 1.0 for s in (True, False)) / 2
    everywhere = choose(pairs, args.weak_f1)
    shipped = balanced_accuracy(pairs, DEFAULT_EXAMPLE_POLICY, args.weak_f1)
    print(
        f"pooled balanced accuracy: held out {pooled:.3f}, shipped {shipped:.3f}, chosen on "
        f"all sites {balanced_accuracy(pairs, everywhere, args.weak_f1):.3f} "
        f"({describe(everywhere)})"
    )
    by_reason(pairs, args.weak_f1, everywhere, "chosen on all sites")
    print("folds' choices: " + "; ".join(f"{k} x{v}" for k, v in chosen.most_common()))
    report_check(pairs, args.weak_f1)


if __name__ == "__main__":
    main()
