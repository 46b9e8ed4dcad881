"""A page item's record: the core record first, then, once each, what the wrapper induced.

The core record (standard names, from the page's structured data) is what a user looks for
first; the induced fields add what the page's body has beyond it. An induced field is kept
only when it says something new: not a value the record holds already (under a core name or
an earlier induced one), not the site's chrome; and it gets a readable name, never a CSS
class, a URL scheme or its own value. The record's values stay plain (a user stores them);
each core value's source is returned beside it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.induce.naming import label_text, snake

from .cards import RELATED_PRODUCTS, body_cards, gather_cards
from .fields import FIELDS
from .landmarks import LandmarkTexts
from .model import CoreRecord
from .tidy import (
    _SLOT,
    _norm,
    _texts,
    is_chrome,
    is_layout_name,
    member_keys,
    merge_numbered_regions,
    readable_name,
    text_names,
    text_of,
    value_keys,
)

__all__ = ["ItemRecord", "item_record"]

#: An induced text this long that a core text contains repeats it (a paragraph of the
#: description); shorter ones may be contained by chance ("In stock").
MIN_CONTAINED = 30

#: Every standard name of a core record, whatever the page type.
STANDARD_NAMES = frozenset(spec.name for specs in FIELDS.values() for spec in specs)

#: a value that is a link or a picture, not a text (any scheme, or a path)
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/)\S*$", re.I)

#: the prefix of a row the page labels with a core field's name but shows another value
#: in (a specification table's "Brand" beside the structured data's brand): the page's
#: specification of it, kept apart from the core value, whose source ``sources`` gives
SPEC = "spec"
#: the former prefix, kept importable for code that refers to it
LABELLED = SPEC

#: The generic name of an induced field whose own name says nothing (``field_1``, …).
GENERIC_NAME = "field"


@dataclass(frozen=True)
class ItemRecord:
    """``record``: core fields (standard names), core extras, then the induced fields kept;
    ``sources``: ``{name: source}`` for the core values (every other field is read from the
    page's body by the wrapper); ``page_type`` the core record's page type ("" without one);
    ``dropped``: how many induced fields were left out, by why (``repeat``, ``chrome``)."""

    record: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    page_type: str = ""
    dropped: dict[str, int] = field(default_factory=dict)


class Reading:
    """A value's texts, read once for every check the record makes of it: its keys
    (:func:`.tidy.value_keys`), its folded text (:func:`.tidy.text_of`), whether a core text
    holds it, its list's region. Reading a list of groups is most of what those checks
    cost, and each used to read it again."""

    __slots__ = ("_folded", "_keys", "_texts", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._texts: list[str] | None = None
        self._folded: str | None = None
        self._keys: frozenset[str] | None = None

    @property
    def texts(self) -> list[str]:
        """:func:`.tidy._texts` of the value."""
        if self._texts is None:
            self._texts = _texts(self.value)
        return self._texts

    @property
    def folded(self) -> str:
        """:func:`.tidy.text_of` of the value: its texts joined, folded."""
        if self._folded is None:
            self._folded = _norm(" ".join(self.texts))
        return self._folded

    def keys(self) -> frozenset[str]:
        """:func:`.tidy.value_keys` of the value."""
        if self._keys is None:
            value = self.value
            folded = self.folded if isinstance(value, (dict, list, tuple)) else None
            self._keys = frozenset(value_keys(value, folded))
        return self._keys


class _Readings:
    """The readings of one record's values, by the value object (a value merged or
    gathered anew gets a reading of its own)."""

    def __init__(self) -> None:
        self._by_id: dict[int, Reading] = {}

    def of(self, value: Any) -> Reading:
        reading = self._by_id.get(id(value))
        if reading is None or reading.value is not value:
            reading = self._by_id[id(value)] = Reading(value)
        return reading


def _value_names(readings: _Readings, values: Any) -> set[str]:
    """:func:`.tidy.value_names` of a record whose values are ``values``, from their
    readings (the same texts, read once for this and the checks after it)."""
    return text_names(text for value in values for text in readings.of(value).texts)


class _Builder:
    """The record being built: its names and the values it holds already."""

    def __init__(
        self,
        value_names: set[str],
        landmarks: LandmarkTexts | None = None,
        readings: _Readings | None = None,
    ) -> None:
        self.record: dict[str, Any] = {}
        #: each value's texts and keys, read once (:class:`Reading`)
        self.readings = readings or _Readings()
        self.sources: dict[str, str] = {}
        self.seen: set[str] = set()
        #: values held in another shape (product cards as the wrapper read them)
        self.held: set[str] = set()
        self.core_texts: list[str] = []
        #: long texts of the core record's groups (a review's body), to know the same
        #: groups read by the wrapper with their texts glued together
        self.group_texts: list[str] = []
        self.value_names = value_names
        #: what the page's header and footer show (:mod:`.landmarks`)
        self.landmarks = landmarks or LandmarkTexts()
        #: the texts of the lists kept (:func:`region_key`)
        self.regions: set[str] = set()
        self.generic = 0
        self.dropped: dict[str, int] = {}

    def add_core(self, name: str, value: Any, source: str) -> None:
        if name in self.record:
            return
        self.record[name] = value
        self.sources[name] = source
        reading = self.readings.of(value)
        self.seen |= reading.keys() | member_keys(value)
        text = reading.folded
        if len(text) >= MIN_CONTAINED:
            self.core_texts.append(text)
        if isinstance(value, list):
            members = (text_of(m) for g in value if isinstance(g, dict) for m in g.values())
            self.group_texts.extend(t for t in members if len(t) >= MIN_CONTAINED)

    def hold(self, keys: set[str]) -> None:
        """Values the record holds in another shape (product cards as the wrapper read them):
        a later field holding one of them repeats it."""
        self.held |= keys

    def add_row(self, name: str, value: Any) -> None:
        """A row the page labels: named by its label, kept unless it repeats a value; a
        label that is a core name whose value differs is the page's specification of it
        (``spec_brand``), so the record says which value came from where."""
        keys = self.readings.of(value).keys()
        if not keys or keys & self.seen:
            self._drop("repeat")
            return
        self.seen |= keys
        if name in self.sources:  # the page's own row of a name the core record holds
            name = f"{SPEC}_{name}"
        self.record[self._unique(name)] = value

    def add_induced(self, name: str, value: Any, page_url: str | None) -> None:
        if is_chrome(name, value, page_url):
            self._drop("chrome")
            return
        reading = self.readings.of(value)  # read once for the checks below
        texts = reading.texts
        if self._in_site_chrome(texts):
            self._drop("chrome")
            return
        keys = reading.keys()
        known = self.seen if name == RELATED_PRODUCTS else self.seen | self.held
        if (
            keys & known
            or self._in_core_text(reading.folded)
            or self._groups_held(value, known, texts)
        ):
            self._drop("repeat")
            return
        region = _region_key(value, texts)  # only a value not dropped above needs it
        if region and region in self.regions:
            self._drop("repeat")  # one region read twice: its texts alone, and with links
            return
        self.seen |= keys
        if region:
            self.regions.add(region)
        self.record[self._name_for(name, value)] = value

    def _in_site_chrome(self, value_texts: list[str]) -> bool:
        """Every text of the value (``value_texts``) is one only the site's header or footer
        shows (read up to the first text they do not show: most fields' first)."""
        landmarks = self.landmarks
        if not landmarks.only:
            return False
        texts = []
        for text in value_texts:
            if _URL.match(text.strip()):
                continue
            folded = _norm(text)
            if folded and folded not in landmarks.shown:
                return False
            texts.append(folded)
        return landmarks.hold([t for t in texts if t])

    def _groups_held(self, value: Any, known: set[str], texts: list[str]) -> bool:
        """A list of groups each of which holds a value the record has already (the rows of
        a labelled table, read as rows first); or texts alone (no link, no picture) most of
        which it holds: a glued copy of a region the wrapper read, in part, with its links."""
        if not isinstance(value, list) or not value or not all(isinstance(g, dict) for g in value):
            return False
        held = sum(self._group_held(group, known) for group in value)
        if held == len(value):
            return True
        plain = not any(_URL.match(t.strip()) for t in texts)
        return plain and len(value) >= 2 and held * 2 >= len(value)

    def _group_held(self, group: dict, known: set[str]) -> bool:
        if any(value_keys(member) & known for member in group.values()):
            return True
        text = text_of(group)
        return any(held in text for held in self.group_texts)

    def _in_core_text(self, text: str) -> bool:
        """A long value text (``text``: the value's folded :func:`.tidy.text_of`) that a
        core text holds."""
        return len(text) >= MIN_CONTAINED and any(text in core for core in self.core_texts)

    def _drop(self, why: str) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + 1

    def _name_for(self, name: str, value: Any) -> str:
        if is_layout_name(name):
            name = own_label(value) or readable_name(name) or self._generic_name()
        elif name.rstrip("_0123456789") in self.value_names:
            # named after a value ("Sven" before a date)
            name = own_label(value) or self._generic_name()
        return self._unique(name)

    def _generic_name(self) -> str:
        self.generic += 1
        return f"{GENERIC_NAME}_{self.generic}"

    def _unique(self, base: str) -> str:
        name, k = base, 2
        while name in self.record:
            name = f"{base}_{k}"
            k += 1
        return name


def item_record(
    core: CoreRecord | None,
    induced: Mapping[str, Any],
    page_url: str | None = None,
    rows: Mapping[str, Any] | None = None,
    landmarks: LandmarkTexts | None = None,
    root: Any = None,
) -> ItemRecord:
    """The record of a page item: ``core``'s fields (then its extras) under their standard
    names, then the page's own labelled ``rows`` (:func:`.rows.page_rows`, read from the page
    alone, so the same whatever the wrapper learned), then the fields of ``induced`` (a
    wrapper's record, in its order; standard names first) that are neither chrome nor a
    repeat of a value held already (the first one kept), layout names and names made of a
    value replaced by a readable part of them or ``field_N``. ``page_url`` finds links to the
    page itself; an induced field whose texts the page's header and footer hold
    (``landmarks``, :func:`.landmarks.landmark_texts`) is the site's chrome. With the
    page's parsed ``root``, related products the wrapper read in part are completed from
    the page's card list (:func:`.cards.body_cards`). Empty
    slots are left out. Deterministic: the same inputs give the same record."""
    rows = rows or {}
    # a name the page itself uses as a row label is a label, not a value ("Brand" in a
    # specification table)
    readings = _Readings()
    builder = _Builder(_value_names(readings, induced.values()) - set(rows), landmarks, readings)
    if core is not None:
        for name, value in core.fields.items():
            builder.add_core(name, value.value, value.source)
        for name, value in core.extra.items():
            builder.add_core(name, value.value, value.source)
    induced, card_keys = gather_cards(merge_numbered_regions(induced), page_url)
    if induced.get(RELATED_PRODUCTS) and root is not None:
        cards, texts = body_cards(root, induced[RELATED_PRODUCTS], page_url or "")
        induced[RELATED_PRODUCTS], card_keys = cards, card_keys | texts
    builder.hold(card_keys)
    first = [name for name in induced if name in STANDARD_NAMES and name not in builder.record]
    for name in first:  # the wrapper read a standard field the core lacks: its name wins
        builder.add_induced(name, induced[name], page_url)
    for name, value in rows.items():
        learned = induced.get(name)
        if learned is not None and readings.of(learned).keys() & value_keys(value):
            value = learned  # the wrapper's field of that label, at the grain it learned
        builder.add_row(name, value)
    for name, value in induced.items():
        if name not in first:
            builder.add_induced(name, value, page_url)
    page_type = core.page_type if core is not None and core else ""
    record = without_empty(_numbered_names_resolved(builder.record, builder.sources))
    return ItemRecord(record, builder.sources, page_type, builder.dropped)


def own_label(value: Any) -> str | None:
    """The name a value's own leading label gives it ("Tags: desk, pen" → ``tags``): the
    page's word for it, where the wrapper's name said nothing."""
    texts = [t.strip() for t in _texts(value) if t.strip()]
    if not texts or ":" not in texts[0] or _URL.match(texts[0]):
        return None
    label = label_text(texts[0].split(":", 1)[0])
    name = snake(label) if label else ""
    return name if name and not is_layout_name(name) else None


def region_key(value: Any) -> str:
    """A list's texts in order without its links and pictures (URLs), folded: the same for
    a region read as a list of texts and as a list of groups with their links; "" for
    anything but a list of two or more."""
    return _region_key(value, _texts(value))


def _region_key(value: Any, value_texts: list[str]) -> str:
    """:func:`region_key` of ``value``, whose texts are ``value_texts``."""
    if not isinstance(value, list) or len(value) < 2:
        return ""
    texts = [t for t in value_texts if not _URL.match(t.strip())]
    return _norm(" | ".join(texts)) if len(texts) >= 2 else ""


def without_empty(value: Any) -> Any:
    """``value`` without its empty slots (None, "", [], {}) at any depth: a field the page
    has no value for is left out, not stored as null (a group keeps its other fields)."""
    if isinstance(value, dict):
        kept = {k: without_empty(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if not _empty(v)}
    if isinstance(value, list):
        return [v for v in map(without_empty, value) if not _empty(v)]
    return value


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and not value)


def _numbered_names_resolved(record: dict[str, Any], sources: Mapping[str, str]) -> dict[str, Any]:
    """``price_2`` becomes ``price`` where no ``price`` is left (the first of its numbered
    slots was a repeat): a number says "another one", and there is none."""
    out: dict[str, Any] = {}
    for name, value in record.items():
        base = _SLOT.sub("", name)
        free = base != name and base not in record and base not in out
        out[base if free and name not in sources else name] = value
    return out
