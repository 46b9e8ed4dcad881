"""The memory a discovery save takes: the Python allocations' peak while the discovered types
are written, against the file's size (docs/scale.md, "Memory").

    python benchmarks/bench_discovery_save.py [--types 200]

Discovers types (method ``site``, one site per data folder) over the real pages of
../shared/data until ``--types`` types exist, then saves them twice under tracemalloc: as the
crawl does (one type at a time) and as one JSON document (what saving did before), and prints
each peak and the ratio to the file's size.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_crawl import base_pages, read_page

from pagesim_scrapy.core.cluster import OnlineDiscovery
from pagesim_scrapy.core.cluster.persist import FORMAT, FORMAT_VERSION, options_to_dict
from pagesim_scrapy.core.statefile import write_atomic
from pagesim_scrapy.core.summary import PageParseError, summarize


def discovered(types: int) -> OnlineDiscovery:
    discovery = OnlineDiscovery(method="site", max_clusters=types)
    for path in base_pages():
        html = read_page(path).decode("utf-8", "replace")
        try:
            summary = summarize(html, source=str(path))
        except PageParseError:
            continue
        discovery.assign(summary, source=str(path), html=html, site=path.parent.name)
        if len(discovery) >= types:
            break
    return discovery


def save_as_one_document(discovery: OnlineDiscovery, path: Path) -> None:
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "settings": discovery.settings(),
        "summary_options": options_to_dict(discovery.options),
        "clusters": [rep.to_dict() for rep in discovery.representatives()],
    }
    write_atomic(path, json.dumps(document, ensure_ascii=True))


def peak_of(
    save: Callable[[OnlineDiscovery, Path], None], discovery: OnlineDiscovery
) -> tuple[int, int, bytes]:
    """The Python allocations' peak of ``save``, the file's size and its bytes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "discovery.json"
        tracemalloc.start()
        save(discovery, path)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak, path.stat().st_size, path.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--types", type=int, default=200, help="types to discover (200)")
    args = parser.parse_args()
    discovery = discovered(args.types)
    pieces, size, text = peak_of(lambda d, p: d.save(p), discovery)
    whole, _, whole_text = peak_of(save_as_one_document, discovery)
    print(f"{len(discovery)} types, file {size / 1e6:.1f} MB (same bytes: {text == whole_text})")
    print(f"one type at a time: peak {pieces / 1e6:.1f} MB = {pieces / size:.2f} x the file")
    print(f"one document:       peak {whole / 1e6:.1f} MB = {whole / size:.2f} x the file")


if __name__ == "__main__":
    main()
