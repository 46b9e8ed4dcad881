"""Pages met many times (issue 35, item 4): can repeats starve a label on a real site?

    python benchmarks/eval_repeats.py [--repeats 1,5,10] [--sites a,b] [--seed 1]

A crawl meets one page under several URLs (session ids, sort parameters, tracking query
strings): the same HTML, or nearly (a notice, a highlighted sort tab). Protocols, per site of
``site_page_types`` and pooled, method ``site``, one label with its first 2 pages as templates,
pages decided one by one in a shuffled order, every page (the templates too) met ``repeats``
times:

* one-type site: the site is the type's first 20 pages only (the issue's reproducer); recall of
  the label over the arrivals of the pages other than the templates;
* whole site: every page of the site, one type configured at a time (types with >= 5 pages);
  micro P/R/F1 over the arrivals;
* near-identical: as "whole site", but every second copy of a page carries a small notice at
  the top of its body (a page a little different from its first copy).

Copy ``i`` of a page is met under the page's URL with a query string of the kind a crawl meets
(a session id, a tracking parameter, a sort order; the notice copies under ``?sort=votes``).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _data import shared  # noqa: E402
from site_accuracy import _BODY_CLASS, Counts  # noqa: E402

from pagesim_scrapy.core.classify import build_classifier  # noqa: E402
from pagesim_scrapy.core.summary import PageSummary, summarize  # noqa: E402
from pagesim_scrapy.settings import PageSimConfig  # noqa: E402

NOTICE = b'<div class="notice"><p>Sorted by date. <a href="?sort=votes">Sort by votes</a></p></div>'


#: The query strings copy i of a page is met under (the near-identical copies: the odd ones).
QUERIES = ("", "?sort=votes", "?sid=8f3a9c", "?sort=votes&sid=8f3a9c", "?utm_source=feed")


def load(folder: Path) -> list[tuple[str, str, list[PageSummary]]]:
    """(path, label, summaries of its copies, see QUERIES) of every page of a site; the odd
    copies carry a notice in their near-identical form, the same page otherwise."""
    import csv

    options = PageSimConfig().summary_options()
    out = []
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            data = (folder / row["path"]).read_bytes()
            if folder.name == "awesomewm_wiki":
                data = _BODY_CLASS.sub(rb"\1", data, count=1)
            url = row["url"] or f"http://{folder.name}/{row['path']}"
            # the same HTML under another URL: the same summary but for its source
            plain, notice = summarize(data, options), summarize(_with_notice(data), options)
            copies = [replace(plain, source=url + query) for query in QUERIES]
            copies += [replace(notice, source=url + query) for query in QUERIES]
            out.append((row["path"], row["page_type"], copies))
    out.sort(key=lambda page: page[0])
    return out


def _with_notice(data: bytes) -> bytes:
    lower = data.lower()
    start = lower.find(b"<body")
    end = data.find(b">", start) if start >= 0 else -1
    if end < 0:
        return data
    return data[: end + 1] + NOTICE + data[end + 1 :]


def run(pages, label, tests_of, repeats: int, seed: int, near: bool) -> Counts:
    templates = [page for page in pages if page[1] == label][:2]
    clf = build_classifier({label: [t[2][0] for t in templates]}, method="site")
    arrivals = [(page, copy) for page in pages for copy in range(repeats)]
    random.Random(f"{seed}:{label}:{repeats}").shuffle(arrivals)
    counts = Counts()
    for page, copy in arrivals:
        summary = page[2][copy % len(QUERIES) + (len(QUERIES) if near and copy % 2 else 0)]
        verdict = clf.classify(summary)
        if tests_of(page) and page not in templates:
            counts.add(page[1] == label, verdict.label == label)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", default="1,5,10")
    parser.add_argument("--sites", default="")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    root = shared("site_page_types")
    found = sorted(p.name for p in root.iterdir() if p.is_dir())
    names = args.sites.split(",") if args.sites else found
    sites = {name: load(root / name) for name in names}
    for repeats in map(int, args.repeats.split(",")):
        pooled = {"one-type": Counts(), "whole": Counts(), "near": Counts()}
        for name, pages in sites.items():
            row = {key: Counts() for key in pooled}
            for label, count in sorted(Counter(page[1] for page in pages).items()):
                if count < 5:
                    continue
                own = [page for page in pages if page[1] == label][:20]
                row["one-type"].merge(run(own, label, lambda p: True, repeats, args.seed, False))
                row["whole"].merge(run(pages, label, lambda p: True, repeats, args.seed, False))
                row["near"].merge(run(pages, label, lambda p: True, repeats, args.seed, True))
            for key, counts in row.items():
                pooled[key].merge(counts)
            print(
                f"repeats {repeats:2d} {name:22s} one-type R {row['one-type'].recall:.3f}"
                f" | whole {row['whole']} | near {row['near']}",
                flush=True,
            )
        print(
            f"repeats {repeats:2d} {'pooled':22s} one-type R {pooled['one-type'].recall:.3f}"
            f" | whole {pooled['whole']} | near {pooled['near']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
