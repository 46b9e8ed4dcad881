"""Reading a body text as a core value of one kind, and saying when two values are the same.

The body shows a value the way a visitor reads it ("$19.99", "By Jane Doe", "SKU: A-12",
"March 5, 2015", "1 hr 15 mins", "Serves 4", "4.7 / 5"); the metadata holds it normalised
("19.99", "Jane Doe", "A-12", "2015-03-05T10:00", "PT1H15M", "4", "4.66667"). Both are
brought to the core record's form before they are compared, so a body field can be matched
to the metadata's name and then stand in for it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from .groups import authors
from .normalise import (
    as_availability,
    as_currency,
    as_gtin,
    as_identifier,
    as_name,
    as_price,
    as_text,
)
from .posts import _DATE_TEXT

__all__ = [
    "ANY_RANK",
    "DATE_FIELDS",
    "as_minutes",
    "label_of",
    "lengths_agree",
    "list_share",
    "looks_like_code",
    "prepared",
    "rank_keys",
    "read_as",
    "same",
    "same_prepared",
    "sequence",
    "sequences",
    "value_kind",
]

#: Standard fields that hold a date (their spec kind is ``text``).
DATE_FIELDS = frozenset({"date_published", "date_modified", "start_date", "end_date"})
#: Kinds a body text can be read as (groups and the page's own URL are not).
BODY_KINDS = frozenset(
    {
        "text",
        "name",
        "authors",
        "id",
        "gtin",
        "price",
        "currency",
        "availability",
        "urls",
        "date",
        "duration",
        "list",
    }
)
#: Spec kinds of a list of texts, which the body shows as a repeated element.
LIST_KINDS = frozenset({"texts", "instructions"})
#: The end of the key of a repeated element: its path with any rank.
ANY_RANK = "[*]"
#: A list agrees with a repeated element when at least this share of the longer one's
#: items are the other's (a section heading or a note among the steps is not in the head).
MIN_LIST_SHARE = 0.8
#: A price, currency, identifier or availability is shown in a short text.
MAX_SHORT = 60
#: Texts at least this long are the same when one begins with the other (a truncated
#: description in the head, the full one in the body).
MIN_PREFIX = 40

_LABEL = re.compile(r"^(?:by|written by|posted by|[^:\n]{1,24}:)\s+", re.I)
_TRUNCATED = re.compile(r"(?:\.\.\.|…|\s)+$")
_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_NOT_SIGN = re.compile(r"[\d\s.,'\u00a0\u202f-]+")
_TAGS = re.compile(r"<[^>]{0,200}>")
#: One number (or range) in a short text, the rest words ("Serves 4", "4-6 servings").
_COUNT = re.compile(r"^([^\d]*?)(\d+(?:[.,]\d+)?(?:\s*[-\u2013]\s*\d+(?:[.,]\d+)?)?)([^\d]*)$")
_RANGE_DASH = re.compile(r"\s*[-\u2013]\s*")
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
#: Separators of a list written as one text ("Dinner, Main Course", "Asian | Vegan").
_LIST_SEPARATORS = ",;|\u2022/"
#: A count or a list shown in a text of at most this many characters.
MAX_COUNT_TEXT = 40
#: ISO 8601 duration (``PT1H15M``, ``P0DT0H20M``, ``PT90M``).
_ISO_DURATION = re.compile(
    r"^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$",
    re.I,
)
#: Units of a duration as people write them, by their first letters in several languages
#: (hours: h, hr, hour, hora, heure, Std/Stunde, uur, ora, tim(me); minutes: m, min, minute,
#: minuto, Minute(n), minutter, perc; days: d, day, día, jour, Tag, dag).
_HOURS = r"h|hrs?|hours?|horas?|heures?|std\.?|stunden?|uur|or[ae]|timm?[ae]r?|óra"
_MINUTES = r"m|mins?\.?|minutes?|minutos?|minuten?|minutt?(?:er)?|minuti|perc"
_DAYS = r"d|days?|días?|dias?|jours?|tage?n?|dag(?:en)?"
_DURATION_PART = re.compile(
    rf"(\d+(?:[.,]\d+)?)\s*(?:({_DAYS})|({_HOURS})|({_MINUTES}))(?![a-zà-ÿ])", re.I
)
#: Between the parts of one duration ("1 hr 15 mins", "1 hour and 15 minutes", "1h30").
_DURATION_JOIN = re.compile(r"^(?:\s*(?:,|and|y|und|et|en|e|og|och)?\s*)$", re.I)


def value_kind(name: str, kind: str) -> str | None:
    """The kind a body text of field ``name`` is read as, or None for fields no body
    text stands for (groups, the page's URL, durations)."""
    if name in DATE_FIELDS:
        return "date"
    if name.endswith("_time"):
        return "duration"
    if name == "url":
        return None
    if kind in LIST_KINDS:
        return "list"
    return kind if kind in BODY_KINDS else None


def _unlabelled(text: str) -> str:
    return _LABEL.sub("", text, count=1).strip()


def label_of(text: str) -> str:
    """The label a body text shows before its value ("Marca:" in "Marca: Puma"), folded;
    empty when it shows none. A slot of a site's specs list keeps its label from page to
    page; the same position under another label is another field."""
    match = _LABEL.match(text)
    return _SPACE.sub(" ", match[0]).strip().casefold() if match else ""


def _short(function: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: function(text) if len(text) <= MAX_SHORT else None


#: A number given as a share ("Save 30%", "-15 %"): a discount or a rating, not an amount.
_SHARE = re.compile(r"\d\s*%")


def _price(text: str) -> str | None:
    """An amount the body shows; a share is none (a sale badge's "Save 30%" sits where
    other pages of the layout show the price)."""
    return None if _SHARE.search(text) else as_price(text)


#: what may stand around a code inside a text without being part of it ("#418295", "(B0…)")
_AROUND_CODE = "#:;,.()[]"


def _identifier(text: str) -> str | None:
    """A shop's code or a model number: one word that holds a digit, as the body reader's
    codes do. A text of several words shows one only as its one word with a digit ("AD ID
    1021493409 Report this ad", "746423 Economize"): the words around it are the site's
    template; a text without a digit ("Lightly lined", a label "Model:") is no code."""
    coded = [word for word in text.split() if _DIGIT.search(word)]
    return as_identifier(coded[0].strip(_AROUND_CODE)) if len(coded) == 1 else None


#: ISO 4217 codes: the current list (maintenance agency SIX, as of 2024) without the
#: testing and no-currency codes, plus codes retired since 2000 that old pages still show.
#: A body text's three letters are a currency only when they are one of these (a word
#: such as "alv", Finnish for VAT, is not).
_ISO_4217_CODES = """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD
    BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP
    DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR
    IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD
    MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB
    PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD
    SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS
    VED VES VND VUV WST XAF XAG XAU XCD XDR XOF XPD XPF XPT YER ZAR ZMW ZWL
    BYR EEK HRK LTL LVL MRO RUR SKK STD TRL VEF
"""
ISO_4217 = frozenset(_ISO_4217_CODES.split())


def _currency(text: str) -> str | None:
    """A currency code or sign a short text shows; three letters only when ISO 4217 has them."""
    for each in (text, _NOT_SIGN.sub("", text)):
        code = as_currency(each)
        if code in ISO_4217:
            return code
    return None


def _date(text: str) -> str | None:
    """An ISO date (``YYYY-MM-DD``) from an ISO value or a date as people write it."""
    if re.match(r"^\d{4}-\d{2}-\d{2}", text):
        return text[:10]
    if len(text) > MAX_SHORT:
        return None
    named = _named_month(text)  # before dateutil, which takes "10 mayo, 2017" for October
    if named is not None or not _DATE_TEXT.search(text):
        return named or _year_first(text)
    from dateutil import parser

    try:
        return parser.parse(_unlabelled(text), fuzzy=True).date().isoformat()
    except (ValueError, OverflowError):
        return None


#: Month names in the languages of most sites: their first letters (three or more) name
#: the month where no two months share them.
_MONTH_NAMES = (
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "januar februar märz april mai juni juli august september oktober november dezember",
    "januari februari maart april mei juni juli augustus september oktober november december",
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "januari februari mars april maj juni juli augusti september oktober november december",
    "januar februar marts april maj juni juli august september oktober november desember",
    "január február március április május június július augusztus szeptember október"
    " november december",
    "january february march april may june july august september october november december",
)


def _month_prefixes() -> dict[str, int]:
    months: dict[str, set[int]] = {}
    for line in _MONTH_NAMES:
        for number, name in enumerate(line.split(), 1):
            for end in range(3, len(name) + 1):
                months.setdefault(name[:end], set()).add(number)
    return {prefix: numbers.pop() for prefix, numbers in months.items() if len(numbers) == 1}


_MONTHS = _month_prefixes()
_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})\.?\s+(?:de\s+)?([^\W\d_]{3,})\.?,?\s+(?:de\s+)?(\d{4})\b"
)
_MONTH_DAY_YEAR = re.compile(r"\b([^\W\d_]{3,})\.?\s+(\d{1,2})\.?,?\s+(\d{4})\b")
_YEAR_FIRST = re.compile(r"\b(\d{4})\s?[-/.]\s?(\d{1,2})\s?[-/.]\s?(\d{1,2})\b")


def _iso_day(year: str, month: int | None, day: str) -> str | None:
    if month is None or not 1 <= int(day) <= 31:
        return None
    try:
        return date(int(year), month, int(day)).isoformat()
    except ValueError:
        return None


def _year_first(text: str) -> str | None:
    """A date written year first (``2020/10/23``, ``2025. 01. 08.``)."""
    match = _YEAR_FIRST.search(text)
    return None if match is None else _iso_day(match[1], int(match[2]), match[3])


def _named_month(text: str) -> str | None:
    """A date with a month name in another language (``5 abr 2026``, ``3. März 2021``,
    ``24 de febrero de 2023``)."""
    folded = text.casefold()
    match = _DAY_MONTH_YEAR.search(folded)
    if match is not None:
        return _iso_day(match[3], _MONTHS.get(match[2]), match[1])
    match = _MONTH_DAY_YEAR.search(folded)
    if match is not None:
        return _iso_day(match[3], _MONTHS.get(match[1]), match[2])
    return None


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def as_minutes(text: str) -> float | None:
    """Minutes of a duration written in ISO 8601 (``PT1H15M``) or as people write it
    (``1 hr 15 mins``, ``45 minutes``); None when the text is not one duration (two
    durations in one text, "Prep 10 min Cook 20 min", are not one)."""
    text = text.strip()
    iso = _ISO_DURATION.match(text)
    if iso and any(iso.groups()):
        days, hours, minutes, seconds = (float(g) if g else 0.0 for g in iso.groups())
        return days * 1440 + hours * 60 + minutes + seconds / 60
    return _written_minutes(text) if len(text) <= MAX_SHORT else None


def _written_minutes(text: str) -> float | None:
    """Minutes of one duration as people write it: its parts side by side, each a number
    and a unit ("1 hr 15 mins", "1 hour and 15 minutes")."""
    total, end, parts = 0.0, 0, 0
    for match in _DURATION_PART.finditer(text):
        if parts and not _DURATION_JOIN.match(text[end : match.start()]):
            return None  # two separate durations
        days, hours = match.group(2), match.group(3)
        total += _number(match.group(1)) * (1440 if days else 60 if hours else 1)
        end, parts = match.end(), parts + 1
    if not parts or _DIGIT.search(text[end:]):
        return None  # no duration, or a number after it that no unit names
    return total


def _iso_duration(minutes: float) -> str:
    hours, rest = divmod(round(minutes), 60)
    return "PT" + (f"{hours}H" if hours else "") + (f"{rest}M" if rest or not hours else "")


def _duration(text: str) -> str | None:
    """A duration in the core record's form (ISO 8601), from either way of writing it."""
    minutes = as_minutes(_unlabelled(text))
    return None if minutes is None or minutes <= 0 else _iso_duration(minutes)


_READERS: dict[str, Callable[[str], Any]] = {
    "text": lambda text: as_text(text),
    "name": _short(lambda text: as_name(_unlabelled(text))),
    "authors": _short(lambda text: authors(_unlabelled(text))),
    "id": _short(lambda text: _identifier(_unlabelled(text))),
    "gtin": _short(lambda text: as_gtin(_unlabelled(text))),
    "price": _short(_price),
    "currency": _short(_currency),
    "availability": _short(as_availability),
    "urls": lambda text: [text] if text.startswith(("http://", "https://")) else None,
    "date": _date,
    "duration": _duration,
}


#: A CSS rule (``.css-1x{border:0;}``) or script source (``function(``, ``var x =``): the
#: text of a ``<style>`` or ``<script>`` a page left in its body, never a value.
_CODE = re.compile(
    r"[\w\])-]\s*\{\s*[\w-]+\s*:[^{};]*;|\bfunction\s*\(|\b(?:var|let|const)\s+\w+\s*="
)


def looks_like_code(text: str) -> bool:
    """Whether a body text is style or script source rather than something a visitor reads."""
    return _CODE.search(text) is not None


def read_as(kind: str, text: str) -> Any:
    """The body text read as a core value of ``kind`` (None when it cannot be one; a list
    is read from a repeated element's texts, :func:`sequence`)."""
    if not text or kind == "list":
        return None
    return _READERS[kind](text)


def sequences(body: Mapping[str, Any]) -> dict[str, list[str]]:
    """The texts of each repeated element of the page (a path shown at least twice), in page
    order, under the path's key with :data:`ANY_RANK` (the body's keys come in page order,
    so a path's ranks do too)."""
    groups: dict[str, list[str]] = {}
    for key, raw in body.items():
        if key[-1:] == "]" and isinstance(raw, str):
            groups.setdefault(key[: key.rfind("[")], []).append(raw)
    return {path + ANY_RANK: texts for path, texts in groups.items() if len(texts) >= 2}


def sequence(body: Mapping[str, Any], key: str, limit: int = 200) -> list[str] | None:
    """The texts of the repeated element ``key`` (a path with :data:`ANY_RANK`), in page
    order, at most ``limit`` (None: fewer than two)."""
    path = key[: -len(ANY_RANK)]
    texts = []
    for rank in range(limit):
        raw = body.get(f"{path}[{rank}]")
        if isinstance(raw, str):
            texts.append(raw)
    return texts if len(texts) >= 2 else None


def rank_keys(key: str, limit: int = 200) -> list[str]:
    """The keys a repeated element ``key`` may show its items under (for reading only those)."""
    path = key[: -len(ANY_RANK)]
    return [f"{path}[{rank}]" for rank in range(limit)]


def _norm(value: Any) -> str:
    """Folded for comparing: markup a head value kept escaped, case, runs of space, and
    typographic quotes (a head's plain quotes are a body's curly ones)."""
    text = str(value)
    if "<" in text:
        text = _TAGS.sub(" ", text)
    return _SPACE.sub(" ", text).strip().casefold().translate(_QUOTES)


def _count(folded: str) -> tuple[str, frozenset[str]] | None:
    """A short text's one number and its words ("serves 4" -> ("4", {"serves"}))."""
    if len(folded) > MAX_COUNT_TEXT:
        return None
    match = _COUNT.match(folded)
    if match is None:
        return None
    words = frozenset(_WORD.findall(match.group(1) + " " + match.group(3)))
    return _RANGE_DASH.sub("-", match.group(2).replace(",", ".")), words


def _first_items(folded: str) -> frozenset[str]:
    """The first member of a short list written as one text, for each separator it may be
    written with ("dinner, main course"; "rust once, run everywhere | rust blog")."""
    if len(folded) > MAX_SHORT:
        return frozenset()
    firsts = (folded.split(sep, 1)[0].strip() for sep in _LIST_SEPARATORS if sep in folded)
    return frozenset(first for first in firsts if first)


def _folded(value: Any) -> tuple[str, str, Any, Any] | None:
    """A text folded, with its trailing ellipsis stripped, its count (None: none) and its
    first list members."""
    folded = _norm(value)
    if not folded:
        return None
    return folded, _TRUNCATED.sub("", folded), _count(folded), _first_items(folded)


def _same_count(a: Any, b: Any) -> bool:
    """The same number, and one side is the number alone or both name it alike ("4" and
    "serves 4"; "4 servings" and "servings: 4"), never two different counted things."""
    if a is None or b is None or a[0] != b[0]:
        return False
    return not a[1] or not b[1] or a[1] == b[1]


def _same_folded(a: tuple[str, str, Any, Any], b: tuple[str, str, Any, Any]) -> bool:
    """Two folded texts say the same: equal; one at least :data:`MIN_PREFIX` long that the
    other begins with; the same count; or one the first member of a list the other writes
    out (a head keeps the first of its categories, the body shows them all)."""
    if a[0] == b[0] or a[0] in b[3] or b[0] in a[3]:
        return True
    short, long = (a[1], b[1]) if len(a[1]) <= len(b[1]) else (b[1], a[1])
    if len(short) >= MIN_PREFIX and long.startswith(short):
        return True
    return a[2] is not None and b[2] is not None and _same_count(a[2], b[2])


def lengths_agree(a: int, b: int) -> bool:
    """Whether lists of ``a`` and ``b`` items can agree (a check before any item is read)."""
    return min(a, b) >= MIN_LIST_SHARE * max(a, b)


@lru_cache(maxsize=8192)
def _item(text: str) -> str:
    """A list item folded to its words and numbers ("▢ ½ cup flour (sifted)" and
    "1/2 cup flour, sifted" are one item)."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", str(text)).casefold()))


def _list(value: Any) -> tuple[str, ...] | None:
    items = tuple(
        item for item in map(_item, value if isinstance(value, list) else [value]) if item
    )
    return items or None


def list_share(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """The share of the longer list's items the other holds too (a long item may be cut
    short on one side: a step's first sentences); 0.0 below :data:`MIN_LIST_SHARE`."""
    short, long = sorted((a, b), key=len)
    needed = MIN_LIST_SHARE * len(long)
    shared = set(short) & set(long)
    matched = sum(item in shared for item in short)
    if matched < needed <= len(short):
        rest = [item for item in long if item not in shared and len(item) >= MIN_PREFIX]
        for item in short:
            if item not in shared and len(item) >= MIN_PREFIX:
                matched += any(other.startswith(item) or item.startswith(other) for other in rest)
    return matched / len(long) if matched >= needed else 0.0


def _rounded_equal(a: Decimal, b: Decimal) -> bool:
    """Two numbers agree when the one with fewer decimals (at least one) is the other
    rounded half up (a rating of 4.6667 shown as 4.7)."""
    if a == b:
        return True
    if not (a.is_finite() and b.is_finite()):
        return False
    places_a, places_b = int(a.as_tuple().exponent), int(b.as_tuple().exponent)
    short, long, places = (a, b, places_a) if places_a > places_b else (b, a, places_b)
    if places >= 0 or places == min(places_a, places_b):
        return False
    return long.quantize(Decimal(1).scaleb(places), rounding=ROUND_HALF_UP) == short


#: An image file's size variant as CMSs name it (``photo-300x200.jpg``, ``photo-scaled.jpg``).
_IMAGE_SIZE = re.compile(r"-(?:\d{2,5}x\d{2,5}|scaled)(?=\.[a-z0-9]{2,5}$)", re.I)


def _url_key(url: str) -> str:
    """A URL without scheme, query and fragment, and an image file without its size
    variant: a page shows a resized copy of the image its metadata names."""
    key = url.split("?", 1)[0].split("#", 1)[0].split("://", 1)[-1].rstrip("/")
    return _IMAGE_SIZE.sub("", key)


#: A file stem names one image across hosts when it has at least this many letters (a
#: camera's ``IMG_1234`` or a width ``3670`` does not), and alone when it is this long.
MIN_STEM_LETTERS = 3
MIN_OWN_STEM = 12
#: Extensions an image CDN adds or swaps (``photo.jpg.webp``).
_EXTENSIONS = re.compile(r"(?:\.[a-z0-9]{2,5})+$", re.I)
_STEM_SIZE = re.compile(r"-(?:\d{2,5}x\d{2,5}|scaled)$", re.I)


def _url_keys(url: str) -> Iterator[str]:
    """The keys an image URL agrees by: its :func:`_url_key`; its file stem with the folder
    above (``06/soup``), the same file an image CDN serves under its own host, path prefix
    or transform folder (``cdn.example/site.com/…``, ``…/w_274,h_196/…``); and a long
    stem alone (the same file uploaded again under another date)."""
    key = _url_key(url)
    yield key
    folders = key.split("/")
    stem = _STEM_SIZE.sub("", _EXTENSIONS.sub("", folders[-1])).casefold()
    if len(folders) < 2 or sum(ch.isalpha() for ch in stem) < MIN_STEM_LETTERS:
        return
    yield f"tail:{folders[-2].casefold()}/{stem}"
    if len(stem) >= MIN_OWN_STEM:
        yield f"file:{stem}"


def prepared(kind: str, value: Any) -> Any:
    """``value`` brought once to the form :func:`same_prepared` compares for ``kind`` (None
    for a value that matches nothing), so a value met against many is read once."""
    if value in (None, "", []):
        return None
    if kind == "price":
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            return None
        return None if number.is_snan() else number
    if kind == "urls":
        urls = value if isinstance(value, list) else [value]
        keys = (key for url in urls if isinstance(url, str) for key in _url_keys(url))
        return frozenset(keys) or None
    if kind == "date":
        return _date(str(value))
    if kind == "duration":
        return as_minutes(_unlabelled(str(value)))
    if kind == "list":
        return _list(value)
    return _folded(value)


def same_prepared(kind: str, a: Any, b: Any) -> bool:
    """:func:`same` on two values :func:`prepared` for ``kind``."""
    if a is None or b is None:
        return False
    if kind not in _OTHER_KINDS:
        return _same_folded(a, b)
    if kind == "urls":
        return bool(a & b)
    if kind == "price":
        return _rounded_equal(a, b)
    if kind in ("date", "duration"):
        return bool(a == b)
    return list_share(a, b) > 0.0


#: Kinds compared otherwise than as folded texts.
_OTHER_KINDS = frozenset({"urls", "price", "date", "duration", "list"})


def same(kind: str, a: Any, b: Any) -> bool:
    """Whether two core values of ``kind`` say the same (a price as a decimal, images by
    any shared URL, a date by its day, texts folded or one a truncation of the other)."""
    return same_prepared(kind, prepared(kind, a), prepared(kind, b))
