"""Body fields named by the site's metadata: how much of a page's core record comes back from
its body alone once its metadata is gone.

For each multi-page site (the demo shop's products, each recipe_scrapers_testdata site,
the question/article/post pages of site_page_types and site_page_types_2) and each page of it
(at most ``--held`` per site): a :class:`~pagesim_scrapy.core.record.naming.BodyNaming` learns
from the site's *other* pages (the ``--train`` next ones) which body field agrees with their
metadata; then the held-out
page is stripped of its metadata (JSON-LD and other script data, microdata and RDFa
attributes, ``<meta>`` tags) and its core record is filled from its body. Truth is the
unstripped page's own core record (its structured data). Per attribute:

* ``shown``: held-out pages whose stripped body shows the true value somewhere (any body
  field that reads as the same value, :func:`~pagesim_scrapy.core.record.bodyvalues.same`);
* ``got``: of those, pages whose filled record has the attribute from the body, the same value;
* ``wrong``: pages whose filled record has a body value for it that is not the true one.

Below ``min_pages`` a name is trusted from fewer pages when its agreement was specific
(:class:`~pagesim_scrapy.core.record.naming.NamingOptions` ``min_specific_chars``,
``max_specific_elements``). ``--loso [GRID]`` chooses constants leave-one-site-out over
the recipe sites and the other sites with figures (grid ``specific``: those two; grid
``formed``, the default: ``max_formed_elements``, one-page trust of dates, durations and
lists, and ``max_keys``, the fallback keys per name): for each site, the candidate with the
most right values less twice the wrong ones on the *other* sites is applied to it (a wrong
value costs a user more than a missing one: it has to be found and removed), and the
held-out figures are pooled.

``--misses`` prints, per attribute, why values were missed (not shown by the body, shown
but no name trusted, the learned key not on the page, a wrong value) with examples: the
metadata's value and the body text most like it.
``--settled`` judges instead each site of more pages than a label needs to settle in crawl
order (each page teaches the naming, then is filled without its metadata), with
``settled_pages`` 0 (never) and its default, and says how many pages each learned from.
``--unshown`` says where a page keeps the values its stripped body does not show (the
removed metadata only, inside a longer text, a hidden element, an attribute: which one).
Further grids: ``plain`` (``max_plain_elements``), ``small`` (with ``shown_pages_only``),
``long`` (``min_long_chars``, ``max_long_elements``, ``few_pages``), ``layouts``
(``few_pages``), ``anchored`` (``anchored``, ``anchor_depth``).
The goal lines count a value the stripped body shows in no field whole as shown "inside a
longer text" only where a text ends with it after a short label ("by Mike") or the body shows
every item of a list; a value only mentioned in running text (a title, a menu item, a
comment) or shown in part is counted apart.

The held-out page is filled as a crawl fills it: by the site's learned naming first, then by
the body reader (:mod:`~pagesim_scrapy.core.record.bodyproduct`,
:mod:`~pagesim_scrapy.core.record.bodyrecipe`) for what the naming leaves; the goal lines say
the reader's share apart. ``--no-reader``: the naming alone. ``--typed``: the held-out page
is read as its type, so the reader runs before the naming (a page whose own metadata names
its type); ``--over-reader``: the naming then replaces the reader's values with its own
(``NamingOptions.over_body_reader`` on; off by default, the naming keeps them).
``--half even|odd``: the recipe sites at even or odd places by sorted name (the reader's
words were chosen on the even half).

Run: ``python benchmarks/eval_body_names.py [--held N] [--train N] [--min-pages N] [--site S]
[--loso [GRID]] [--misses] [--unshown] [--settled] [--no-reader] [--typed] [--over-reader]
[--half even|odd]``. Deterministic.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import re
import sys
import warnings
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import lxml.html

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.record.bodyfields import (  # noqa: E402
    anchor_fields,
    body_fields,
    is_image_key,
)
from pagesim_scrapy.core.record.bodyvalues import (  # noqa: E402
    read_as,
    same,
    sequences,
    value_kind,
)
from pagesim_scrapy.core.record.build import from_body as body_reader  # noqa: E402
from pagesim_scrapy.core.record.build import label_type, read_page, typed_by_label  # noqa: E402
from pagesim_scrapy.core.record.fields import FIELDS  # noqa: E402
from pagesim_scrapy.core.record.model import CoreRecord  # noqa: E402
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions  # noqa: E402
from pagesim_scrapy.core.record.posts import BODY  # noqa: E402
from pagesim_scrapy.core.record.read import as_utf8  # noqa: E402
from pagesim_scrapy.core.record.signatures import SignatureMemory  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
DEMO = ROOT / "sample_project" / "demo_site"
RECIPES = DATA / "recipe_scrapers_testdata" / "tests" / "test_data"
TYPES = [
    ("site_page_types", "android_stackexchange", "question"),
    ("site_page_types", "awesomewm_wiki", "article"),
    ("site_page_types", "cc_opensource_blog", "blog_entry"),
    ("site_page_types", "flink_site", "blog_post"),
    ("site_page_types_2", "calcite_site", "news_post"),
    ("site_page_types_2", "oem_forum", "forum_topic"),
    ("site_page_types_2", "rust_blog", "blog_post"),
]
#: attributes that carry metadata in a page and are dropped from the held-out copy
META_ATTRS = ("itemprop", "itemscope", "itemtype", "itemid", "itemref", "property", "typeof")
META_ATTRS += ("vocab", "resource", "about", "prefix", "rel", "content")

Page = tuple[str, bytes]


def demo_pages() -> list[Page]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")
    return [("https://shop.example/" + path, (DEMO / path).read_bytes()) for path in paths]


def type_pages(dataset: str, site: str, page_type: str) -> list[Page]:
    folder = DATA / dataset / site
    with (folder / "labels.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["page_type"] == page_type]
    rows.sort(key=lambda row: row["path"])
    return [(row["url"], (folder / row["path"]).read_bytes()) for row in rows]


def recipe_sites() -> list[tuple[str, list[Page]]]:
    out = []
    for folder in sorted(p for p in RECIPES.iterdir() if p.is_dir()):
        files = sorted(folder.glob("*.testhtml"))
        if len(files) >= 2:
            pages = [(f"https://{folder.name}/{f.stem}", f.read_bytes()) for f in files]
            out.append((f"recipes/{folder.name}", pages))
    return out


def stripped(html: bytes) -> bytes:
    """The page without its metadata: script data blocks, ``<meta>`` tags and the
    microdata/RDFa attributes (the visible text and images stay). The copy declares its
    encoding, as a server's header would: without it a page whose ``<meta charset>`` was
    dropped is read as Latin-1 ("325Â°F"). Decoded as the record's reader decodes it."""
    root = lxml.html.fromstring(as_utf8(html), parser=lxml.html.HTMLParser(encoding="utf-8"))
    for el in root.xpath("//script | //meta | //link"):
        el.drop_tree()
    for el in root.iter():
        if isinstance(el.tag, str):
            for name in META_ATTRS:
                el.attrib.pop(name, None)
    head = root.find("head")
    if head is not None:
        head.insert(0, lxml.html.Element("meta", charset="utf-8"))
    return lxml.html.tostring(root, encoding="utf-8")


def prepared(pages: list[Page]) -> list[tuple[CoreRecord, dict[str, str]]]:
    out = []
    for url, html in pages:
        core, root = read_page(html, url)
        out.append((core, body_fields(root, url)))
    return out


Read = tuple[CoreRecord, dict[str, str]]
#: a held-out page read without its metadata: its core record, body fields and tree
Bare = tuple[CoreRecord, dict[str, str], Any]


#: why values were missed, ``{attribute: Counter(reason)}``, and examples (``--misses``)
MISSES: dict[str, Counter[str]] = {}
EXAMPLES: dict[tuple[str, str], list[str]] = {}


#: the held-out pages are filled by the naming, then by the body reader (``--no-reader``:
#: by the naming alone, the figures before the reader)
READER = {"on": True}
#: the held-out page is typed by its label first, as a crawl types it
#: (:func:`~pagesim_scrapy.core.record.build.typed_by_label`: the type most of the pages the
#: naming learned from have); ``--no-label``: only by what the naming finds on it
LABEL = {"on": True}


def judge_page(
    truth: CoreRecord,
    bare: Bare,
    others: list[Read],
    options: NamingOptions,
    site: str = "",
    html: bytes | None = None,
    memory: SignatureMemory | None = None,
) -> Counter[str]:
    naming = BodyNaming(options, memory, site.rsplit("#", 1)[0])
    for core, body in others:
        naming.observe(core, body)
    core, body, root = bare
    if LABEL["on"]:
        core = typed_by_label(core, root, label_type(naming.type_counts()))
    named = naming.fill(core, body)
    filled = body_reader(named, root) if READER["on"] else named
    figures: Counter[str] = Counter()
    for spec in FIELDS.get(truth.page_type, ()):
        kind = value_kind(spec.name, spec.kind)
        want = truth.fields.get(spec.name)
        if want is None or want.source == BODY:
            continue
        if kind is None:
            _missed(spec.name, "no body kind", site, want.value, body)
            continue
        got = filled.fields.get(spec.name)
        from_body = got is not None and got.source == BODY
        shown = _shown(kind, want.value, body)
        right = from_body and same(kind, want.value, got.value)
        if shown:
            figures[f"{spec.name}/shown"] += 1
            figures[f"{spec.name}/got"] += right
        figures[f"{spec.name}/wrong"] += from_body and not right
        by_reader = from_body and named.fields.get(spec.name) != got  # the naming had none
        if by_reader:
            figures += _reader_figures(spec.name, right, shown)
        if not shown:
            figures += _unshown(site, spec.name, html, kind, want.value, from_body)
        if not right:
            reason = _reason(naming, truth.page_type, spec.name, shown, from_body)
            reason += " (the body reader's)" if by_reader else ""
            extra = f" got {got.value!r}" if from_body and got is not None else ""
            _missed(spec.name, reason, site, want.value, body, extra)
    return figures


def _unshown(
    site: str, name: str, html: bytes | None, kind: str, value: Any, from_body: bool
) -> Counter[str]:
    """Where a value the stripped body does not show is (the goal line's causes; kept for
    ``--unshown`` where nothing was filled)."""
    if not from_body:
        UNSHOWN.append((site, name, kind, value))
    if html is None:
        return Counter()
    return Counter({f"{name}/{_cause(site, name, html, kind, value)}": 1})


def _reader_figures(name: str, right: bool, shown: bool) -> Counter[str]:
    """The body reader's share: a value it filled, right where shown (counted in the goal
    figure), right elsewhere, or wrong."""
    kind = "reader_got" if right and shown else "reader_other"
    return Counter({f"{name}/{kind}": 1, f"{name}/reader_wrong": int(not right)})


def _reason(naming: BodyNaming, page_type: str, name: str, shown: bool, from_body: bool) -> str:
    """Why a value was not filled right (``--misses``)."""
    if from_body:
        return "wrong value" if shown else "wrong value, not shown"
    if not shown:
        return "not shown"
    counts = naming._types.get(page_type)
    if counts is None or not counts.seen[name]:
        return "shown; no page with the value learned"
    agreed = max((c for (n, _), c in counts.agreed.items() if n == name), default=0)
    seen = (counts.shown if naming.options.shown_pages_only else counts.seen)[name]
    if name in counts.names(naming.options):
        return "shown; learned key not on this page"
    if seen < naming.options.min_pages:
        return f"shown; below min_pages ({agreed}/{seen} agreed)"
    return f"shown; too few pages agreed ({agreed}/{seen})"


def _missed(
    name: str, reason: str, site: str, value: Any, body: dict[str, str], extra: str = ""
) -> None:
    MISSES.setdefault(name, Counter())[reason] += 1
    examples = EXAMPLES.setdefault((name, reason), [])
    if len(examples) < MAX_EXAMPLES:
        examples.append(
            f"{site}: meta {_clip(value)!r}; closest body {_closest(value, body)!r}{extra}"
        )


MAX_EXAMPLES = 4

#: values the stripped body does not show, ``(site#page, attribute, kind, value)`` (``--unshown``)
UNSHOWN: list[tuple[str, str, str, Any]] = []
#: elements whose content a visitor does not read as page text
HIDDEN_TAGS = ("noscript", "template", "svg", "style", "select", "option", "textarea")
#: attributes that hold text a visitor may see (on hover, in a form, as an image's stand-in)
SHOWN_ATTRS = ("alt", "title", "aria-label", "value", "placeholder")


def _needle(kind: str, value: Any) -> str:
    """The part of a value to look for in a page's source: a list's first item, an image
    URL's file name without its size suffix, a text's first words."""
    if isinstance(value, list):
        value = value[0] if value else ""
    text = str(value)
    if kind == "urls":
        stem = text.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return re.sub(r"-\d+x\d+$", "", stem).casefold()
    folded = " ".join(text.split()).casefold()
    return folded[:40]


#: a text that ends with the whole value after at most this many other characters reads as
#: a label and its value ("by Mike", "Cuisine: Chinese"); a value elsewhere in a text is
#: mentioned (a title, a comment, a menu item: "Chicken Breakfast Sandwiches"), not shown
LABEL_CHARS = 40
#: the causes the goal line counts as "inside a longer text" (the body shows the value)
LABELLED = "in the text, inside a longer text (a label and the value)"
LIST_SPLIT = "in the text, a list split otherwise (every item shown)"
MENTIONED = "in running text only (the value mentioned, not shown as one)"
PARTLY = "in the text, in part or written otherwise (not whole)"


def _fold(text: str) -> str:
    """Text as the page reader compares it: spaces collapsed, none before punctuation."""
    return re.sub(r"\s+([,.;:!?)])", r"\1", " ".join(text.split())).casefold()


def _whole_in(needle: str, text: str) -> bool:
    """``needle`` in ``text`` as whole words (not "Appetizer" in "Appetizers", nor
    "@creativecommons" in "info@creativecommons.org")."""
    pattern = r"(?<![\w@.-])" + re.escape(needle) + r"(?![\w@])"
    return re.search(pattern, text) is not None


def _visible_texts(body: Any) -> list[str]:
    """Every visible element's text, folded (the body's own first)."""
    return [
        _fold(el.text_content())
        for el in body.iter()
        if isinstance(el.tag, str) and el.tag not in HIDDEN_TAGS
    ]


def _list_in_text(items: list[str], visible: str) -> str | None:
    """A list the body shows with every item (split otherwise), or its first item only."""
    if all(_whole_in(item, visible) for item in items):
        return LIST_SPLIT
    return PARTLY if _whole_in(items[0][:40], visible) else None


def _in_text(body: Any, kind: str, value: Any) -> str | None:
    """How the visible text holds a value no field shows whole: as a label and the value,
    a list split otherwise, only mentioned in running text, in part; None if not at all."""
    texts = _visible_texts(body)
    visible = texts[0] if texts else ""
    items = [_fold(str(v)) for v in value] if isinstance(value, list) else [_fold(str(value))]
    items = [item for item in items if item]
    if len(items) > 1:
        return _list_in_text(items, visible)
    if not items:
        return None
    needle = items[0]
    holding = [t for t in texts if _whole_in(needle, t)]
    if any(t.endswith(needle) and len(t) - len(needle) <= LABEL_CHARS for t in holding):
        return LABELLED
    if holding:
        return MENTIONED
    return PARTLY if needle[:40] in visible else None


def _where(html: bytes, kind: str, value: Any) -> str:
    """Where a page that does not show ``value`` as an element's text still has it."""
    needle = _needle(kind, value)
    if not needle:
        return "empty value"
    # decoded first: bytes without their ``<meta charset>`` would be read as Latin-1
    root = lxml.html.fromstring(stripped(html).decode("utf-8", "replace"))
    body = root.find("body")
    if body is None:
        return "no body"
    if kind != "urls":
        hidden = [
            " ".join(" ".join(el.itertext()).split()).casefold() for el in body.iter(*HIDDEN_TAGS)
        ]
        if any(needle in text for text in hidden):
            return "in a hidden element (noscript, template, form option…)"
        found = _in_text(body, kind, value)
        if found is not None:
            return found
    for el in body.iter():
        for name, attr in el.attrib.items():
            if needle in " ".join(attr.split()).casefold():
                shown = name in SHOWN_ATTRS
                return f"in an attribute ({name if shown or kind == 'urls' else 'other: ' + name})"
    if needle in html.decode("utf-8", "replace").casefold():
        return "in the metadata only (JSON-LD, meta tags)"
    return "nowhere in the page as written (formatted otherwise)"


def print_unshown(htmls: dict[str, list[bytes]]) -> None:
    """Why the stripped body does not show values, per attribute, with counts."""
    causes: dict[str, Counter[str]] = {}
    for where, name, kind, value in UNSHOWN:
        site, page = where.rsplit("#", 1)
        cause = _where(htmls[site][int(page)], kind, value)
        causes.setdefault(name, Counter())[cause] += 1
    total: Counter[str] = sum(causes.values(), Counter())
    print(f"not shown by the stripped body: {sum(total.values())}")
    for cause, count in total.most_common():
        print(f"  {count:4d}  {cause}")
    for name in sorted(causes):
        print(f"{name}: " + "; ".join(f"{c} {n}" for n, c in causes[name].most_common()))


def _clip(value: Any, width: int = 90) -> str:
    text = " | ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _closest(value: Any, body: dict[str, str]) -> str:
    """The body text most like ``value`` (rapidfuzz's ratio), for a reader to see the form."""
    from rapidfuzz import fuzz, process

    text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    texts = [t for k, t in body.items() if not is_image_key(k) and len(t) <= 3 * len(text) + 60]
    best = process.extractOne(text, texts, scorer=fuzz.ratio) if texts else None
    return _clip(best[0]) if best else ""


def print_misses() -> None:
    for name in sorted(MISSES):
        print(f"{name}:")
        for reason, count in MISSES[name].most_common():
            print(f"  {count:4d}  {reason}")
            for example in EXAMPLES[name, reason]:
                print(f"          {example}")


def _shown(kind: str, truth: Any, body: dict[str, str]) -> bool:
    if kind == "list":
        return any(same(kind, truth, items) for items in sequences(body).values())
    for key, raw in body.items():
        if is_image_key(key) != (kind == "urls"):
            continue
        if same(kind, truth, read_as(kind, raw)):
            return True
    return False


#: a site's pages read with their metadata, its held-out pages read without it, and the
#: held-out pages' HTML (to say where a value the body does not show is)
Site = tuple[list[Read], list["Bare"], list[bytes]]
#: read the held-out pages as their type (``--typed``): the body reader runs before the
#: naming fills, as on a crawled page whose own metadata names its type but lacks a value
TYPED = {"on": False}


def read_site(pages: list[Page], held: int, train: int) -> Site:
    """The pages read with their metadata (the first ``held + train``), and the held-out
    ones read again without it (parsed once, judged with any options)."""
    ready = prepared(pages[: held + train])
    bare = []
    for (truth, _), (url, html) in zip(ready, pages[:held]):
        page_type = truth.page_type if TYPED["on"] and truth.fields else None
        core, root = read_page(stripped(html), url, page_type=page_type)
        bare.append((core, body_fields(root, url), root))
    return ready, bare, [html for _, html in pages[:held]]


def judge_site(
    site: Site,
    train: int,
    options: NamingOptions,
    name: str = "",
    memory: SignatureMemory | None = None,
) -> Counter[str]:
    ready, bare, htmls = site
    figures: Counter[str] = Counter()
    for i, held in enumerate(bare):
        truth = ready[i][0]
        if not truth.fields:
            continue
        others = (ready[i + 1 :] + ready[:i])[:train]
        figures += judge_page(truth, held, others, options, f"{name}#{i}", htmls[i], memory)
    return figures


#: where a value the stripped body shows in no field whole is, as the goal line counts it:
#: inside a longer text (a label and the value, or a list split otherwise), mentioned in
#: running text or shown in part only, only in the removed metadata, elsewhere
IN_TEXT, MENTION, META_ONLY, ELSEWHERE = "in_text", "mention", "meta_only", "elsewhere"
#: ``(site#page, attribute) -> cause``: the same whatever the options judged
_CAUSES: dict[tuple[str, str], str] = {}


def _cause(site: str, name: str, html: bytes, kind: str, value: Any) -> str:
    """:data:`IN_TEXT`, :data:`MENTION`, :data:`META_ONLY` or :data:`ELSEWHERE` (an
    attribute, a hidden element, nowhere as written), read once per page and attribute."""
    key = (site, name)
    if key not in _CAUSES:
        where = _where(html, kind, value)
        _CAUSES[key] = (
            IN_TEXT
            if where in (LABELLED, LIST_SPLIT)
            else MENTION
            if where in (MENTIONED, PARTLY)
            else META_ONLY
            if "metadata" in where
            else ELSEWHERE
        )
    return _CAUSES[key]


def _judge_filled(truth: CoreRecord, filled: CoreRecord, body: dict[str, str]) -> Counter[str]:
    """Right and wrong body values of ``filled`` against ``truth``, as :func:`judge_page`."""
    figures: Counter[str] = Counter()
    for spec in FIELDS.get(truth.page_type, ()):
        kind = value_kind(spec.name, spec.kind)
        want = truth.fields.get(spec.name)
        if kind is None or want is None or want.source == BODY:
            continue
        got = filled.fields.get(spec.name)
        from_body = got is not None and got.source == BODY
        right = from_body and same(kind, want.value, got.value)
        if _shown(kind, want.value, body):
            figures[f"{spec.name}/shown"] += 1
            figures[f"{spec.name}/got"] += right
        figures[f"{spec.name}/wrong"] += from_body and not right
    return figures


def settled_body(naming: BodyNaming, core: CoreRecord, root: Any, url: str) -> dict[str, str]:
    """The body fields the pipeline reads for a page: the wanted keys (every one while the
    naming learns), and the elements near the anchors of the learned keys the page lacks."""
    wanted = naming.wanted()
    body = body_fields(root, url, wanted)
    steps = naming.missing_anchors(core, body) if wanted is not None else frozenset()
    return {**body, **anchor_fields(root, url, steps, naming.options.anchor_depth)}


def judge_crawl(pages: list[Page], options: NamingOptions) -> tuple[Counter[str], int]:
    """In crawl order, each page teaches the naming (with its metadata, reading only the
    keys :meth:`BodyNaming.wanted` asks for, as the pipeline does) and is then filled
    without its metadata; the figures, and the pages the naming learned from."""
    naming = BodyNaming(options)
    figures: Counter[str] = Counter()
    for url, html in pages:
        truth, root = read_page(html, url)
        naming.observe(truth, body_fields(root, url, naming.wanted()))
        core, bare = read_page(stripped(html), url)
        filled = naming.fill(core, settled_body(naming, core, bare, url))
        if truth.fields:
            figures += _judge_filled(truth, filled, body_fields(bare, url))
    return figures, naming.pages


def print_settled(only: str | None, min_pages: int) -> None:
    """``--settled``: sites of more pages than a label needs to settle, in crawl order,
    never settling against the default ``settled_pages``."""
    settled = NamingOptions(min_pages=min_pages)
    for name, pages in sites(only):
        if len(pages) <= settled.settled_pages + 1:
            continue
        for options in (replace(settled, settled_pages=0), settled):
            figures, learned = judge_crawl(pages, options)
            label = f"{name} settled_pages={options.settled_pages}, learned from {learned}"
            print(line(label, figures))


def line(name: str, figures: Counter[str]) -> str:
    judged = ("/shown", "/got", "/wrong")
    names = sorted({key.split("/")[0] for key in figures if key.endswith(judged)})
    parts = []
    for attr in names:
        shown, got, wrong = (figures[f"{attr}/{k}"] for k in ("shown", "got", "wrong"))
        share = f"{got / shown:.2f}" if shown else "-"
        parts.append(f"{attr} {share} ({got}/{shown}, wrong {wrong})")
    shown = sum(v for k, v in figures.items() if k.endswith("/shown"))
    got = sum(v for k, v in figures.items() if k.endswith("/got"))
    wrong = sum(v for k, v in figures.items() if k.endswith("/wrong"))
    total = f"{got / shown:.3f}" if shown else "-"
    return f"{name}: all {total} ({got}/{shown}, wrong {wrong}); " + "; ".join(parts)


def _total(figures: Counter[str], what: str) -> int:
    return sum(v for k, v in figures.items() if k.endswith("/" + what))


def goal_line(name: str, figures: Counter[str]) -> str:
    """The goal's own figure: right values over those the stripped body shows in a field
    whole (the denominator of :func:`line`), and over those it shows at all (whole, or inside
    a longer text as a label and the value, or as a list split otherwise); then how many
    values the body does not show, and where they are."""
    shown, got, wrong = (_total(figures, k) for k in ("shown", "got", "wrong"))
    inside, mention, meta, elsewhere = (
        _total(figures, k) for k in (IN_TEXT, MENTION, META_ONLY, ELSEWHERE)
    )
    whole = f"{got / shown:.3f}" if shown else "-"
    visible = f"{got / (shown + inside):.3f}" if shown + inside else "-"
    return (
        f"{name}: right {got} of {shown} shown whole {whole}, of {shown + inside} shown whole or"
        f" inside a longer text {visible} (wrong {wrong}); missed where shown {shown - got};"
        f" not shown: {inside} inside a longer text (label and value, list split otherwise),"
        f" {mention} mentioned in running text or in part only, {meta} in the metadata only,"
        f" {elsewhere} elsewhere (attribute, hidden, written otherwise)"
    )


def print_goal(per_site: dict[str, Counter[str]], prefix: str = "") -> None:
    """:func:`goal_line` for the recipe sites, the other sites and all of them."""
    recipes = sum((f for n, f in per_site.items() if n.startswith("recipes/")), Counter())
    others = sum((f for n, f in per_site.items() if not n.startswith("recipes/")), Counter())
    for kind, figures in (("recipes", recipes), ("others", others), ("pooled", recipes + others)):
        print(goal_line(f"{prefix}goal {kind}", figures))
        print(reader_line(f"{prefix}  of which the body reader", figures))


def reader_line(name: str, figures: Counter[str]) -> str:
    """The body reader's share of the goal figure: the values it filled (where the naming
    filled none) right, wrong, and right where the judge does not count the value shown."""
    got, other, wrong = (_total(figures, k) for k in ("reader_got", "reader_other", "reader_wrong"))
    return f"{name}: right {got}, wrong {wrong} (filled where not shown whole: {other})"


#: ``--half even|odd``: the recipe sites at even or odd places by sorted name (the reader's
#: words chosen on the even half, the odd half reported beside it)
HALF = {"of": "all"}


def sites(only: str | None) -> list[tuple[str, list[Page]]]:
    out = [("demo_shop", demo_pages())]
    out += [(f"{site}/{kind}", type_pages(ds, site, kind)) for ds, site, kind in TYPES]
    recipes = recipe_sites()
    out += recipes if HALF["of"] == "all" else recipes[HALF["of"] == "odd" :: 2]
    return [(name, pages) for name, pages in out if only is None or only in name]


#: candidates tried by ``--loso``, per grid: NamingOptions fields and their values
LOSO_GRIDS: dict[str, list[dict[str, Any]]] = {
    # one-page trust of specific texts (chosen in an earlier round: (4, 3))
    "specific": [
        {"min_specific_chars": chars, "max_specific_elements": elements}
        for chars, elements in [(c, e) for c in (6, 8, 12, 20) for e in (1, 2, 3)]
        + [(4, 3), (4, 5), (6, 5), (8, 5)]
    ],
    # one-page trust of dates, durations and lists; fallback keys per name
    "formed": [
        {"max_formed_elements": formed, "max_keys": keys}
        for formed in (0, 1, 2, 3, 4, 6)
        for keys in (1, 3, 5, 8)
    ],
    # small sites: other values trusted from few pages where few elements show them, and
    # pages whose body does not show the value left out of a name's pages
    "small": [
        {"max_plain_elements": plain, "shown_pages_only": shown}
        for plain in (0, 1, 2, 3)
        for shown in (0, 1)
    ],
    # other values trusted from few pages: how many elements may show them
    "plain": [{"max_plain_elements": plain} for plain in (0, 3, 4, 6, 8, 12)],
    # small sites: long texts shown by more elements; a key the other pages lack
    "long": [
        {"min_long_chars": chars, "max_long_elements": elements, "few_pages": few}
        for chars, elements in [(0, 8), (16, 5), (16, 8), (24, 8), (24, 12), (40, 12)]
        for few in (0, 4)
    ],
    # a key the other pages lack, where they show the value elsewhere (a second layout)
    "layouts": [{"few_pages": few} for few in (0, 4)],
    # a key absent from a site's other pages with the value: those pages say nothing
    # against it (``absent_silent``: from how many agreeing pages; 0: only where they show
    # the value elsewhere), over the first ``few_pages`` pages
    "absent": [
        {"few_pages": few, "absent_silent": silent}
        for few, silent in [(0, 0), (4, 0), (10, 0), (4, 1), (10, 1), (10, 2)]
    ],
    # the same, a key absent from the other pages trusted only where other sites' pages
    # vouch for its signature (the memory backs a site's thin own evidence)
    "backed": [
        {"few_pages": few, "absent_silent": silent, "absent_needs_memory": backed}
        for few, silent, backed in [(0, 0, 0), (4, 0, 1), (4, 1, 1), (10, 1, 1)]
    ],
    # the same, only around the chosen (3, 5): cheaper to rerun
    # signatures other sites vouched for: how many sites a name needs
    "memory": [{"min_sites": sites} for sites in (1, 2, 3, 4, 6)],
    # a page without a name's trusted keys read from the element that ends like one
    "anchored": [{"anchored": False}]
    + [{"anchored": True, "anchor_depth": depth} for depth in (0, 1, 2, 3)]
    # ... taken only where it looks like the values that agreed on the site's pages
    + [
        {"anchored": True, "anchor_depth": depth, **checks}
        for depth in (1, 2)
        for checks in [
            {"anchor_lists_only": True},
            {"anchor_no_code": True},
            {"anchor_size_slack": 1.5},
        ]
        + [{"anchor_no_code": True, "anchor_size_slack": s} for s in (1.0, 1.5, 2.0, 3.0)]
    ],
    # the share of a name's pages a key must agree on (a site whose metadata names one of
    # several tags the body lists first on most pages, not all)
    # ... and a key absent from the other pages trusted whatever its values' specificity
    "absent-plain": [{"absent_plain": plain} for plain in (False, True)],
    "share": [{"min_share": share} for share in (0.8, 0.75, 0.66, 0.6)],
    "formed-near": [
        {"max_formed_elements": formed, "max_keys": keys}
        for formed in (2, 3, 4, 6)
        for keys in (3, 5, 8)
    ],
}
#: a wrong value counts this many missing ones when ``--loso`` compares candidates
WRONG_COST = 2


def _score(figures: Counter[str]) -> int:
    got = sum(v for k, v in figures.items() if k.endswith("/got"))
    wrong = sum(v for k, v in figures.items() if k.endswith("/wrong"))
    return got - WRONG_COST * wrong


def _label(candidate: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in candidate.items())


def loso(
    named: list[tuple[str, Site]], args: argparse.Namespace, everyone: list[tuple[str, Site]]
) -> dict[str, Counter[str]]:
    """Held-out figures per site, each judged with the candidate best on the other sites
    (the signature memory, when on, from every site but the judged one)."""
    grid = LOSO_GRIDS[args.loso]
    per: list[dict[str, Counter[str]]] = []
    for candidate in grid:
        fields = {k: v for k, v in candidate.items() if k != "min_sites"}
        options = NamingOptions(min_pages=args.min_pages, **fields)
        min_sites = candidate.get("min_sites", args.min_sites)
        memory = None if args.no_memory else site_memory(everyone, options, min_sites)
        per.append(
            {name: judge_site(site, args.train, options, name, memory) for name, site in named}
        )
    held: dict[str, Counter[str]] = {}
    chosen: Counter[str] = Counter()
    for name, _ in named:
        best = max(
            range(len(grid)),
            key=lambda c: _score(sum((f for n, f in per[c].items() if n != name), Counter())),
        )
        chosen[_label(grid[best])] += 1
        held[name] = per[best][name]
    for candidate, figures in zip(grid, per):
        print(line(f"all sites with {_label(candidate)}", sum(figures.values(), Counter())))
    print("chosen (folds):", dict(chosen))
    return held


def site_memory(
    named: list[tuple[str, Site]], options: NamingOptions, min_sites: int
) -> SignatureMemory:
    """Every site's vote, from all its pages read with their metadata. A judged page's
    naming never counts its own site's vote (:class:`BodyNaming`'s ``site``), so what the
    memory adds is learned from the other sites only (leave-one-site-out)."""
    memory = SignatureMemory(min_sites)
    for name, (ready, _, _) in named:
        naming = BodyNaming(options, site=name)
        for core, body in ready:
            naming.observe(core, body)
        naming.teach(memory)
    return memory


def _with_figures(name: str) -> bool:
    """The recipe sites and the other sites whose pages have metadata the body shows."""
    return name.startswith("recipes/") or name in LOSO_OTHERS


#: the sites besides the recipes with body-shown metadata values (the others have none)
LOSO_OTHERS = (
    "demo_shop",
    "android_stackexchange/question",
    "cc_opensource_blog/blog_entry",
    "flink_site/blog_post",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--held", type=int, default=10, help="pages held out per site")
    parser.add_argument("--site", help="only sites whose name holds this")
    parser.add_argument("--train", type=int, default=10, help="pages learned from per page")
    parser.add_argument("--min-pages", type=int, default=NamingOptions().min_pages)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every recipe site")
    parser.add_argument(
        "--loso",
        nargs="?",
        const="formed",
        choices=sorted(LOSO_GRIDS),
        help="choose a grid's constants held out (default grid: formed)",
    )
    parser.add_argument(
        "--misses", action="store_true", help="per attribute, why values were missed"
    )
    parser.add_argument(
        "--unshown", action="store_true", help="where the values the body does not show are"
    )
    parser.add_argument(
        "--settled", action="store_true", help="crawl order, with and without settling"
    )
    parser.add_argument(
        "--no-memory", action="store_true", help="no signatures learned from other sites"
    )
    parser.add_argument(
        "--min-sites", type=int, default=2, help="sites a signature's name needs (memory)"
    )
    parser.add_argument(
        "--half", choices=("all", "even", "odd"), default="all", help="recipe sites: one half"
    )
    parser.add_argument(
        "--no-reader", action="store_true", help="the naming alone (no body reader after it)"
    )
    parser.add_argument(
        "--over-reader",
        action="store_true",
        help="the naming replaces the body reader's values (NamingOptions.over_body_reader on)",
    )
    parser.add_argument(
        "--typed", action="store_true", help="held-out pages read as their type (reader first)"
    )
    parser.add_argument(
        "--no-label",
        action="store_true",
        help="held-out pages not typed by their label (only by what the naming fills)",
    )
    args = parser.parse_args()
    HALF["of"], READER["on"], TYPED["on"] = args.half, not args.no_reader, args.typed
    LABEL["on"] = not args.no_label
    options = NamingOptions(min_pages=args.min_pages, over_body_reader=args.over_reader)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")  # dateutil on time zone names it does not know
    if args.settled:
        print_settled(args.site, args.min_pages)
        return 0
    everyone = [(n, read_site(p, args.held, args.train)) for n, p in sites(args.site)]
    if args.loso:
        named = [(n, site) for n, site in everyone if _with_figures(n)]
        held = loso(named, args, everyone)
        print(line("held out (pooled)", sum(held.values(), Counter())))
        print_goal(held, "held out ")
        return 0
    memory = None if args.no_memory else site_memory(everyone, options, args.min_sites)
    per_site: dict[str, Counter[str]] = {}
    htmls: dict[str, list[bytes]] = {}
    for name, site in everyone:
        htmls[name] = site[2]
        figures = judge_site(site, args.train, options, name, memory)
        per_site[name] = figures
        if args.verbose or not name.startswith("recipes/"):
            print(line(name, figures))
    recipes = sum((f for n, f in per_site.items() if n.startswith("recipes/")), Counter())
    print(line("recipes (pooled)", recipes))
    print(line("pooled", sum(per_site.values(), Counter())))
    print_goal(per_site)
    if args.misses:
        print_misses()
    if args.unshown:
        print_unshown(htmls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
