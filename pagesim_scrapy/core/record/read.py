"""Reading a page's structured data once, in every syntax the record uses."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import lxml.html
from lxml import etree
from w3lib.encoding import html_to_unicode

from .jsonld import read_jsonld
from .markup import read_microdata, read_rdfa
from .meta import Flat, read_meta, read_opengraph, read_twitter
from .options import RecordOptions

__all__ = ["StructuredData", "read_structured"]

logger = logging.getLogger(__name__)

_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass
class StructuredData:
    """A page's structured data: schema.org entities per syntax, flat head data per syntax."""

    entities: dict[str, list[dict]] = field(default_factory=dict)
    flat: dict[str, Flat] = field(default_factory=dict)
    #: the parsed page, for what only its body shows (a thread's posts); not compared
    root: Any = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return any(self.entities.values()) or any(self.flat.values())


def as_utf8(html: str | bytes) -> bytes:
    """The page as UTF-8 bytes, its encoding taken from its BOM or meta charset if bytes."""
    if isinstance(html, bytes):
        html = html_to_unicode(None, html)[1]
    return html.encode("utf-8", "replace")


def _parser() -> lxml.html.HTMLParser:
    """``lxml.html``'s parser with a class lookup done in C: every element an
    :class:`lxml.html.HtmlElement` (what the structured-data readers need), without
    ``lxml.html``'s own lookup, a Python call per node each walk makes (it only picks
    form-control classes, which no reader uses)."""
    parser = lxml.html.HTMLParser(encoding="UTF-8")
    parser.set_element_class_lookup(
        etree.ElementDefaultClassLookup(
            element=lxml.html.HtmlElement,
            comment=lxml.html.HtmlComment,
            pi=lxml.html.HtmlProcessingInstruction,
            entity=lxml.html.HtmlEntity,
        )
    )
    return parser


def parse_html(data: bytes) -> etree._Element | None:
    """The tree of a UTF-8 page, or ``None`` for an empty or unparsable page."""
    if not data or not data.strip():
        return None
    try:
        return lxml.html.fromstring(data, parser=_parser())
    except (etree.ParserError, ValueError) as exc:
        logger.debug("page not parsed for its record: %s", exc)
        return None


def read_structured(
    html: str | bytes, url: str = "", options: RecordOptions | None = None
) -> StructuredData:
    """Every syntax's structured data of a page (empty for an empty or unparsable page)."""
    options = options or RecordOptions()
    data = as_utf8(html)
    root = parse_html(data)
    if root is None:
        return StructuredData()
    entities = {
        "json-ld": read_jsonld(root, options, url),
        "microdata": read_microdata(root, url, data),
        "rdfa": read_rdfa(data, options, url, root),
    }
    twitter = read_twitter(root)
    twitter.update(twitter_labels(twitter))
    flat = {"opengraph": read_opengraph(root), "twitter": twitter, "meta": read_meta(root)}
    return StructuredData(entities, flat, root)


def twitter_labels(twitter: Flat) -> Flat:
    """``twitter:labelN``/``twitter:dataN`` pairs as ``twitter:label:<label slug>`` keys."""
    out: Flat = {}
    for key in sorted(twitter):
        if not key.startswith("twitter:label") or not key[13:].isdigit():
            continue
        data = twitter.get("twitter:data" + key[13:])
        slug = _SLUG.sub("_", twitter[key][0].lower()).strip("_")
        if data and slug:
            out.setdefault("twitter:label:" + slug, []).extend(data)
    return out
