"""Copy the bundled real-site snapshot (``opensource_site/``) from the labelled data set.

The source is ``site_page_types/cc_opensource_blog`` of the shared data (real pages of
https://opensource.creativecommons.org/, content CC BY 4.0, code MIT): its ``pages/`` tree keeps
the site's own paths, so the pages' links (``/blog/entries/.../``) resolve within the copy.
A subset is taken by a breadth-first walk of the links from the home page that follows only
pages it keeps, with a quota per page type, so that every kept page is reachable from the home
page through kept pages. Pages are copied byte for byte; ``labels.json`` maps each page's path
to its page type; the licence and attribution files come along.

    python sample_project/make_opensource_snapshot.py PATH/TO/site_page_types/cc_opensource_blog
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
from collections import Counter, deque
from pathlib import Path
from urllib.parse import urljoin, urlsplit

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "opensource_site"
SITE_HOST = "opensource.creativecommons.org"

#: Pages kept per type (all the types of the source but ``home`` have more).
QUOTAS = {
    "home": 1,
    "blog_entry": 25,
    "author_page": 15,
    "category_page": 15,
    "entry_list": 12,
    "series_page": 10,
    "static_page": 15,
}

_HREF = re.compile(r'href="([^"#]*)')


def local_path(url: str) -> str | None:
    """The snapshot path of a URL of the site (``blog/entries/x/index.html``), else None."""
    parts = urlsplit(url)
    if parts.netloc != SITE_HOST:
        return None
    path = parts.path.lstrip("/")
    if not path or path.endswith("/"):
        return path + "index.html"
    last = path.rsplit("/", 1)[-1]
    return path if "." in last else path + "/index.html"


def select(rows: list[dict[str, str]], source: Path) -> list[dict[str, str]]:
    by_path = {row["source_path"]: row for row in rows}
    kept = ["index.html"]
    counts: Counter[str] = Counter({"home": 1})
    queue = deque(kept)
    while queue:
        page = by_path[queue.popleft()]
        text = (source / page["path"]).read_text(encoding="utf-8")
        for href in _HREF.findall(text):
            target = local_path(urljoin(page["url"], href))
            if target is None or target in kept or target not in by_path:
                continue
            kind = by_path[target]["page_type"]
            if counts[kind] < QUOTAS.get(kind, 0):
                counts[kind] += 1
                kept.append(target)
                queue.append(target)
    return [by_path[path] for path in sorted(kept)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the cc_opensource_blog folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    with (args.source / "labels.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    chosen = select(rows, args.source)
    if args.out.exists():
        shutil.rmtree(args.out)
    labels: dict[str, str] = {}
    for row in chosen:
        target = args.out / row["source_path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.source / row["path"], target)
        labels[row["source_path"]] = row["page_type"]
    (args.out / "labels.json").write_text(
        json.dumps(labels, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    for name in ("SOURCE.txt", "LICENSE-code-MIT.txt"):
        shutil.copyfile(args.source / name, args.out / name)
    counts = Counter(labels.values())
    print(
        f"{len(labels)} pages into {args.out}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )


if __name__ == "__main__":
    main()
