"""Clustering a real site's pages by type (issue 10, point 7): ARI per site, leave-one-site-out.

    python benchmarks/site_cluster.py [--sites a,b] [--algorithm snn] [--confusion]
    python benchmarks/site_cluster.py --agreement [--sets site_page_types,site_page_types_2]
    python benchmarks/site_cluster.py --orders 20 [--sets ...] [--with-so] [--loso]
    python benchmarks/site_cluster.py --fixture-orders 50 [--closeness 0.65]

``--agreement`` (fast): per site of both visible sets, batch ``cluster`` (``site``, defaults)
and crawl-time discovery (``OnlineDiscovery``, three shuffled orders) against the page types,
and the ARI between the two on the same pages (batch in path order, and in the crawl's
order); means per set (starred sites included and excluded).

Pages: ../shared/data/site_page_types (five real sites, 976 labelled pages; the wiki's <body>
class removed, summaries with the crawl's options, as in ``benchmarks/site_accuracy.py``).
Each site is clustered on its own, as ``cluster`` does with a folder of one site's pages, under
the pairwise default (``combined``: the page as a whole, chrome included) and under ``site``
(the site-weighted similarity, chrome weighing nothing). Printed: the adjusted Rand index
against the page types, and the number of clusters against the number of types.

Then crawl-time discovery (``OnlineDiscovery``, one page at a time in three shuffled orders):
the same ARI for ``combined`` and ``site``.

Leave-one-site-out: the near-neighbour threshold of ``site`` chosen from a grid by the mean ARI
of four sites and applied to the fifth. The project site and Python's docs (marked *) have
several labelled types in one template (the data's README), so no clustering by structure can
reach 1.0 there.

Then the two relative-closeness constants of ``site`` (the batch merge, ``CLOSENESS``, and the
online bar, ``SITE_CLOSENESS``), each chosen from a grid by the mean ARI of the other
distinct-template sites (the starred sites are reported, never chosen on; ties go to the larger
value, which merges less) and applied to the held-out site, beside the default's ARI. Batch
ARI there, and in the "4 orders" column, is the mean over the pages in path order and in three
shuffled orders.

``--orders N`` (fast): per site of both visible sets, batch ``cluster`` ARI beside crawl-time
discovery's over N shuffled orders (mean and min): as the pages were labelled during the
crawl, as a crawl holding each page until its type is settled labels them (``held``; the last
column is the share of pages held), and with the types the crawl ended with.
With ``--loso``, YOUNG_SITE_PAGES (from YOUNG_GRID) and SETTLE_AFTER (the regroupings in a row
that settle a page's type, from SETTLE_GRID) are each chosen per held-out site by the held
labels' mean ARI on the other distinct-template sites, and the held-out site's ARI printed.
``--fixture-orders N``: the Stack Overflow test pages (5 types of 3 pages) in N shuffled
orders, counting the types split over several labels and the labels holding several types,
as labelled during the crawl, as held, and as ended.

``--confusion``: for each site, the clusters of ``site`` (batch, defaults) against the types
(with ``--sets``: of those sets' sites).

``--lone``: the same for lone pages attached to their nearest cluster (``LONE``, from LONE_GRID).

``--overlap``: the batch merge by overlap (``OVERLAP``), chosen per held-out site from
OVERLAP_GRID by the summed ARI (path order and three shuffled orders) of every other visible
site, the Stack Overflow set included (ties to the larger value, which merges less); the
held-out site's ARI beside the default's and off.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _data import shared
from site_accuracy import SHARED_TEMPLATE_SITES, Page, load_site

from pagesim_scrapy.core.cluster import OnlineDiscovery, adjusted_rand_index, cluster_pages
from pagesim_scrapy.core.cluster.discovery import SETTLE_AFTER, SITE_CLOSENESS, YOUNG_SITE_PAGES
from pagesim_scrapy.core.cluster.pipeline import CLOSENESS, LONE, METHOD_THRESHOLDS, OVERLAP
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.settings import PageSimConfig

GRID = (0.3, 0.35, 0.4, 0.45, 0.5)
#: relative closeness: 0 is off
CLOSENESS_GRID = (0.0, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
ONLINE_CLOSENESS_GRID = (0.0, 0.6, 0.7, 0.8)
#: batch merge by overlap (the smaller pages contained in the larger): 0 is off
OVERLAP_GRID = (0.0, 0.7, 0.75, 0.8, 0.85, 0.9)
#: a lone page attached to the cluster it overlaps this share as much as its own pages: 0 is off
LONE_GRID = (0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 1.0)
#: pages below which a site is young in crawl-time discovery: 0 is off
YOUNG_GRID = (0, 8, 16, 32, 64)
#: regroupings in a row that must leave a page's leader in its type before it is settled
SETTLE_GRID = (1, 2, 3)


def ari(pages: list[Page], **options: Any) -> tuple[float, int]:
    result = cluster_pages([page.summary for page in pages], **options)
    labels = result.labels()
    return adjusted_rand_index([page.label for page in pages], labels), len(set(labels))


def ari_orders(pages: list[Page], orders: int = 4, **options: Any) -> float:
    """Mean ARI over the pages in path order and ``orders - 1`` shuffled orders: a batch
    clustering also depends on the order its pages come in (the condensing pass)."""
    total = 0.0
    for seed in range(orders):
        order = list(range(len(pages)))
        if seed:
            random.Random(seed).shuffle(order)
        total += ari([pages[i] for i in order], **options)[0]
    return total / orders


def online_ari(
    pages: list[Page], method: str, seeds: int = 3, closeness: float | None = None
) -> tuple[float, float]:
    """Crawl-time discovery over the site's pages in shuffled orders: mean ARI and clusters."""
    options = PageSimConfig().summary_options()
    aris, counts = [], []
    for seed in range(1, seeds + 1):
        order = list(range(len(pages)))
        random.Random(seed).shuffle(order)
        discovery = OnlineDiscovery(method=method, options=options, closeness=closeness)
        labels = [discovery.assign(pages[i].summary, site="site")[0] for i in order]
        aris.append(adjusted_rand_index([pages[i].label for i in order], labels))
        counts.append(len(set(labels)))
    return sum(aris) / seeds, sum(counts) / seeds


def loso(
    table: Mapping[float, Mapping[str, float]], names: list[str], judges: list[str] | None = None
) -> dict[str, tuple]:
    """Per held-out site: the grid value with the best summed ARI over the other ``judges``
    (default: all other sites; ties to the larger value) and the held-out site's ARI under it."""
    out = {}
    for held in names:
        others = [name for name in (judges or names) if name != held]
        chosen = max(table, key=lambda t: (round(sum(table[t][name] for name in others), 9), t))
        out[held] = (chosen, table[chosen][held])
    return out


SETS = ("site_page_types", "site_page_types_2")
#: with ``--orders``, also a visible site: Stack Overflow's pages of 5 types
SO_SET = "stackoverflow_page_types"


def agreement(pages: list[Page], seeds: int = 3) -> tuple[float, ...]:
    """Batch ARI; crawl-time discovery's ARI as labelled in the crawl and with the types it
    ended with (mean over shuffled orders); the ARI between those types and the batch
    clusters of the same pages, in path order and in the crawl's order (the batch clustering
    depends on its pages' order too: what is left between the crawl and the batch of the
    same order is the crawl's own)."""
    batch = cluster_pages([page.summary for page in pages], method="site").labels()
    truth = [page.label for page in pages]
    options = PageSimConfig().summary_options()
    online, final, agree, same = 0.0, 0.0, 0.0, 0.0
    for seed in range(1, seeds + 1):
        order = list(range(len(pages)))
        random.Random(seed).shuffle(order)
        discovery = OnlineDiscovery(method="site", options=options)
        labels = [discovery.assign(pages[i].summary, site="site")[0] for i in order]
        discovery.regroup()
        ended = [discovery.label_of(pages[i].summary, site="site") for i in order]
        online += adjusted_rand_index([truth[i] for i in order], labels)
        final += adjusted_rand_index([truth[i] for i in order], ended)
        agree += adjusted_rand_index([batch[i] for i in order], ended)
        in_order = cluster_pages([pages[i].summary for i in order], method="site").labels()
        same += adjusted_rand_index(in_order, ended)
    figures = (online, final, agree, same)
    return adjusted_rand_index(truth, batch), *(figure / seeds for figure in figures)


def agreement_table(sets: list[str], sites: list[str]) -> None:
    print(
        f"{'site':24} {'types':>5} {'batch ARI':>9} {'crawl ARI':>9} {'ended ARI':>9}"
        f" {'ended vs batch':>14} {'same order':>10}"
    )
    for name in sets:
        root = shared(name)
        folders = sorted(p for p in root.iterdir() if p.is_dir())
        rows = []
        for folder in folders:
            if sites and folder.name not in sites:
                continue
            pages = load_site(folder)
            figures = agreement(pages)
            rows.append((folder.name, figures))
            mark = " *" if folder.name in SHARED_TEMPLATE_SITES else ""
            types = len({page.label for page in pages})
            print(f"{folder.name + mark:24} {types:5d} " + " ".join(f"{v:9.3f}" for v in figures))
        for title, kept in (
            ("all sites", rows),
            ("distinct-template", [r for r in rows if r[0] not in SHARED_TEMPLATE_SITES]),
        ):
            if kept:
                means = [sum(r[1][i] for r in kept) / len(kept) for i in range(5)]
                print(f"  mean {name}, {title}: " + " ".join(f"{v:.3f}" for v in means))


def crawl_orders(
    pages: list[Page], orders: int, young_pages: int = YOUNG_SITE_PAGES, **kwargs: Any
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Crawl-time discovery in ``orders`` shuffled orders, one figure per order: the ARI of the
    labels given during the crawl, of those a crawl holding unsettled pages gives, of the
    types it ended with, and the share of pages held."""
    truth = [page.label for page in pages]
    given, held, ended, shares = [], [], [], []
    for seed in range(1, orders + 1):
        order = list(range(len(pages)))
        random.Random(seed).shuffle(order)
        crawl = crawl_in_order(pages, order, "site", young_pages=young_pages, **kwargs)
        ordered_truth = [truth[i] for i in order]
        given.append(adjusted_rand_index(ordered_truth, crawl.given))
        held.append(adjusted_rand_index(ordered_truth, crawl.held))
        ended.append(adjusted_rand_index(ordered_truth, crawl.ended))
        shares.append(crawl.share_held)
    return given, held, ended, shares


@dataclass
class CrawlLabels:
    """One crawl's labels: as given at once, as given holding each page until its type is
    settled (``Discovered.settled``), and the types it ended with."""

    given: list[str | None]
    held: list[str | None]
    ended: list[str | None]
    share_held: float


def crawl_in_order(pages: list[Page], order: list[int], site: str, **kwargs: Any) -> CrawlLabels:
    """A crawl of the pages in ``order``: a held page gets ``label_now`` of its leader as soon
    as a regrouping has seen it (at the latest at the crawl's end)."""
    discovery = OnlineDiscovery(method="site", options=PageSimConfig().summary_options(), **kwargs)
    given: list[str | None] = []
    held: list[str | None] = []
    waiting: dict[int, int | None] = {}  # position -> leader
    held_pages = 0
    for position, i in enumerate(order):
        found = discovery.discover(pages[i].summary, site=site)
        given.append(found.label)
        held.append(found.label)
        if not found.settled:
            waiting[position] = found.leader
            held_pages += 1
        for done in [p for p, leader in waiting.items() if discovery.settled(leader)]:
            held[done] = discovery.label_now(waiting.pop(done))
    discovery.regroup()
    for position, leader in waiting.items():
        held[position] = discovery.label_now(leader)
    ended = [discovery.label_of(pages[i].summary, site=site) for i in order]
    return CrawlLabels(given, held, ended, held_pages / max(1, len(order)))


def orders_table(sets: list[str], sites: list[str], orders: int, choose: bool) -> None:
    """Batch ARI beside crawl-time discovery's mean and min over shuffled orders; with
    ``choose``, YOUNG_SITE_PAGES chosen leave-one-site-out from YOUNG_GRID."""
    print(
        f"{'site':24} {'types':>5} {'batch':>6}  {'crawl mean':>10} {'min':>6}"
        f"  {'held mean':>10} {'min':>6}  {'ended mean':>10} {'min':>6}  {'held':>5}"
        f"   ({orders} shuffled orders)"
    )
    table: dict[float, dict[str, float]] = {young: {} for young in YOUNG_GRID}
    settle: dict[float, dict[str, float]] = {after: {} for after in SETTLE_GRID}
    names: list[str] = []
    for name in sets:
        rows = []
        for folder in _site_folders(name):
            if sites and folder.name not in sites:
                continue
            pages = load_site(folder) if name != SO_SET else folder_pages(folder)
            given, held, ended, shares = crawl_orders(pages, orders)
            figures = (
                ari(pages, method="site")[0],
                *_mean_min(given),
                *_mean_min(held),
                *_mean_min(ended),
                mean(shares),
            )
            rows.append((folder.name, figures))
            print(
                f"{_site_name(folder.name):24} {len({p.label for p in pages}):5d} " + _row(figures)
            )
            names.append(folder.name)
            if choose:
                _grid_figures(pages, orders, figures[3], folder.name, table, settle)
        kept = [r for r in rows if r[0] not in SHARED_TEMPLATE_SITES]
        if kept:
            means = [mean([r[1][i] for r in kept]) for i in range(len(rows[0][1]))]
            print(f"  mean {name}, distinct-template: " + " ".join(f"{v:.3f}" for v in means))
    if choose:
        young_loso(table, names)
        settle_loso(settle, names)


def _grid_figures(
    pages: list[Page],
    orders: int,
    held: float,
    name: str,
    young: dict[float, dict[str, float]],
    settle: dict[float, dict[str, float]],
) -> None:
    """The held labels' mean ARI of a site under each value of YOUNG_GRID and SETTLE_GRID
    (``held``: under the defaults)."""
    for value in YOUNG_GRID:
        young[value][name] = (
            held if value == YOUNG_SITE_PAGES else mean(crawl_orders(pages, orders, value)[1])
        )
    for value in SETTLE_GRID:
        settle[value][name] = (
            held
            if value == SETTLE_AFTER
            else mean(crawl_orders(pages, orders, settle_after=value)[1])
        )


def settle_loso(table: Mapping[float, Mapping[str, float]], names: list[str]) -> None:
    """SETTLE_AFTER per held-out site, chosen by the held labels' ARI of the others."""
    _print_loso(table, names, SETTLE_GRID, "regroupings that settle a type", SETTLE_AFTER)


def young_loso(table: Mapping[float, Mapping[str, float]], names: list[str]) -> None:
    """YOUNG_SITE_PAGES per held-out site, chosen by the crawl-time ARI of the others."""
    _print_loso(table, names, YOUNG_GRID, "young site pages", YOUNG_SITE_PAGES)


def _print_loso(
    table: Mapping[float, Mapping[str, float]],
    names: list[str],
    grid: Sequence[float],
    what: str,
    default: float,
) -> None:
    """Each held-out site's choice from ``grid``, made on the other distinct-template sites."""
    judges = [name for name in names if name not in SHARED_TEMPLATE_SITES]
    print(
        f"\nleave-one-site-out, {what} (from {tuple(grid)}, chosen on the other "
        f"distinct-template sites by the mean ARI of the labels a crawl holding unsettled "
        f"pages gives; default {default}):"
    )
    for held, (chosen, value) in loso(table, names, judges).items():
        row = "  ".join(f"{v}: {table[v][held]:.3f}" for v in grid)
        print(f"  {_site_name(held):24} chosen {chosen:<4} held-out ARI {value:.3f}   ({row})")


def _mean_min(values: list[float]) -> tuple[float, float]:
    return mean(values), min(values)


def _site_name(name: str) -> str:
    return name + (" *" if name in SHARED_TEMPLATE_SITES else "")


def _row(figures: tuple[float, ...]) -> str:
    batch, crawl, crawl_min, held, held_min, ended, ended_min, share = figures
    return (
        f"{batch:6.3f}  {crawl:10.3f} {crawl_min:6.3f}  {held:10.3f} {held_min:6.3f}"
        f"  {ended:10.3f} {ended_min:6.3f}  {share:5.2f}"
    )


def fixture_orders(orders: int, closeness: float | None) -> None:
    """The Stack Overflow test pages in shuffled orders: types split, labels merged."""
    pages = fixture_pages()
    counts = Counter[str]()
    for seed in range(orders):
        order = list(range(len(pages)))
        random.Random(seed).shuffle(order)
        crawl = discover_in_order(pages, order, closeness)
        for when, labels in (("crawl", crawl.given), ("held", crawl.held), ("ended", crawl.ended)):
            split, merged = split_and_merged([pages[i].label for i in order], labels)
            counts[f"{when} split"] += split
            counts[f"{when} merged"] += merged
            counts[f"{when} orders wrong"] += bool(split or merged)
    print(f"Stack Overflow fixture, {orders} shuffled orders, closeness {closeness}:")
    for key, value in sorted(counts.items()):
        print(f"  {key:20} {value}")


def _site_folders(name: str) -> list[Path]:
    """The sites of a set; the Stack Overflow set is one site of a folder per type."""
    root = shared(name)
    return [root] if name == SO_SET else sorted(p for p in root.iterdir() if p.is_dir())


def fixture_pages() -> list[Page]:
    """The 15 Stack Overflow pages of the tests, summarised with the crawl's options."""
    return folder_pages(
        Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "stackoverflow"
    )


def folder_pages(root: Path) -> list[Page]:
    """Pages of a site stored as a folder per type, summarised with the crawl's options."""
    options = PageSimConfig().summary_options()
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.html")):
            summary = summarize(path.read_bytes(), options)
            out.append(Page(f"{folder.name}/{path.name}", folder.name, summary))
    return out


def discover_in_order(pages: list[Page], order: list[int], closeness: float | None) -> CrawlLabels:
    """Labels given during a crawl of the pages in ``order`` (at once and held until
    settled), and the types it ended with."""
    return crawl_in_order(pages, order, "so", closeness=closeness)


def split_and_merged(truth: list[str], labels: list[str | None]) -> tuple[int, int]:
    """Types whose pages carry several labels; labels carried by pages of several types."""
    by_type: dict[str, set[str | None]] = {}
    by_label: dict[str | None, set[str]] = {}
    for kind, label in zip(truth, labels):
        by_type.setdefault(kind, set()).add(label)
        by_label.setdefault(label, set()).add(kind)
    split = sum(len(found) > 1 for found in by_type.values())
    return split, sum(len(kinds) > 1 for kinds in by_label.values())


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def confusion(pages: list[Page], labels: list[str]) -> None:
    """Each cluster, largest first, with the types of its pages."""
    by_cluster: dict[str, Counter[str]] = {}
    for page, label in zip(pages, labels):
        by_cluster.setdefault(label, Counter())[page.label] += 1
    for label, types in sorted(by_cluster.items(), key=lambda item: -sum(item[1].values())):
        found = ", ".join(f"{name} {count}" for name, count in types.most_common())
        print(f"    {label:12} {sum(types.values()):4d}  {found}")


def confusion_table(sets: list[str], sites: list[str]) -> None:
    """The batch clusters of ``site`` against the types, per site of ``sets``."""
    for name in sets:
        for folder in _site_folders(name):
            if sites and folder.name not in sites:
                continue
            pages = load_site(folder) if name != SO_SET else folder_pages(folder)
            found, clusters = ari(pages, method="site")
            print(f"{_site_name(folder.name)}: ARI {found:.3f}, {clusters} clusters")
            result = cluster_pages([page.summary for page in pages], method="site")
            confusion(pages, result.labels())


def batch_section(
    loaded: Mapping[str, list[Page]], algorithm: str, key: str, show_confusion: bool
) -> tuple[dict[float, dict[str, float]], dict[float, dict[str, float]]]:
    """Batch ARI per site under both methods; the grids of the near-neighbour threshold and of
    the batch merge's closeness."""
    print(
        f"{'site':24} {'types':>5}  {'combined ARI (clusters)':>24}  {'site ARI (clusters)':>20}"
        f"  {'site, 4 orders':>14}"
    )
    table: dict[float, dict[str, float]] = {t: {} for t in GRID}
    close_table: dict[float, dict[str, float]] = {c: {} for c in CLOSENESS_GRID}
    means: dict[str, list[float]] = {"combined": [], "site": []}
    for name, pages in loaded.items():
        types = len({page.label for page in pages})
        base, base_n = ari(pages, algorithm=algorithm, method="combined")
        site, site_n = ari(pages, algorithm=algorithm, method="site")
        for t in GRID:
            extra = {"q_c": t / 2} if key == "q_a" else {}
            table[t][name] = ari(pages, algorithm=algorithm, method="site", **{key: t}, **extra)[0]
        for c in CLOSENESS_GRID:
            close_table[c][name] = ari_orders(
                pages, algorithm=algorithm, method="site", closeness=c
            )
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        if not mark:
            means["combined"].append(base)
            means["site"].append(site)
        orders = close_table[CLOSENESS["site"]][name]
        print(
            f"{name + mark:24} {types:5d}  {base:17.3f} ({base_n:3d})  {site:13.3f} ({site_n:3d})"
            f"  {orders:14.3f}"
        )
        if show_confusion:
            result = cluster_pages(
                [page.summary for page in pages], algorithm=algorithm, method="site"
            )
            confusion(pages, result.labels())
    for method, values in means.items():
        if values:
            print(
                f"mean over the distinct-template sites, {method}: {sum(values) / len(values):.3f}"
            )
    return table, close_table


def online_section(loaded: Mapping[str, list[Page]]) -> dict[float, dict[str, float]]:
    """Crawl-time discovery ARI per site; the grid of its closeness."""
    print("\ncrawl-time discovery (OnlineDiscovery, 3 shuffled orders): mean ARI (clusters)")
    online_table: dict[float, dict[str, float]] = {c: {} for c in ONLINE_CLOSENESS_GRID}
    for name, pages in loaded.items():
        base, base_n = online_ari(pages, "combined")
        site, site_n = online_ari(pages, "site")
        for c in ONLINE_CLOSENESS_GRID:
            online_table[c][name] = (
                site if c == SITE_CLOSENESS else online_ari(pages, "site", closeness=c)[0]
            )
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        print(
            f"{name + mark:24} combined {base:.3f} ({base_n:5.1f})  site {site:.3f} ({site_n:5.1f})"
        )
    return online_table


def loso_sections(
    names: list[str],
    key: str,
    table: Mapping[float, Mapping[str, float]],
    close_table: Mapping[float, Mapping[str, float]],
    online_table: Mapping[float, Mapping[str, float]],
) -> None:
    print(f"\nleave-one-site-out ({key} from {GRID}, chosen on the other four sites):")
    for held, (chosen, value) in loso(table, names).items():
        print(f"  {held:24} {key} {chosen:<5} held-out ARI {value:.3f}")
    judges = [name for name in names if name not in SHARED_TEMPLATE_SITES]
    sections = (
        ("batch merge", close_table, CLOSENESS_GRID, CLOSENESS["site"]),
        ("discovery", online_table, ONLINE_CLOSENESS_GRID, SITE_CLOSENESS),
    )
    for title, grid_table, grid, default in sections:
        print(
            f"\nleave-one-site-out, {title} closeness (from {grid}, chosen on the other "
            f"distinct-template sites; default {default}):"
        )
        for held, (chosen, value) in loso(grid_table, names, judges).items():
            mark = " *" if held in SHARED_TEMPLATE_SITES else ""
            print(
                f"  {held + mark:24} closeness {chosen:<5} held-out ARI {value:.3f}  "
                f"(default {grid_table[default][held]:.3f}, off {grid_table[0.0][held]:.3f})"
            )


def overlap_table(sets: list[str], sites: list[str]) -> None:
    """Batch ARI per site under each value of OVERLAP_GRID; OVERLAP leave-one-site-out."""
    grid_loso(sets, sites, "overlap", OVERLAP_GRID, OVERLAP["site"])


def lone_table(sets: list[str], sites: list[str]) -> None:
    """Batch ARI per site under each value of LONE_GRID; LONE leave-one-site-out."""
    grid_loso(sets, sites, "lone", LONE_GRID, LONE["site"])


def grid_loso(
    sets: list[str], sites: list[str], option: str, grid: tuple[float, ...], default: float
) -> None:
    """Batch ARI (path order and three shuffled orders) per site under each value of one
    ``cluster_pages`` option; the value chosen per held-out site on every other site."""
    table: dict[float, dict[str, float]] = {value: {} for value in grid}
    print(f"{'site':24} " + " ".join(f"{value:>6}" for value in grid))
    for name in sets:
        for folder in _site_folders(name):
            if sites and folder.name not in sites:
                continue
            pages = load_site(folder) if name != SO_SET else folder_pages(folder)
            for value in grid:
                table[value][folder.name] = ari_orders(pages, method="site", **{option: value})
            row = " ".join(f"{table[value][folder.name]:6.3f}" for value in grid)
            print(f"{_site_name(folder.name):24} {row}", flush=True)
    names = list(table[grid[0]])
    for value in grid:
        print(f"  mean, {option} {value}: {mean([table[value][n] for n in names]):.3f}")
    print(f"\nleave-one-site-out, {option} (from {grid}; default {default}):")
    chosen_values = []
    for held, (chosen, value) in loso(table, names).items():
        chosen_values.append(value)
        print(
            f"  {_site_name(held):24} {option} {chosen:<5} held-out ARI {value:.3f}  "
            f"(default {table[default][held]:.3f}, off {table[0.0][held]:.3f})"
        )
    print(f"  mean held-out ARI {mean(chosen_values):.3f}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", default="")
    parser.add_argument("--algorithm", default="snn", choices=("snn", "agglomerative"))
    parser.add_argument("--confusion", action="store_true", help="clusters against types")
    parser.add_argument("--agreement", action="store_true", help="batch vs crawl-time, fast")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--orders", type=int, default=0, help="crawl-time ARI over N orders")
    parser.add_argument("--with-so", action="store_true", help="with --orders: also " + SO_SET)
    parser.add_argument("--fixture-orders", type=int, default=0, help="the test pages, N orders")
    parser.add_argument("--closeness", type=float, default=None, help="with --fixture-orders")
    parser.add_argument(
        "--loso", action="store_true", help="with --orders: young site pages, settling"
    )
    parser.add_argument("--overlap", action="store_true", help="the merge by overlap, LOSO")
    parser.add_argument("--lone", action="store_true", help="lone pages attached, LOSO")
    return parser


def _one_table(args: argparse.Namespace, sites: list[str]) -> bool:
    """Run the table an option asks for; False when none does (the default report)."""
    sets = [n for n in args.sets.split(",") if n]
    if args.fixture_orders:
        fixture_orders(args.fixture_orders, args.closeness)
    elif args.orders:
        orders_table(sets + ([SO_SET] if args.with_so else []), sites, args.orders, args.loso)
    elif args.agreement:
        agreement_table(sets, sites)
    elif args.overlap:
        overlap_table([*sets, SO_SET], sites)
    elif args.lone:
        lone_table([*sets, SO_SET], sites)
    elif args.confusion and (args.sets != ",".join(SETS) or sites):
        confusion_table(sets, sites)
    else:
        return False
    return True


def main() -> None:
    args = _parser().parse_args()
    sites = [n for n in args.sites.split(",") if n]
    if _one_table(args, sites):
        return
    root = shared("site_page_types")
    names = sites or sorted(p.name for p in root.iterdir() if p.is_dir())
    key = "t_n" if args.algorithm == "snn" else "q_a"
    print(
        f"algorithm {args.algorithm}; site method default {key} = {METHOD_THRESHOLDS['site'][key]}"
    )
    loaded = {name: load_site(root / name) for name in names}
    table, close_table = batch_section(loaded, args.algorithm, key, args.confusion)
    online_table = online_section(loaded)
    loso_sections(names, key, table, close_table, online_table)


if __name__ == "__main__":
    main()
