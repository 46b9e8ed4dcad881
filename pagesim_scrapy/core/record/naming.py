"""Body fields named by the site's own metadata, and used where a page's metadata is missing.

A site's structured data (JSON-LD, microdata, og tags) is its own labelling of its pages:
on the pages that have both, the body field whose value agrees with the metadata's ``price``
is the site's price slot. One :class:`BodyNaming` per (site, page type) is fed each page's
core record and body fields (:func:`.bodyfields.body_fields`, plus any induced field or
labelled row under a key of its own); it learns, per standard name, the body field that
agrees on most of the pages where the metadata has the value (below ``min_pages`` pages, on
every page and specifically: a long text few elements show, a date, duration or list one
element shows, or any other value few elements show), and fills a page's core record from
that field where the metadata lacks the value, or where the metadata says otherwise than a
field that agreed on every page so far (stale metadata). A list (ingredients, steps) is
learned from a repeated element, the key of its path with any rank; a page without the best
field is read from the next trusted one.
Filled values have the source ``body``.
A site whose own pages settle no key for a name may take one from a
:class:`~.signatures.SignatureMemory` (the element other sites built with the same plugin
held the value in), where its own pages do not say otherwise.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .bodyfields import COARSE, LOCAL, is_image_key, key_anchor
from .bodyvalues import (
    ANY_RANK,
    label_of,
    lengths_agree,
    list_share,
    looks_like_code,
    prepared,
    rank_keys,
    read_as,
    same,
    same_prepared,
    sequence,
    sequences,
    value_kind,
)
from .fields import FIELDS
from .model import CoreRecord, Value
from .posts import BODY
from .signatures import SignatureMemory, is_signature

__all__ = ["BodyNaming", "NamingOptions", "typed_by_metadata"]

#: The sources whose schema.org types set a page's type (a head tag alone may not).
_ENTITY_SOURCES = frozenset({"json-ld", "microdata", "rdfa"})


@dataclass(frozen=True)
class NamingOptions:
    """When a body field takes a standard name.

    Attributes:
        min_pages: pages with the metadata's value seen before a name is trusted.
        min_share: share of those pages on which the body field agreed with it.
        stale_pages: a field that agreed on every one of at least this many pages
            overrides the metadata of a page where the two differ.
        max_pages: pages learned from at most; later pages are only filled (cheaper).
        min_specific_chars: below ``min_pages``, a field is trusted when it agreed on every
            page seen and each agreement was specific: the value a text at least this long
            and mostly letters (a name, not a number many fields could show), or a URL. A
            site with two pages then learns from one.
        max_specific_elements: ... and at most this many elements of the page showed it (a
            title shown in a heading and a breadcrumb is still specific; a value every card
            shows is not). Both chosen leave-one-site-out (``eval_body_names.py --loso``).
        max_formed_elements: ... and a date, a duration or a list (a value with a form of
            its own) is trusted from one page when at most this many elements showed it
            (0: never; two elements showing the same date or time may be two slots, a
            published and an updated date, a prep and a cook time).
        max_keys: trusted body keys kept per name, best first; a page without the best
            one (a site's second layout, a slot that moved) is read from the next. Both
            chosen leave-one-site-out (``eval_body_names.py --loso formed``); a larger
            ``max_formed_elements`` gains a few values more at the cost of many wrong
            ones, so it stays at 3.
        max_plain_elements: below ``min_pages``, any other value (a number, a short text)
            is trusted from the pages seen when at most this many elements of each showed
            it (0: never; a "4" many slots show names none of them). Chosen
            leave-one-site-out (``eval_body_names.py --loso plain``); a larger value gains a
            few more at the cost of many wrong ones, so it stays at 3.
        shown_pages_only: a page counts towards a name's pages only where some body field
            shows the metadata's value: a page whose body lacks it (a second layout, a
            value the visitor never sees) says nothing about which field holds it.
        min_long_chars: a text at least this long (0: no such rule) is specific when at
            most ``max_long_elements`` elements show it: a recipe's or a product's name
            shown in a heading, a breadcrumb, a card title and a print title is still the
            page's own.
        max_long_elements: see ``min_long_chars``.
        few_pages: on the first this many pages of a site (0: none), a field that agreed
            specifically where it agreed, and was absent from every other page with the
            value while another field showed it there (a second layout), is trusted though
            it agreed on fewer than ``min_share`` of them: those pages say nothing against it.
        absent_silent: ... and, once the key agreed on at least this many pages (0: never),
            a page that lacks the key's element says nothing against it even where its body
            shows the value nowhere (a recipe without the optional slot): on a small site an
            element that agrees wherever both are present is the best evidence there is.
        absent_plain: the ``few_pages`` rule trusts too a key whose agreements were not
            specific (a short category or cuisine many elements show) once it agreed on at
            least ``min_pages`` pages: a slot that holds the value on every page that has it,
            and is missing from the others, is the site's own however short its values.
            Off: chosen leave-one-site-out (``eval_body_names.py --loso absent-plain``), no
            fold takes it.
        memory_share: a signature other sites vouch for (:class:`~.signatures.SignatureMemory`)
            is taken for a name the site's own pages settle no key for when it agreed on more
            than this share of the site's pages with the value (or on none had the value).
        absent_needs_memory: the ``few_pages`` rule trusts a key only where other sites
            vouch for its signature too (the memory backs a site's thin own evidence), not
            on the site's own pages alone. ``few_pages`` and ``absent_silent`` are chosen
            leave-one-site-out (``eval_body_names.py --loso absent``: the same choice in
            every fold); asking the memory too (``--loso backed``) named fewer values.
        settled_pages: a label stops learning (as at ``max_pages``) once its trusted keys
            have stayed the same over this many pages in a row (0: never): later pages of
            the site only repeat what the first ones taught, and counting them was the
            record path's largest cost. A label with nothing learned keeps learning.
        anchored: a page that has none of a name's trusted keys is read from the element
            that ends like one of them (the same last named element, rank and suffix:
            :func:`~.bodyfields.key_anchor`), nearest in depth: a slot whose text one more
            inline element wraps, or a plugin's element nested elsewhere by a second layout.
            Only an anchor one element of the page has, a key of rank 0 or any rank, and
            at most ``anchor_depth`` elements below it (a far ancestor such as the recipe
            card's container names the card, not the slot). Both chosen
            leave-one-site-out (``eval_body_names.py --loso anchored``).
        anchor_depth: see ``anchored``.
        anchor_lists_only: only a list-valued name (ingredients, steps) is read from an
            anchor: a list's repeated element says more about its slot than one text does.
        anchor_size_slack: an anchored value is taken only when its size (a text's length,
            a list's items) is within the range the metadata's values had on the site's pages
            where a body field agreed, widened by this factor each way (0: no such check): a
            heading or a whole content block read where a summary was is far from its size.
        anchor_no_code: an anchored text that reads as CSS or script source is not taken.
            The three chosen leave-one-site-out (``eval_body_names.py --loso anchored``): the
            choice still names a few more values wrong than the anchors off, so ``anchored``
            stays off by default (docs/benchmarks.md).
        over_body_reader: a value the page's generic body reader set before the naming
            fills (:mod:`.bodyproduct`, :mod:`.bodyrecipe`, on a page whose own metadata
            names its type) is replaced by the site's learned field where that has one. Off
            (kept): measured both ways, replacing it named a few more values right and more
            of them wrong (docs/benchmarks.md). A page the label types is read the
            same way: the reader first, the naming for what it leaves.
        labelled_slots: a key whose texts agreed once their label was dropped ("Marca:
            Puma" for "Puma") is not read on a page where its text shows another label
            ("Tipo: …"): a specs list's position holds another field there. A label the
            metadata's value has too ("Rust 1.5: …", a title) is the value's own text.
        thin_constant: a key trusted from fewer than ``min_pages`` pages is not read on a
            page where it shows the very value it agreed with: an element that says the
            same on two pages whose values differ is the site's chrome (a brand menu's
            link, a select's option), not the page's slot. Only a value that names one
            element of a page (a text, a name, a code): a currency or a stock state is the
            same on a shop's pages. Off: on the product shops it leaves out wrong brands
            (menu links, select options), but on the recipe sites it leaves out a blog's
            one author as often (docs/benchmarks.md, eval_records.py).
    """

    min_pages: int = 2
    min_share: float = 0.8
    stale_pages: int = 5
    max_pages: int = 50
    min_specific_chars: int = 4
    max_specific_elements: int = 3
    max_formed_elements: int = 3
    max_keys: int = 5
    max_plain_elements: int = 3
    shown_pages_only: bool = False
    min_long_chars: int = 0
    max_long_elements: int = 8
    few_pages: int = 4
    absent_silent: int = 1
    absent_plain: bool = False
    memory_share: float = 0.5
    absent_needs_memory: bool = False
    settled_pages: int = 10
    anchored: bool = False
    anchor_depth: int = 1
    anchor_lists_only: bool = False
    anchor_size_slack: float = 2.0
    anchor_no_code: bool = True
    over_body_reader: bool = False
    labelled_slots: bool = True
    thin_constant: bool = False

    def __post_init__(self) -> None:
        counts = (self.min_pages, self.stale_pages, self.max_pages, self.max_keys)
        if min(*counts, self.min_specific_chars, self.max_specific_elements) < 1:
            raise ValueError(
                "page counts, min_specific_chars and max_specific_elements must be positive"
            )
        small = (self.max_formed_elements, self.max_plain_elements, self.few_pages)
        if min(*small, self.absent_silent) < 0:
            raise ValueError(
                "max_formed_elements, max_plain_elements, few_pages, absent_silent: not negative"
            )
        if not 0.0 <= self.memory_share < 1.0:
            raise ValueError("memory_share must be in [0, 1)")
        if self.anchor_depth < 0 or self.anchor_size_slack < 0:
            raise ValueError("anchor_depth and anchor_size_slack must not be negative")
        if self.settled_pages < 0:
            raise ValueError("settled_pages must not be negative")
        if min(self.min_long_chars, self.max_long_elements) < 0:
            raise ValueError("min_long_chars and max_long_elements must not be negative")
        if not 0.0 < self.min_share <= 1.0:
            raise ValueError("min_share must be in (0, 1]")


def _kinds(page_type: str) -> dict[str, str]:
    """``{standard name: body kind}`` of the fields of a page type a body text can hold."""
    out = {}
    for spec in FIELDS.get(page_type, ()):
        kind = value_kind(spec.name, spec.kind)
        if kind is not None:
            out[spec.name] = kind
    return out


#: Texts up to this long are read through a cache shared by the pages: a site's chrome
#: (menus, footers, buttons) shows the same short texts on every page.
_SHARED_TEXT = 200


def _read(kind: str, raw: str) -> Any:
    """``raw`` read as a value of ``kind`` and prepared for comparing (None: no value)."""
    value = read_as(kind, raw)
    return None if value in (None, "", []) else prepared(kind, value)


_read_prepared = lru_cache(maxsize=8192)(_read)


def _texts(body: Mapping[str, Any]) -> dict[tuple[bool, str], list[str]]:
    """The page's body texts, each with the keys that show it (an element shows its text
    under several keys) and whether they are image sources."""
    out: dict[tuple[bool, str], list[str]] = {}
    for key, raw in body.items():
        if isinstance(raw, str):
            out.setdefault((is_image_key(key), raw), []).append(key)
    return out


def _readable(
    texts: Mapping[tuple[bool, str], list[str]], kind: str, body: Mapping[str, Any]
) -> list[tuple[list[str], Any]]:
    """The body texts that read as a value of ``kind`` (image sources only as images), each
    with its keys and its value :func:`~.bodyvalues.prepared` for comparing; a list is each
    repeated element's texts, prepared only when compared (:func:`_agreeing`)."""
    if kind == "list":
        return [([path], items) for path, items in sequences(body).items()]
    out = []
    for (is_src, raw), keys in texts.items():
        if is_src != (kind == "urls"):
            continue
        value = _read_prepared(kind, raw) if len(raw) <= _SHARED_TEXT else _read(kind, raw)
        if value is not None:
            out.append((keys, value))
    return out


def _agreeing(kind: str, mine: Any, readable: list[tuple[list[str], Any]]) -> list[str]:
    """The keys of the body values that say the same as ``mine``."""
    if mine is None:
        return []
    if kind == "list":
        return _closest_lists(mine, readable)
    return [key for shown, value in readable if same_prepared(kind, mine, value) for key in shown]


def _closest_lists(mine: tuple[str, ...], readable: list[tuple[list[str], Any]]) -> list[str]:
    """The repeated elements that hold the metadata's list most closely: a wider path (the
    ingredients and the nutrition facts under one ``ul/li``) agrees only where no closer
    one does. Most repeated elements (menus, cards) are ruled out by their length first."""
    shares: dict[str, float] = {}
    for shown, items in readable:
        if lengths_agree(len(mine), len(items)):
            share = list_share(mine, prepared("list", items) or ())
            if share:
                shares.update(dict.fromkeys(shown, share))
    best = max(shares.values(), default=0.0)
    return [key for key, share in shares.items() if share == best]


#: Kinds whose value can name one element of a page (numbers, prices and stock states
#: recur in many places of a page, so one page's agreement says little).
_SPECIFIC_KINDS = frozenset({"text", "name", "authors", "id", "gtin", "urls"})
#: Kinds whose value has a form of its own (a day, a duration, a list of items): one
#: page's agreement says enough when a single element shows it.
_FORMED_KINDS = frozenset({"date", "duration", "list"})


#: Kinds whose size says what a value is (a summary, not a heading nor a whole article);
#: a price's, a date's or a URL's length says nothing.
_SIZED_KINDS = frozenset({"text", "name", "list"})


def _size(kind: str, value: Any) -> int | None:
    """A value's size as :meth:`_TypeCounts.looks_agreed` compares it: a list's items, a
    text's characters (None for values of other kinds)."""
    if kind not in _SIZED_KINDS:
        return None
    return len(value) if isinstance(value, (str, list, tuple)) else None


def _specific(kind: str, value: Any, keys: list[str], options: NamingOptions) -> bool:
    """Few elements of the page agree (an element's keys in the three styles count once),
    and the value is one only a named slot would show: a long text that is not a number,
    a URL, or a formed value (a date, a duration, a list) that only one element shows."""
    elements = [key for key in keys if key[:1] not in (LOCAL, COARSE)]
    if kind in _FORMED_KINDS:
        return 1 <= len(elements) <= options.max_formed_elements
    if 1 <= len(elements) <= options.max_plain_elements:
        return True
    if not elements or kind not in _SPECIFIC_KINDS:
        return False
    if kind == "urls":
        return len(elements) <= options.max_specific_elements
    text = " ".join(value) if isinstance(value, list) else str(value).strip()
    letters = sum(ch.isalpha() for ch in text)
    if letters * 2 <= len(text):
        return False
    if 0 < options.min_long_chars <= len(text):
        return len(elements) <= max(options.max_long_elements, options.max_specific_elements)
    return (
        len(text) >= options.min_specific_chars and len(elements) <= options.max_specific_elements
    )


#: key marks, the key that holds on most pages of a site first
_BREADTH = {LOCAL: 0, COARSE: 1}


def _rank(item: tuple[tuple[str, str], int]) -> tuple[int, int, str]:
    """Most pages agreeing first; on a tie, the key that says least about the page around
    the element (it holds on more of a site's pages), then the key itself (a stable order)."""
    (_, key), count = item
    return -count, _BREADTH.get(key[:1], len(_BREADTH)), key


class _TypeCounts:
    """Agreement counts of one page type: pages with each metadata value, and pages on
    which each body key agreed with it."""

    def __init__(self, page_type: str, options: NamingOptions) -> None:
        self.kinds = _kinds(page_type)
        self.options = options
        self.pages = 0
        self.seen: Counter[str] = Counter()
        #: pages on which some body field showed the metadata's value
        self.shown: Counter[str] = Counter()
        self.agreed: Counter[tuple[str, str]] = Counter()
        #: pages on which the key agreed specifically (:func:`_specific`)
        self.specific: Counter[tuple[str, str]] = Counter()
        #: the first ``few_pages`` pages: their body keys, and per name seen the keys that agreed
        self.early: list[tuple[frozenset[str], dict[str, frozenset[str]]]] = []
        #: per name, the smallest and largest :func:`_size` of the values a body field agreed with
        self.sizes: dict[str, tuple[int, int]] = {}
        #: per (name, key), the labels its texts showed where it agreed
        self.labels: dict[tuple[str, str], set[str]] = {}
        #: per (name, key), the values it agreed with on the name's first ``min_pages`` pages
        self.thin: dict[tuple[str, str], list[Any]] = {}

    def count(self, core: CoreRecord, body: Mapping[str, Any]) -> None:
        self.pages += 1
        texts = _texts(body)
        by_kind: dict[str, list[tuple[list[str], Any]]] = {}
        agreeing: dict[str, frozenset[str]] = {}
        for name, kind in self.kinds.items():
            have = core.fields.get(name)
            if have is None or have.source == BODY:
                continue
            if kind not in by_kind:  # the body read and folded once per kind, not per name
                by_kind[kind] = _readable(texts, kind, body)
            keys = _agreeing(kind, prepared(kind, have.value), by_kind[kind])
            self.seen[name] += 1
            self.shown[name] += bool(keys)
            specific = _specific(kind, have.value, keys, self.options)
            agreeing[name] = frozenset(keys)
            if keys:
                self._note_size(name, _size(kind, have.value))
            for key in keys:
                self.agreed[name, key] += 1
                self.specific[name, key] += specific
                self._note_key(name, key, have.value, body)
        if self.pages <= self.options.few_pages:
            self.early.append((frozenset(_page_keys(body)), agreeing))

    def _note_key(self, name: str, key: str, value: Any, body: Mapping[str, Any]) -> None:
        """Remember what :meth:`readable` asks of a key that agreed: its text's label, and
        the value while the name has few pages."""
        raw = body.get(key)
        if self.options.labelled_slots and isinstance(raw, str):
            label = label_of(raw)
            if label and label not in str(value).casefold():  # read by dropping the label
                self.labels.setdefault((name, key), set()).add(label)
        thin = self.options.thin_constant and self.kinds[name] in _SPECIFIC_KINDS
        if thin and self.seen[name] <= self.options.min_pages:
            self.thin.setdefault((name, key), []).append(value)

    def readable(
        self, name: str, keys: list[str], body: Mapping[str, Any]
    ) -> tuple[str | None, Any]:
        """The key and value :meth:`BodyNaming.fill` takes from ``body``: the first of
        ``keys`` whose text reads as the name's kind, a key not read where its label changed
        or it shows its thin evidence."""
        kind = self.kinds[name]
        return _first_readable(
            kind, keys, body, lambda key, value: self._unlike(name, key, kind, value, body)
        )

    def _unlike(self, name: str, key: str, kind: str, value: Any, body: Mapping[str, Any]) -> bool:
        """Whether the key's text on this page is unlike where it agreed: another label, or
        (trusted from few pages) the same value as there."""
        labels = self.labels.get((name, key))
        raw = body.get(key)
        if labels is not None and isinstance(raw, str) and label_of(raw) not in labels:
            return True
        thin = self.thin.get((name, key))
        if thin is None or self.seen[name] >= self.options.min_pages:
            return False
        return any(same(kind, value, agreed) for agreed in thin)

    def _note_size(self, name: str, size: int | None) -> None:
        if size is not None:
            low, high = self.sizes.get(name, (size, size))
            self.sizes[name] = (min(low, size), max(high, size))

    def looks_agreed(self, name: str, value: Any) -> bool:
        """Whether an anchored value looks like those that agreed on the site's pages: a list
        where the name is one (with ``anchor_lists_only``), no style or script text, and a
        size within the range theirs had (widened by ``anchor_size_slack``)."""
        options = self.options
        if options.anchor_lists_only and self.kinds[name] != "list":
            return False
        if options.anchor_no_code and isinstance(value, str) and looks_like_code(value):
            return False
        slack, size = options.anchor_size_slack, _size(self.kinds[name], value)
        if not slack or size is None:
            return True
        low, high = self.sizes.get(name, (size, size))
        return low / slack <= size <= high * slack

    def names(self, options: NamingOptions) -> dict[str, str]:
        return {name: keys[0] for name, keys in self.keys(options).items()}

    def keys(self, options: NamingOptions) -> dict[str, list[str]]:
        """``{standard name: [trusted body keys, best first]}``."""
        trusted: dict[str, list[str]] = {}
        for (name, key), count in sorted(self.agreed.items(), key=_rank):
            keys = trusted.setdefault(name, [])
            if len(keys) < options.max_keys and self._trusted(name, key, count, options):
                keys.append(key)
        return {name: keys for name, keys in sorted(trusted.items()) if keys}

    def _trusted(self, name: str, key: str, count: int, options: NamingOptions) -> bool:
        seen = self.shown[name] if options.shown_pages_only else self.seen[name]
        if seen < options.min_pages:
            return count == seen and self.specific[name, key] == seen
        if count >= options.min_share * seen:
            return True
        return not options.absent_needs_memory and self._uncontradicted(name, key, count)

    def _uncontradicted(self, name: str, key: str, count: int) -> bool:
        """On a site's first few pages: the key agreed specifically wherever it agreed, and
        every other page with the value lacks the key's element and shows the value
        elsewhere (a second layout) or, with ``absent_silent``, at all: none says otherwise."""
        if self.pages > len(self.early) or not self._agreed_alike(name, key, count):
            return False
        path = _element_path(key)
        silent = 0 < self.options.absent_silent <= count
        return all(
            key in agreed[name] or ((silent or agreed[name]) and path not in keys)
            for keys, agreed in self.early
            if name in agreed
        )

    def _agreed_alike(self, name: str, key: str, count: int) -> bool:
        """The key agreed specifically wherever it agreed or, with ``absent_plain``, on at
        least ``min_pages`` pages."""
        if self.specific[name, key] == count:
            return True
        return self.options.absent_plain and count >= self.options.min_pages

    def vouched(self, options: NamingOptions) -> dict[str, list[str]]:
        """``{name: signatures}`` that agreed on at least ``min_share`` of the pages with
        the value: what this site tells a :class:`.SignatureMemory` about other sites."""
        out: dict[str, list[str]] = {}
        for (name, key), count in sorted(self.agreed.items()):
            if is_signature(key) and count >= options.min_share * self.seen[name]:
                out.setdefault(name, []).append(key)
        return out

    def confirms(self, name: str, key: str) -> bool:
        """Whether the site's own pages leave a key other sites vouch for: it agreed on
        more than ``memory_share`` of those with the value, or none had the value to say
        otherwise."""
        seen, agreed = self.seen[name], self.agreed[name, key]
        if agreed > self.options.memory_share * seen or not seen:
            return True
        return bool(agreed) and self._uncontradicted(name, key, agreed)

    def overrides(self, name: str, key: str, options: NamingOptions) -> bool:
        seen = self.seen[name]
        return seen >= options.stale_pages and self.agreed[name, key] == seen


class BodyNaming:
    """What one site's metadata calls its body fields, for the pages of one label
    (thread-safe: a pipeline feeds it from several worker threads)."""

    def __init__(
        self,
        options: NamingOptions | None = None,
        memory: SignatureMemory | None = None,
        site: str = "",
    ) -> None:
        self.options = options or NamingOptions()
        #: what other sites' pages taught: asked only for names this site's do not settle
        self.memory = memory
        self.site = site
        self.pages = 0
        self._types: dict[str, _TypeCounts] = {}
        self._lock = threading.Lock()
        #: the trusted keys after the last page learned from, and pages since they changed
        self._last: dict[str, list[str]] = {}
        self._unchanged = 0
        #: set by :meth:`stop_learning`
        self._stopped = False

    @property
    def learning(self) -> bool:
        if self._stopped:
            return False
        settled = self.options.settled_pages
        return self.pages < self.options.max_pages and not (settled and self._unchanged >= settled)

    def stop_learning(self) -> None:
        """Learn from no more pages, only fill: a naming learned from a fixed set of pages
        (a label's sample, in canonical order) then names every page the same, whatever
        order the pages come in."""
        with self._lock:
            self._stopped = True

    def observe(self, core: CoreRecord, body: Mapping[str, Any]) -> None:
        """Count which body fields agree with the page's metadata (the values it has from
        structured data, not from the body)."""
        with self._lock:
            if not self.learning:
                return
            self.pages += 1
            counts = self._types.get(core.page_type)
            if counts is None:
                counts = self._types[core.page_type] = _TypeCounts(core.page_type, self.options)
            counts.count(core, body)
            if self.options.settled_pages:
                self._note_keys(counts.keys(self.options))

    def _note_keys(self, keys: dict[str, list[str]]) -> None:
        """Count the pages in a row after which the trusted keys stayed the same (a page of
        another type, or keys still empty, starts the count again)."""
        same_keys = bool(keys) and keys == self._last
        self._unchanged = self._unchanged + 1 if same_keys else 0
        self._last = keys

    def type_counts(self) -> dict[str, int]:
        """How many of the pages it learned from had each page type."""
        with self._lock:
            return {page_type: counts.pages for page_type, counts in self._types.items()}

    def page_type(self) -> str | None:
        """The page type the label's pages have most (a plain ``page`` only when no other)."""
        with self._lock:
            ranked = sorted(self._types.items(), key=lambda kv: (kv[0] == "page", -kv[1].pages))
        return ranked[0][0] if ranked else None

    def names(self, page_type: str | None = None) -> dict[str, str]:
        """``{standard name: body key}`` learned well enough to use, for ``page_type``
        (default: the label's own)."""
        page_type = page_type or self.page_type()
        with self._lock:
            counts = self._types.get(page_type or "")
            return counts.names(self.options) if counts is not None else {}

    def wanted(self) -> frozenset[str] | None:
        """The body keys a page must be read for: the learned ones, or None (every key)
        while still learning."""
        if self.learning:
            return None
        page_type = self.page_type()
        with self._lock:
            counts = self._types.get(page_type or "")
            keys = self._keys(counts, page_type or "") if counts is not None else {}
        return frozenset(_read_keys(key for trusted in keys.values() for key in trusted))

    def missing_anchors(self, core: CoreRecord, body: Mapping[str, Any]) -> frozenset[str]:
        """The anchors (:func:`~.bodyfields.key_anchor`) of the trusted keys of each name
        ``body`` has none of, with ``anchored`` on: the page needs their near elements read
        (:func:`~.bodyfields.anchor_fields`) where it was read for the :meth:`wanted` keys
        only, so that :meth:`fill` finds what it finds in the whole body."""
        if not self.options.anchored:
            return frozenset()
        page_type = core.page_type if typed_by_metadata(core) else self.page_type()
        with self._lock:
            counts = self._types.get(page_type or "")
            if counts is None:
                return frozenset()
            keys = self._keys(counts, page_type or "")
        steps: set[str] = set()
        for name, trusted in keys.items():
            if _first_readable(counts.kinds[name], trusted, body)[0] is None:
                steps.update(_anchor_steps(trusted))
        return frozenset(steps)

    def fill(self, core: CoreRecord, body: Mapping[str, Any]) -> CoreRecord:
        """``core`` with the values its metadata lacks (or states stale) read from the body
        fields the site's metadata names; a page whose type no schema.org data states (a
        plain ``page``, a ``thread`` only for the posts its body shows) takes the label's.
        The same record when there is nothing to add."""
        page_type = core.page_type if typed_by_metadata(core) else self.page_type()
        if page_type is None:
            return core
        with self._lock:
            counts = self._types.get(page_type)
            if counts is None:
                return core
            found = self._found(counts, core, page_type, body)
        if not found:
            return core
        return _record_of(page_type, {**_carried(core, page_type), **found}, core)

    def _found(
        self, counts: _TypeCounts, core: CoreRecord, page_type: str, body: Mapping[str, Any]
    ) -> dict[str, Value]:
        found: dict[str, Value] = {}
        anchors = _Anchors(body, self.options.anchor_depth) if self.options.anchored else None
        for name, keys in self._keys(counts, page_type).items():
            kind = counts.kinds[name]
            key, value = counts.readable(name, keys, body)
            if key is None and anchors is not None:
                key, value = anchors.first_readable(kind, keys)
                if key is not None and not counts.looks_agreed(name, value):
                    continue
            if key is None:
                continue
            have = core.fields.get(name) if core.page_type == page_type else None
            if have is not None and have.source == BODY and self.options.over_body_reader:
                have = None  # the generic reader's guess gives way to the site's field
            if have is None or (
                not same(kind, have.value, value) and counts.overrides(name, key, self.options)
            ):
                found[name] = Value(value, BODY)
        return found

    def _keys(self, counts: _TypeCounts, page_type: str) -> dict[str, list[str]]:
        """The site's trusted keys, and for a name it trusts none for, the signatures the
        memory has from other sites that the site's own pages do not contradict."""
        keys = counts.keys(self.options)
        if self.memory is None:
            return keys
        for name in sorted(counts.kinds.keys() - keys.keys()):
            prior = [
                key
                for key in self.memory.signatures(page_type, name, self.site)
                if counts.confirms(name, key)
            ]
            if prior:
                keys[name] = prior[: self.options.max_keys]
        return keys

    def vouched(self) -> dict[str, dict[str, list[str]]]:
        """``{page type: {name: signatures}}`` this site's pages agreed on (to teach a
        :class:`.SignatureMemory`)."""
        with self._lock:
            return {kind: counts.vouched(self.options) for kind, counts in self._types.items()}

    def teach(self, memory: SignatureMemory) -> None:
        """Tell ``memory`` what this site's pages agreed on, under this naming's site."""
        for page_type, vouched in self.vouched().items():
            memory.learn(self.site, page_type, vouched)


def _element_path(key: str) -> str:
    """A body key's element path, without its rank and value suffix (``@src``)."""
    return key[: key.rfind("[")] if "[" in key else key


def _page_keys(body: Mapping[str, Any]) -> Iterator[str]:
    """The element paths a page has (a slot present with another value contradicts a key)."""
    return (_element_path(key) for key in body)


#: Items of a list read from a repeated element at most (the record keeps as many).
MAX_LIST_ITEMS = 200


def _read_keys(keys: Iterable[str]) -> Iterator[str]:
    """The body keys to read for ``keys``: a repeated element's at each rank."""
    for key in keys:
        if key.endswith(ANY_RANK):
            yield from rank_keys(key, MAX_LIST_ITEMS)
        else:
            yield key


def _value_at(kind: str, key: str, body: Mapping[str, Any]) -> Any:
    """The value of ``kind`` the body shows under ``key`` (None: none)."""
    if key.endswith(ANY_RANK):
        return sequence(body, key, MAX_LIST_ITEMS) if kind == "list" else None
    raw = body.get(key)
    return read_as(kind, raw) if isinstance(raw, str) else None


def _first_readable(
    kind: str,
    keys: list[str],
    body: Mapping[str, Any],
    skip: Callable[[str, Any], bool] | None = None,
) -> tuple[str | None, Any]:
    """The first of ``keys`` whose body text reads as a value of ``kind``, and the value
    (``skip``: a key and its value not to take)."""
    for key in keys:
        value = _value_at(kind, key, body)
        if value not in (None, "", []) and (skip is None or not skip(key, value)):
            return key, value
    return None, None


def _ranked_as_any(key: str) -> str:
    """``key`` with its rank as :data:`~.bodyvalues.ANY_RANK` (a repeated element's key)."""
    cut = key.rfind("[")
    end = key.find("]", cut)
    return key[:cut] + ANY_RANK + key[end + 1 :]


def _below(key: str, step: str) -> tuple[str, int]:
    """A key's path down to its last ``step`` element (without a style mark), and how
    many elements it goes on below it."""
    path = key[1:] if key[:1] in (LOCAL, COARSE) else key
    steps = path[: path.rfind("[")].split("/")
    last = len(steps) - 1 - steps[::-1].index(step)
    return "/".join(steps[: last + 1]), len(steps) - 1 - last


#: The rank ends an anchored key may have: a slot's first element or a repeated element's
#: items (a later rank counts cards or tags, which differ from page to page).
_ANCHOR_RANKS = ("[0]", ANY_RANK)


def _anchor_steps(keys: Iterable[str]) -> Iterator[str]:
    """The anchor elements of ``keys`` that :class:`_Anchors` reads from."""
    for key in keys:
        anchor = key_anchor(key)
        if anchor is not None and anchor[1].startswith(_ANCHOR_RANKS):
            yield anchor[0]


class _Anchors:
    """A page's keys by :func:`~.bodyfields.key_anchor`, built on first use (a page that
    has its trusted keys never needs it)."""

    def __init__(self, body: Mapping[str, Any], depth: int) -> None:
        self.body = body
        self.depth = depth
        self._index: dict[tuple[str, str], set[str]] | None = None

    def _keys(self, anchor: tuple[str, str]) -> set[str]:
        if self._index is None:
            self._index = {}
            for key in self.body:
                for each in (key, _ranked_as_any(key)) if "[" in key else ():
                    found = key_anchor(each)
                    if found is not None and found[1].startswith(_ANCHOR_RANKS):
                        self._index.setdefault(found, set()).add(each)
        return self._index.get(anchor, set())

    def _near(self, key: str, anchor: tuple[str, str]) -> list[str]:
        """The page's keys that end like ``key``, at most ``depth`` elements below one
        anchor element (a name several places of the page share says nothing), nearest in
        depth first."""
        step = anchor[0]
        _, depth = _below(key, step)
        near = [(_below(k, step), k) for k in self._keys(anchor)]
        near = [(place, k) for place, k in near if place[1] <= self.depth]
        if depth > self.depth or len({p for (p, _), k in near if k[:1] not in _BREADTH}) != 1:
            return []
        return [
            k for (_, d), k in sorted(near, key=lambda item: (abs(item[0][1] - depth), item[1]))
        ]

    def first_readable(self, kind: str, keys: list[str]) -> tuple[str | None, Any]:
        """The value of the page's element nearest in depth to the first of ``keys`` whose
        anchor the page has, and its key."""
        for key in keys:
            anchor = key_anchor(key)
            if anchor is None or not anchor[1].startswith(_ANCHOR_RANKS):
                continue
            found = _first_readable(kind, self._near(key, anchor), self.body)
            if found[0] is not None:
                return found
        return None, None


def typed_by_metadata(core: CoreRecord) -> bool:
    """Whether the page's own schema.org data names its type (not a plain ``page``, nor a
    type its label or its body alone gave it)."""
    return core.page_type != "page" and any(
        value.source in _ENTITY_SOURCES for value in core.fields.values()
    )


def _carried(core: CoreRecord, page_type: str) -> dict[str, Value]:
    """The fields of ``core`` that ``page_type`` has too."""
    names = {spec.name for spec in FIELDS[page_type]}
    return {name: value for name, value in core.fields.items() if name in names}


def _record_of(page_type: str, fields: dict[str, Value], core: CoreRecord) -> CoreRecord:
    order = [spec.name for spec in FIELDS[page_type]]
    ordered = {name: fields[name] for name in sorted(fields, key=order.index)}
    return CoreRecord(page_type, ordered, dict(core.extra))
