"""The page's own labelled rows (``<th>Label</th><td>value</td>``, ``<dt>``/``<dd>``,
``Label: value``), each under its label's name.

A row the page labels is data by the page's own word, whether or not its value varies over
the site and whichever pages a wrapper has seen: read from the page alone, these fields are
the same whatever the crawl order, and a value equal on every page (the one brand of a shop)
stays a field. Only rows the page marks as labels (``th``, ``dt``, a colon) count, never
the site's chrome (navigation, header, footer), a tip written as a sentence, or a label
the page repeats (the rows of a list of records, which the wrapper's groups hold).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from pagesim_scrapy.core.induce.labels import find_rows, label_key, link_run, prose, row_value
from pagesim_scrapy.core.induce.naming import snake

if TYPE_CHECKING:
    from pagesim_scrapy.core.induce.dom import Element

__all__ = ["page_rows"]


def page_rows(root: Element) -> dict[str, str | list[str]]:
    """``{name: value}`` of the page's labelled data rows, in page order; a run of links is
    a list of the link texts, any other value one string."""
    rows = find_rows(root)
    counts = Counter(label_key(row.label) for row in rows)
    out: dict[str, str | list[str]] = {}
    for row in rows:
        key = label_key(row.label)
        if not key or counts[key] > 1 or not row.explicit or row.chrome:
            continue
        if not row.value.strip() or prose(row.label, row.value):
            continue
        name = snake(row.label)
        if not name or name in out:
            continue
        out[name] = row_value(row, "values" if link_run(row) else "text", "")
    return out
