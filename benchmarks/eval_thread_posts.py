"""Posts per thread page read from the body against the page's real posts.

Real posts are counted from each forum's own markup (Drupal 6: ``div.comment`` under
``#main``; Stack Exchange 2015: the question, its ``div.answer`` and ``tr.comment``).
Run: ``python benchmarks/eval_thread_posts.py [--misses]`` (``--misses``: each page whose
count differs, with its counts). Deterministic.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import lxml.html

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.record.posts import body_posts  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
SITES = [
    ("site_page_types_2", "oem_forum", "forum_topic"),
    ("site_page_types", "android_stackexchange", "question"),
]
_CLASS = "contains(concat(' ',normalize-space(@class),' '),' {} ')"


def real_posts(root: lxml.html.HtmlElement, site: str) -> int:
    if site == "oem_forum":
        return len(root.xpath("//div[@id='main']//div[" + _CLASS.format("comment") + "]"))
    answers = "//div[@id='answers']/div[" + _CLASS.format("answer") + "]"
    comments = "//tr[" + _CLASS.format("comment") + "]"
    return sum(len(root.xpath(x)) for x in ("//div[@id='question']", answers, comments))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list pages whose count differs")
    misses = parser.parse_args().misses
    for dataset, site, page_type in SITES:
        folder = DATA / dataset / site
        if not folder.is_dir():
            continue
        with (folder / "labels.csv").open(encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle) if r["page_type"] == page_type]
        equal = found = real = 0
        for row in rows:
            root = lxml.html.fromstring((folder / row["path"]).read_bytes())
            got, want = len(body_posts(root)), real_posts(root, site)
            equal += got == want
            if misses and got != want:
                print(f"  {row['path']}: found={got} real={want}")
            found += got
            real += want
        print(
            f"{site} {page_type}: pages={len(rows)} posts found={found} real={real} "
            f"pages with every post={equal}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
