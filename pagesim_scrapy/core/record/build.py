"""The core record: for each standard field, the first source (most trusted first) that has it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import groups
from .bodycrumbs import body_breadcrumbs, with_body_breadcrumbs
from .bodyproduct import product_from_body
from .bodyrecipe import recipe_from_body
from .bodyvariants import body_variants, with_body_variants
from .entities import find_entity, resolve, types_of, walk
from .fields import FIELDS, MAIN_TYPES, OG_TYPES, FieldSpec
from .model import CoreRecord, Value
from .naming import BodyNaming, typed_by_metadata
from .normalise import (
    as_availability,
    as_currency,
    as_gtin,
    as_identifier,
    as_name,
    as_price,
    as_text,
    as_urls,
    first,
)
from .options import RecordOptions
from .posts import body_posts, posts_may_change, with_body_posts
from .read import StructuredData, read_structured

__all__ = [
    "build_record",
    "fill_from_body",
    "from_body",
    "guess_page_type",
    "label_type",
    "read_page",
    "read_record",
    "retyped",
    "typed_by_label",
]

_STRUCTURED = ("json-ld", "microdata", "rdfa")
_FLAT = ("opengraph", "twitter", "meta")
_GROUPS = ("breadcrumbs", "variants", "posts")


def read_record(
    html: str | bytes,
    url: str = "",
    *,
    page_type: str | None = None,
    options: RecordOptions | None = None,
    label: str | None = None,
) -> CoreRecord:
    """The core record of a page: standard names for its page type, each value with its source.

    ``page_type`` overrides the type guessed from the page's schema.org types; ``label`` is
    the type most of the page's label's records have (:func:`typed_by_label`).
    """
    return read_page(html, url, page_type=page_type, options=options, label=label)[0]


def read_page(
    html: str | bytes,
    url: str = "",
    *,
    page_type: str | None = None,
    options: RecordOptions | None = None,
    label: str | None = None,
) -> tuple[CoreRecord, Any]:
    """:func:`read_record` and the parsed page it was read from (None for an empty or
    unparsable page), for what else the body shows (:func:`.bodyfields.body_fields`)."""
    options = options or RecordOptions()
    data = read_structured(html, url, options)
    record = build_record(data, url, page_type, options)
    forced = page_type is not None
    if posts_may_change(record, forced):
        record = with_body_posts(record, body_posts(data.root), forced)
    if record.page_type == "product" and "variants" not in record.fields:
        record = with_body_variants(record, body_variants(data.root))
    record = from_body(record, data.root, options)
    if "breadcrumbs" not in record.fields:
        record = with_body_breadcrumbs(record, body_breadcrumbs(data.root, url))
    typed = typed_by_label(record, data.root, label)
    if typed.page_type != record.page_type:
        typed = from_body(typed, data.root, options)
    return typed, data.root


def label_type(types: Mapping[str, int]) -> str | None:
    """The page type most of a label's records have (``types``: records per type), None
    when two types tie for the most: the site's own say on what its label's pages are."""
    ranked = sorted(types.items(), key=lambda item: -item[1])
    if not ranked or ranked[0][1] <= 0:
        return None
    if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
        return None
    return ranked[0][0]


#: page types a body reader reads (:func:`from_body`): a plain page of a label whose records
#: are mostly of one of them is read as one
BODY_READ_TYPES = frozenset({"product", "recipe"})


def typed_by_label(record: CoreRecord, root: Any, label: str | None) -> CoreRecord:
    """``record`` as its label's type (:func:`label_type`) says, where the page's own
    metadata names none (a plain ``page``). A page whose label's records are threads is a
    thread when its body shows one signed post (a topic nobody answered yet): one post alone
    does not make a page a thread (an article or a product page shows one signed block too),
    it takes the site's other pages to say so. A page whose label's records are recipes or
    products is one of them, so that the body readers look for its values (the site's
    learned naming may have no trusted field on this page); the readers run after the
    naming (:func:`fill_from_body`) or, without one, in :func:`read_page`."""
    if record.page_type != "page" or root is None:
        return record
    if label == "thread":
        return with_body_posts(record, body_posts(root), False, min_posts=1)
    if label in BODY_READ_TYPES:
        return retyped(record, label)
    return record


def retyped(record: CoreRecord, page_type: str) -> CoreRecord:
    """``record`` as a record of ``page_type``: the fields that type has too, in its order."""
    order = [spec.name for spec in FIELDS[page_type]]
    fields = {name: record.fields[name] for name in order if name in record.fields}
    return CoreRecord(page_type, fields, dict(record.extra))


def from_body(record: CoreRecord, root: Any, options: RecordOptions | None = None) -> CoreRecord:
    """``record`` with what the body's own markup, labels and headings say of the product or
    recipe fields its metadata leaves empty (source ``body``)."""
    options = options or RecordOptions()
    record = product_from_body(record, root, options.body_product)
    return recipe_from_body(record, root, options.body_recipe)


def fill_from_body(
    naming: BodyNaming,
    core: CoreRecord,
    body: Any,
    root: Any,
    options: RecordOptions | None = None,
) -> CoreRecord:
    """``core``'s gaps filled from what the body's own labels say (:func:`from_body`), then
    from the body fields the site's metadata names (:meth:`.BodyNaming.fill`), which keeps
    the reader's values: the order a page whose metadata names its type is read in (its
    readers ran when its record was read). A plain page the naming types (its label's
    type) is read for that type's values after the naming."""
    if typed_by_metadata(core):
        return naming.fill(core, body)
    read = from_body(core, root, options)
    filled = naming.fill(read, body)
    if filled.page_type != read.page_type:
        return from_body(filled, root, options)
    return filled


def build_record(
    data: StructuredData,
    url: str = "",
    page_type: str | None = None,
    options: RecordOptions | None = None,
) -> CoreRecord:
    """The core record from structured data already read (see `read_structured`)."""
    options = options or RecordOptions()
    page_type = page_type or guess_page_type(data, options)
    if page_type not in FIELDS:
        raise ValueError(f"unknown page type {page_type!r}; known: {', '.join(FIELDS)}")
    specs = FIELDS[page_type]
    fields: dict[str, Value] = {}
    mains: dict[str, dict | None] = {}  # each syntax's main entity, looked for once
    for spec in specs:
        found = _field(spec, page_type, data, url, options, mains)
        if found is not None:
            fields[spec.name] = found
    return CoreRecord(page_type, fields, _extras(data, specs, options))


def guess_page_type(data: StructuredData, options: RecordOptions | None = None) -> str:
    """The page type named by the page's schema.org types (else ``og:type``, else ``page``)."""
    depth = (options or RecordOptions()).max_depth
    present = {
        t
        for source in _STRUCTURED
        for node in walk(data.entities.get(source, []), depth)
        for t in types_of(node)
    }
    for page_type, wanted in MAIN_TYPES.items():
        if present & wanted:
            return page_type
    og_type = first(data.flat.get("opengraph", {}).get("og:type", []))
    return OG_TYPES.get((og_type or "").lower(), "page")


def _field(
    spec: FieldSpec,
    page_type: str,
    data: StructuredData,
    url: str,
    options: RecordOptions,
    mains: dict[str, dict | None],
) -> Value | None:
    for source in _STRUCTURED:
        entities = data.entities.get(source, [])
        if not entities:
            continue
        if source not in mains:
            mains[source] = find_entity(entities, MAIN_TYPES[page_type], options.max_depth)
        value = _from_entities(spec, entities, mains[source], url, options)
        if value is not None:
            return Value(value, source)
    for source in _FLAT:
        flat = data.flat.get(source, {})
        for key in spec.flat:
            if key in flat:
                value = _normalise(spec.kind, flat[key], url, options)
                if value is not None:
                    return Value(value, source)
    return None


def _from_entities(
    spec: FieldSpec, entities: list[dict], main: dict | None, url: str, options: RecordOptions
) -> Any:
    """The field from one syntax's entities (``main``: the page type's main entity in them)."""
    if spec.kind == "breadcrumbs":
        return groups.breadcrumbs(entities, options.max_depth)
    if spec.kind == "posts":
        return groups.posts(entities, options.max_depth, options.max_items)
    if main is None:
        return None
    if spec.kind == "variants":
        return groups.variants(main, options.max_items)
    for path in spec.paths:
        value = _normalise(spec.kind, resolve(main, path), url, options)
        if value is not None:
            return value
    return None


def _normalise(kind: str, raw: Any, url: str, options: RecordOptions) -> Any:
    if raw in (None, [], ""):
        return None
    if kind == "urls":
        return as_urls(raw, url, options.max_items)
    if kind == "url":
        found = as_urls(first(raw), url, 1)
        return found[0] if found else None
    return _SCALAR[kind](raw, options)


def _enum(raw: Any, options: RecordOptions) -> str | None:
    text = as_text(raw, 200)
    return text.rstrip("/").rsplit("/", 1)[-1] if text else None


def _first_of(function: Callable[[Any], Any]) -> Callable[[Any, RecordOptions], Any]:
    """A normaliser of one value tried on each value found, first usable one wins."""

    def apply(raw: Any, options: RecordOptions) -> Any:
        items = raw if isinstance(raw, list) else [raw]
        return next((v for v in map(function, items) if v is not None), None)

    return apply


_SCALAR: dict[str, Callable[[Any, RecordOptions], Any]] = {
    "text": lambda raw, o: _first_of(lambda v: as_text(v, o.max_text))(raw, o),
    "name": _first_of(as_name),
    "id": _first_of(as_identifier),
    "gtin": _first_of(as_gtin),
    "price": _first_of(as_price),
    "currency": _first_of(as_currency),
    "availability": _first_of(as_availability),
    "enum": _first_of(lambda v: _enum(v, RecordOptions())),
    "authors": lambda raw, o: groups.authors(raw),
    "texts": lambda raw, o: groups.texts(raw, o.max_items),
    "instructions": lambda raw, o: groups.instructions(raw, o.max_items),
    "location": _first_of(groups.location),
    "reviews": lambda raw, o: groups.reviews(raw, o.max_items),
}


def _extras(data: StructuredData, specs: tuple[FieldSpec, ...], options: RecordOptions) -> dict:
    """twitter:labelN values the page labels itself that no standard field took, by label."""
    taken = {key for spec in specs for key in spec.flat}
    twitter = data.flat.get("twitter", {})
    extra = {}
    for key in sorted(twitter):
        if key.startswith("twitter:label:") and key not in taken:
            text = as_text(twitter[key], options.max_text)
            if text:
                extra[key[len("twitter:label:") :]] = Value(text, "twitter")
    return extra
