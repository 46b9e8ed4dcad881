"""A site model learned without labels: which structural features are a site's chrome.

On a real site every page type shares the header, menus, footer and theme, so unweighted
structural measures score a site's collections and help pages almost as high as its products.
The pages a crawl meets tell what is common on *this* site: a feature found on most of its pages
is chrome and says nothing about the page type; a feature that only the pages of one type carry
is what tells the type apart.

Features are parent -> child pairs of CSR node labels (seed 002's strictest node relation, with
volatile values normalised by the summary), plus the start element's own label. Each feature is
weighted by its rarity among the site's pages seen so far (an IDF); a feature seen on one page
only can never be shared by two pages and would only dilute a score, so it weighs nothing, and
one seen on two pages half.

The weighted Jaccard of two pages' feature sets is then the site-aware similarity: the chrome
cancels out and the type-specific structure decides (measured against unweighted sets by
``benchmarks/site_accuracy.py``).

A crawl meets one page under several URLs (session ids, sort orders, tracking parameters): a
page met again is counted once (:class:`MetPages`), or a page met ten times would weigh ten
pages and its structure would look like the site's chrome (``benchmarks/eval_repeats.py``).
"""

from __future__ import annotations

import math
import re
from collections import Counter, _count_elements, deque  # type: ignore[attr-defined]
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from pagesim_scrapy.core.summary import PageSummary, _walk_c, node_pairs

#: A page's structural features (2-character strings: parent code + child code).
Features = frozenset[str]

#: The port a scheme uses when a URL names none: such a port does not make another site.
_DEFAULT_PORTS = {"http": 80, "https": 443}


def site_key(url: str) -> str:
    """The site a page's URL belongs to: its host without a leading ``www.``, with the port
    when the URL names one that is not its scheme's default (two servers on one host, such as
    two local test servers, are two sites). Empty for URLs without a host (``file://``)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if host.startswith("www."):
        host = host[4:]
    try:
        port = parts.port
    except ValueError:  # a port out of range or not a number: the host alone
        port = None
    if host and port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        return f"{host}:{port}"
    return host


class PageFeatures(frozenset[str]):
    """A page's features that also know which page they are: ``page_keys`` are the same for
    the same page met under several URLs (see :func:`page_keys`), empty where unknown
    (features given as a plain set)."""

    __slots__ = ("packed", "page_keys")

    page_keys: tuple[int, ...]
    #: the features packed (see :func:`pack_features`), once the site model or the drift
    #: watch packed them: both keep the page packed, as one string
    packed: str


def page_keys_of(features: Features) -> tuple[int, ...]:
    """The page keys of ``features`` (see :class:`PageFeatures`); none for a plain set."""
    return getattr(features, "page_keys", ())


#: Query parameters that name a view of a page, not another page: sessions, sort orders,
#: print views, campaign and click tracking. A page under such parameters is the same page.
VIEW_PARAMETERS = frozenset(
    (
        *("sid", "sessionid", "session_id", "sessid", "phpsessid", "jsessionid", "aspsessionid"),
        *("cfid", "cftoken", "sort", "sortby", "sort_by", "order", "orderby", "order_by"),
        *("dir", "direction", "print", "printable", "ref", "ref_src", "fbclid", "gclid"),
        *("msclkid", "yclid", "mc_cid", "mc_eid", "_"),
    )
)


def _without_views(query: str) -> str:
    """A URL's query without its view parameters (see VIEW_PARAMETERS), in one order."""
    kept = sorted(
        (name, value)
        for name, value in parse_qsl(query, keep_blank_values=True)
        if name.lower() not in VIEW_PARAMETERS and not name.lower().startswith("utm_")
    )
    return urlencode(kept)


#: An http(s) URL that ``urlsplit`` reads as its scheme, netloc (group 1) and path (group 2)
#: alone: no query or fragment, none of the characters it removes, no bracketed host. Such
#: a URL, most of a crawl's, is split by this one match instead (``urlsplit`` costs more than
#: the rest of the page's keys); the netloc must be ASCII too, as ``urlsplit`` checks others.
_PLAIN_HTTP_URL = re.compile(r"https?://([^/?#\[\]\t\r\n]*)(/[^?#\t\r\n]*)?")


def page_keys(summary: PageSummary) -> tuple[int, ...]:
    """How a page is known when met again: its URL without view parameters, with its title
    (the same page sorted, in print, with a notice or a session id). None without an http(s)
    URL: files, WARC records and batches given without one are distinct pages. Not its
    structure alone: a wiki's or a forum's list pages under one path (``?offset=...``) share
    their title and every node, and are still other pages."""
    if not summary.source:
        return ()
    plain = _PLAIN_HTTP_URL.fullmatch(summary.source)
    if plain is not None and plain[1].isascii():
        # most URLs have no query: nothing to take out of it
        return (hash((plain[1], plain[2] or "", "", summary.title)),)
    parts = urlsplit(summary.source)
    if parts.scheme not in ("http", "https"):
        # a file path, or a WARC record named ``archive#offset``: its name is not a URL whose
        # query or fragment could be a view of another page
        return ()
    query = _without_views(parts.query) if parts.query else ""
    return (hash((parts.netloc, parts.path, query, summary.title)),)


def structural_features(summary: PageSummary) -> Features:
    """Parent -> child pairs of CSR labels, and the start element's label, of a page; as
    :class:`PageFeatures` that know the page (see :func:`page_keys`)."""
    codes = summary.bfs["csr"]
    if not codes:
        return frozenset()
    features = node_pairs(codes, summary.parent_bfs)
    features.add(codes[0])
    page = PageFeatures(features)
    page.page_keys = page_keys(summary)
    return page


#: A feature's weight ramps up linearly from nothing on one page to its full IDF on this many
#: (the default of :class:`SiteModel`'s ``ramp_pages``; the site classifier passes its
#: policy's): a feature on two or three pages is mostly a one-off (a random sidebar link, an
#: odd piece of content), and at full IDF it outweighed the structure a page type shares.
#: Chosen leave-one-site-out (``benchmarks/site_accuracy.py --loso-weights``).
RAMP_PAGES = 8


#: On a small site a type may only have a few pages: the ramp is shorter there, one page more
#: per this many pages of the site (3 pages at least).
RAMP_SITE_SHARE = 25


def _pack_in_python(features: Features) -> str:
    """One string for a page's features: the start label (or NUL, which no code is), then the
    2-character pairs."""
    start = "\x00"
    pairs = []
    for feature in features:
        if len(feature) == 1:
            start = feature
        else:
            pairs.append(feature)
    return start + "".join(pairs)


#: The compiled packing (the same strings) where the C walk is built: a kept page is packed
#: on every page of a crawl, by the site model and by the layout-change watch.
_pack: Callable[[Features], str] = getattr(_walk_c, "pack_features", None) or _pack_in_python


def _canonical(packed: str) -> str:
    """A packed page in one order (a set's order, and so a packed page's, changes from
    process to process): the same page of two crawls compares equal."""
    pairs = sorted(packed[i : i + 2] for i in range(1, len(packed), 2))
    return packed[:1] + "".join(pairs)


def unpack_features(packed: str) -> Features:
    """The features of a page packed by :meth:`SiteModel.add` (checked: raises ValueError for
    a string that is not a packed page)."""
    if not packed or len(packed) % 2 != 1:
        raise ValueError("not a packed page")
    return _unpack(packed)


def pack_features(features: Features) -> str:
    """A page's features as one string (what :class:`SiteModel` keeps); the string the site
    model kept of a page's :class:`PageFeatures` (the drift watch keeps it too)."""
    if type(features) is PageFeatures:
        packed: str | None = getattr(features, "packed", None)
        if packed is not None:
            return packed
    return _pack(features)


def _pack_kept(features: Features) -> str:
    """:func:`pack_features` for the site model, which keeps the string with a page's
    :class:`PageFeatures` for the other keepers of the page."""
    packed = _pack(features)
    if type(features) is PageFeatures:
        features.packed = packed
    return packed


def _unpack_in_python(packed: str) -> Features:
    features = {packed[i : i + 2] for i in range(1, len(packed), 2)}
    if packed[0] != "\x00":
        features.add(packed[0])
    return frozenset(features)


#: Compiled where the C walk is built (the same frozensets): the site re-estimates unpack
#: their kept pages to score them.
_unpack: Callable[[str], Features] = getattr(_walk_c, "unpack_features", None) or _unpack_in_python


#: How many distinct pages a site model remembers having counted (the default of
#: :class:`SiteModel`'s ``seen_pages``): a page met again within that many distinct pages of the
#: site (the same page under another URL: a session id, a sort or tracking parameter) is not
#: counted again. Counted on every arrival, a page met ten times weighed ten pages, its features
#: looked common on the site and the label's own structure weighed nothing.
SEEN_PAGES = 10_000


class MetPages:
    """The pages a site has counted, known by their page keys (see :class:`PageFeatures`),
    each with a mark of the copy counted (the hash of its packed features): a bounded map
    that forgets the oldest pages first. Integers per page keep it small."""

    def __init__(self, limit: int = SEEN_PAGES) -> None:
        self.limit = limit
        self._order: deque[tuple[int, ...]] = deque()
        self._copies: dict[int, int] = {}

    def first_meeting(self, features: Features, copy: int = 0) -> bool:
        """Whether ``features`` are of a page met for the first time (then remembered, with
        ``copy``, from now on); always true for features without page keys."""
        keys = page_keys_of(features)
        if not keys or self.limit <= 0:
            return True
        copies = self._copies
        if any(key in copies for key in keys):
            return False
        if len(self._order) >= self.limit:
            for key in self._order.popleft():
                copies.pop(key, None)
        self._order.append(keys)
        copies.update(dict.fromkeys(keys, copy))
        return True

    def copy_of(self, features: Features) -> int | None:
        """The mark of the copy counted for the page of ``features``, None if not met."""
        copies = self._copies
        return next((copies[key] for key in page_keys_of(features) if key in copies), None)

    def recopied(self, features: Features, copy: int) -> None:
        """Remember ``copy`` as the copy counted for the page of ``features``."""
        copies = self._copies
        for key in page_keys_of(features):
            if key in copies:
                copies[key] = copy

    def __len__(self) -> int:
        return len(self._order)


#: Weights are rounded to multiples of 1 / WEIGHT_STEPS, so that any sum of them below 2 ** 23
#: is exact in a float: the sum of a page's weights is then the same whatever order a set's
#: features come in (which changes from process to process), with no compensated summation.
WEIGHT_STEPS = 2**30


_compiled_table: Any = getattr(_walk_c, "weight_table", None)


def _weight_table(pages: int, size: int, ramp_pages: int = RAMP_PAGES) -> list[float]:
    """The weight of a feature found on ``df`` of ``pages`` pages, for df = 0 .. size-1: its
    IDF, ramped up from nothing on one page to the full IDF on ``ramp_pages`` pages (fewer on
    a small site), never below zero, on the WEIGHT_STEPS grid. Built in bulk, compiled where
    the walk is (the same floats): a small site rebuilds it on every page."""
    full = min(ramp_pages, max(3, pages // RAMP_SITE_SHARE))
    if _compiled_table is not None:
        table: list[float] = _compiled_table(pages, size, full, WEIGHT_STEPS)
        return table
    return _weight_table_in_python(pages, size, full)


def _weight_table_in_python(pages: int, size: int, full: int) -> list[float]:
    step = WEIGHT_STEPS
    log = math.log
    grow = min(full, size)
    num = pages + 1
    ramped = [(df - 1) / (full - 1) * log(num / (df + 0.5)) for df in range(2, grow)]
    flat = [log(num / (df + 0.5)) for df in range(max(2, grow), size)]
    table = [0.0, 0.0][:size]
    table += [round(w * step) / step if w > 0.0 else 0.0 for w in ramped + flat]
    return table


@lru_cache(maxsize=512)
def _young_table(pages: int, size: int, ramp_pages: int) -> list[float]:
    """:func:`_weight_table` of a small site, shared (never changed by its users): every
    young site of a crawl over many sites rebuilds the same tables page after page."""
    return _weight_table(pages, size, ramp_pages)


_compiled_count: Any = getattr(_walk_c, "count_features", None)


def count_features(df: dict[str, int], features: Features) -> None:
    """``df[feature] = df.get(feature, 0) + 1`` for each of ``features``, in the set's order:
    compiled where the walk is built (it reads each feature's hash from the set's entries),
    the same counts in the same order as ``collections``' loop."""
    if _compiled_count is not None and type(df) is dict and isinstance(features, (set, frozenset)):
        _compiled_count(df, features)
        return
    _count_elements(df, features)


class SiteModel:
    """Document frequencies of structural features over the pages of one site seen so far.

    Memory is bounded: at most ``max_features`` features (past that, features seen on a single
    page, which weigh nothing, are forgotten), and the features of the last ``keep_pages`` pages
    are kept so that their scores can be re-estimated as the weights settle. A feature's weight
    reaches its full IDF on ``ramp_pages`` pages (see RAMP_PAGES). :meth:`add_once` counts a
    page met again (among the last ``seen_pages`` distinct pages) only once (see SEEN_PAGES).
    """

    def __init__(
        self,
        max_features: int = 50_000,
        keep_pages: int = 300,
        ramp_pages: int = RAMP_PAGES,
        seen_pages: int = SEEN_PAGES,
    ) -> None:
        self.pages = 0
        self.met = MetPages(seen_pages)
        self.ramp_pages = ramp_pages
        self.df: dict[str, int] = {}
        self.max_features = max_features
        # kept pages packed into one string each (see _pack): a frozenset holds an object
        # and a table slot per feature, the packed form two characters
        self.recent: deque[str] = deque(maxlen=keep_pages)
        self._table: list[float] = []
        self._table_pages = -1
        #: how many times the weight table was built, and its entries in all (for benchmarks)
        self.table_builds = 0
        self.table_entries = 0
        #: how many times the counts changed: a score computed since the last change, at the
        #: same page count, is the score the page has now
        self.changes = 0

    @classmethod
    def from_counts(
        cls, pages: int, df: dict[str, int], max_features: int = 50_000, keep_pages: int = 300
    ) -> SiteModel:
        """A model whose counts were made elsewhere: ``pages`` pages, ``df`` the number of
        them holding each feature (a batch job sums them over its workers)."""
        model = cls(max_features=max_features, keep_pages=keep_pages)
        model.pages = pages
        model.df = dict(df)
        if len(model.df) > max_features:
            model.forget_rare()
        return model

    def add(self, features: Features, *, keep: bool = True) -> None:
        """Count one page of the site (``keep``: also keep it for re-scoring)."""
        self.pages += 1
        self.changes += 1
        df = self.df
        count_features(df, features)
        if len(df) > self.max_features:
            self.forget_rare()
        if keep:
            self.recent.append(_pack_kept(features))

    def add_once(self, features: Features) -> bool:
        """Count and keep one page of the site unless the same page (see :func:`page_keys`)
        was counted through here already; whether it was counted."""
        packed = _pack_kept(features)
        if not self.met.first_meeting(features, hash(packed)):
            return False
        self.add(features, keep=False)
        self.recent.append(packed)
        return True

    def recount(self, features: Features) -> bool:
        """Count the page of ``features``, met again, in this form instead of the copy counted
        first, when that copy is still kept; whether it was."""
        copy = self.met.copy_of(features)
        recent = self.recent
        where = next((i for i, page in enumerate(recent) if hash(page) == copy), None)
        if where is None:
            return False
        self.changes += 1
        df = self.df
        for feature in _unpack(recent[where]):
            count = df.get(feature, 0) - 1
            if count > 0:
                df[feature] = count
            else:
                df.pop(feature, None)
        count_features(df, features)
        packed = _pack(features)
        recent[where] = packed
        self.met.recopied(features, hash(packed))
        return True

    def kept(self) -> Iterator[Features]:
        """The features of the kept pages, oldest first."""
        return map(_unpack, self.recent)

    def keep_at_most(self, pages: int) -> None:
        """Keep (at least) the last ``pages`` pages from now on."""
        if self.recent.maxlen is not None and self.recent.maxlen < pages:
            self.recent = deque(self.recent, maxlen=pages)

    def forget_rare(self) -> None:
        """Forget the features seen on one page (they weigh nothing), then the rarest half
        while there are still more than ``max_features``."""
        self.changes += 1
        for feature in [f for f, count in self.df.items() if count <= 1]:
            del self.df[feature]
        if len(self.df) > self.max_features:  # still too many: drop the rarest half
            ordered = sorted(self.df.items(), key=lambda item: item[1])
            for feature, _ in ordered[: len(ordered) // 2]:
                del self.df[feature]

    def table(self) -> list[float]:
        """Weight by document frequency at the current page count.

        Rebuilt on every page of a small site, then whenever the site has grown by 1 % (every
        weight moves by at most log(1.01) meanwhile): rebuilding costs one entry per page of
        the site, which on every page would make a long crawl quadratic.
        """
        pages = self.pages
        built = self._table_pages
        if pages != built and (pages < 100 or pages >= built * 1.01):
            # long enough for every count the site can reach before the next rebuild
            size = int(pages * 1.01) + 2
            build = _young_table if pages < 100 else _weight_table
            self._table = build(pages, size, self.ramp_pages)
            self._table_pages = pages
            self.table_builds += 1
            self.table_entries += size
        return self._table

    def weights(self, features: Iterable[str], floor: int = 0) -> dict[str, float]:
        """Each feature's weight on this site (``floor``: count a rarer feature as on that
        many pages, so that on a site with few pages yet its own features still weigh)."""
        table = self.table()
        get = self.df.get
        if floor:
            return {f: table[max(get(f, 0), floor)] for f in features}
        keys = features if isinstance(features, (frozenset, set)) else list(features)
        return dict(zip(keys, map(table.__getitem__, map(get, keys, repeat(0)))))

    def total(self, features: Iterable[str], table: list[float] | None = None) -> float:
        """The summed weight of ``features`` (under ``table``, default the current one), with
        no dict of weights built on the way: the hot path of every decision."""
        table = self.table() if table is None else table
        # exact, whatever the order (see _weight_table): a plain sum is enough
        return sum(map(table.__getitem__, map(self.df.get, features, repeat(0))))

    def describe(self) -> dict[str, int]:
        return {"pages": self.pages, "features": len(self.df), "kept": len(self.recent)}


def template_members(templates: list[Features]) -> dict[str, int]:
    """Feature -> the bits of the templates (by position) that hold it (see
    :func:`shared_weights`)."""
    members: dict[str, int] = {}
    for number, page in enumerate(templates):
        bit = 1 << number
        for feature in page:
            members[feature] = members.get(feature, 0) | bit
    return members


def _shared_weights_in_python(
    features: Features, templates: list[Features], df: dict[str, int], table: list[float]
) -> tuple[float, list[float]]:
    weight = table.__getitem__
    total = sum(map(weight, map(df.get, features, repeat(0))))
    return total, [sum(map(weight, map(df.get, features & page, repeat(0)))) for page in templates]


_compiled_shared: Any = getattr(_walk_c, "shared_weights", None)


def shared_weights(
    features: Features,
    templates: list[Features],
    members: dict[str, int],
    df: dict[str, int],
    table: list[float],
) -> tuple[float, list[float]]:
    """A page's summed weight (``table[df[feature]]``) and the weight it shares with each of
    ``templates`` (``members``: their :func:`template_members`). The weights are on the
    WEIGHT_STEPS grid, so every sum is exact in any order: compiled, one pass over the page
    gives the sums the intersections give."""
    if _compiled_shared is not None and len(templates) <= 64:
        result: tuple[float, list[float]] = _compiled_shared(
            features, members, df, table, len(templates)
        )
        return result
    return _shared_weights_in_python(features, templates, df, table)


_compiled_packed: Any = getattr(_walk_c, "packed_weights", None)


def packed_weights(
    packed: str,
    templates: list[Features],
    members: dict[str, int],
    df: dict[str, int],
    table: list[float],
) -> tuple[float, list[float]]:
    """:func:`shared_weights` of a packed page (see :meth:`SiteModel.add`), read from its
    string without unpacking it first where the walk is compiled: the same sums."""
    if _compiled_packed is not None and len(templates) <= 64:
        result: tuple[float, list[float]] = _compiled_packed(
            packed, members, df, table, len(templates)
        )
        return result
    return shared_weights(unpack_features(packed), templates, members, df, table)


def grouped_weights(
    features: Features, members: dict[str, int], groups: int, df: dict[str, int], table: list[float]
) -> list[float]:
    """The summed weight of ``features`` in each of ``groups`` groups (at most 64;
    ``members``: feature -> the bits of its groups), e.g. what each pair of templates
    shares, in one pass over ``features``: the sums of :func:`shared_weights`."""
    if _compiled_shared is not None:
        sums: list[float] = _compiled_shared(features, members, df, table, groups)[1]
        return sums
    sums = [0.0] * groups
    for feature in features:
        weight = table[df.get(feature, 0)]
        bits = members.get(feature, 0)
        while bits:
            low = bits & -bits
            sums[low.bit_length() - 1] += weight
            bits ^= low
    return sums


def weighted_jaccard(
    page: dict[str, float], page_total: float, other: Features, other_total: float
) -> float:
    """Weighted Jaccard of a page (features -> weights, with their sum) and another page."""
    shared = page.keys() & other
    if not shared:
        return 0.0
    return jaccard_of_totals(sum(map(page.__getitem__, shared)), page_total, other_total)


def jaccard_of_totals(shared: float, total_a: float, total_b: float) -> float:
    """Weighted Jaccard from the shared weight and the two pages' totals (one weight per
    feature, so the union is what the two totals count once)."""
    if shared <= 0.0:
        return 0.0
    union = total_a + total_b - shared
    # a total summed a few pages earlier can be a little smaller than the shared weight now
    return min(1.0, shared / union) if union > 0.0 else 0.0


_compiled_jaccards: Any = getattr(_walk_c, "jaccards", None)


def jaccards(shared: list[float], total: float, totals: list[float]) -> list[float]:
    """:func:`jaccard_of_totals` of a page (``total``, and ``shared`` with each template) and
    each template (``totals``): compiled where the walk is built, the same floats."""
    if _compiled_jaccards is not None and type(shared) is list and type(totals) is list:
        values: list[float] = _compiled_jaccards(shared, total, totals)
        return values
    return [jaccard_of_totals(both, total, other) for both, other in zip(shared, totals)]


def site_similarity(a: Features, b: Features, model: SiteModel, floor: int = 0) -> float:
    """The site-weighted similarity of two pages' features under ``model``."""
    weights = model.weights(a | b, floor)
    total_a = sum(map(weights.__getitem__, a))
    total_b = sum(map(weights.__getitem__, b))
    return weighted_jaccard({f: weights[f] for f in a}, total_a, b, total_b)


@dataclass
class SavedSite:
    """One site's counts as a later crawl adopts them (see
    :meth:`~pagesim_scrapy.core.siteaware.SiteAwareClassifier.export_sites`)."""

    site: str | None
    pages: int
    df: dict[str, int]
    kept: list[str]  # packed features, oldest first

    def scaled(self, factor: float) -> SavedSite:
        """The same site with every count multiplied by ``factor`` (at most 1) and rounded;
        features whose count falls below one page are dropped, which is what makes a feature
        seen on one page of a past crawl weigh nothing again when that page is met again."""
        if factor >= 1.0 or not self.pages:
            return SavedSite(self.site, self.pages, dict(self.df), list(self.kept))
        df = {feature: round(n * factor) for feature, n in self.df.items()}
        pages = max(1, round(self.pages * factor))
        return SavedSite(
            self.site, pages, {f: min(n, pages) for f, n in df.items() if n >= 1}, list(self.kept)
        )

    def without(self, met_again: Iterable[str]) -> SavedSite:
        """The same site without the kept pages (packed features) that a later crawl met
        again: their counts taken out, each copy once."""
        matched = Counter(map(_canonical, met_again)) & Counter(map(_canonical, self.kept))
        if not matched:
            return self
        df = dict(self.df)
        for packed, copies in matched.items():
            for feature in _unpack(packed):
                df[feature] = df.get(feature, 0) - copies
        pages = max(0, self.pages - sum(matched.values()))
        kept = []
        for packed in self.kept:
            key = _canonical(packed)
            if matched[key]:
                matched[key] -= 1
            else:
                kept.append(packed)
        df = {f: min(n, pages) for f, n in df.items() if n > 0} if pages else {}
        return SavedSite(self.site, pages, df, kept)

    def merged_again(self, saved: SavedSite, weight: float) -> SavedSite:
        """This crawl's export of a site (``self``: the adopted past, ``saved`` scaled by
        ``weight``, plus this crawl's pages) with every past page met again counted once.

        A scheduled crawl meets the same pages run after run: appended, they would be counted
        (and kept) again on every run and the saved state would grow. A past page is known by
        its kept features, so pages beyond the past's kept ones still count twice (bounded by
        the scaling)."""
        past = saved.scaled(weight)
        own_pages = self.pages - past.pages
        if own_pages < 0:  # not counts from adopting ``saved`` (a fleet replaced them)
            return self
        own_kept = self.kept[len(self.kept) - min(own_pages, len(self.kept)) :]
        rest = saved.without(own_kept).scaled(weight)
        pages = own_pages + rest.pages
        df: dict[str, int] = {}
        for feature in self.df.keys() | rest.df.keys():
            n = self.df.get(feature, 0) - past.df.get(feature, 0) + rest.df.get(feature, 0)
            if n > 0:
                df[feature] = min(n, pages)
        return SavedSite(self.site, pages, df, rest.kept + own_kept)

    def bounded(self, max_pages: int, max_kept: int) -> SavedSite:
        """The same site counted as at most ``max_pages`` pages (scaled down), with its last
        ``max_kept`` kept pages."""
        site = self.scaled(max_pages / self.pages) if self.pages > max_pages else self
        kept = site.kept[-max_kept:] if max_kept > 0 else []
        return SavedSite(site.site, site.pages, site.df, kept)
