"""A product's price, currency, availability and identifiers read from its own page body.

Many shops state these only in the body, not in their metadata, and a crawl may see one page
of a shop: no other page to learn the site's layout from. The page's own markup still names
its parts: an element whose class, id or itemprop says ``price`` holds a price, and an
add-to-cart control says the product can be bought, and a label row ("EAN: …", "Model
number …") says what the identifier beside it is; where no label says it, a code the body
gives that the page's title ends with or its address holds is the model or the shop's code.
These values are read only where the metadata gives none, and carry the source ``body``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .bodyfill import fill_from_body, with_body_values
from .model import CoreRecord
from .normalise import as_currency, as_gtin, as_identifier, as_price
from .options import BodyProductOptions

__all__ = [
    "FILLED",
    "BodyProductOptions",
    "body_product",
    "product_from_body",
    "with_body_product",
]

#: the product fields the body may fill
FILLED = frozenset({"price", "currency", "availability", "sku", "mpn", "gtin", "brand"})
#: the fields a label row may name, in the order their labels are tried
LABELLED = ("gtin", "mpn", "sku", "brand")

_WORD = re.compile(r"[a-z]+")
_NON_LETTER = re.compile(r"[^a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: one amount: digits, with the separators and spaces a price may hold between them
_AMOUNT = re.compile(r"\d(?:[\d.,'\s\u00a0\u202f]*\d)?")
#: cents set apart from the whole units, and whole units that already hold a decimal point
_CENTS = re.compile(r"\d{2}")
_POINTED = re.compile(r"[.,]\d{1,2}$")
#: what is left of a price's text once its number is taken out: a sign or a code
_NUMBER = re.compile(r"[\d\s.,'\u00a0\u202f-]+")
_LETTERS = re.compile(r"[^\W\d_]+")
#: the attributes whose words name a price
_PRICE = ("class", "id", "itemprop")
_CONTROLS = frozenset({"button", "input", "a", "form"})
_SKIPPED = frozenset({"script", "style", "noscript", "template", "head", "select", "option"})
#: a label and what follows it: "EAN: 123", "ASIN : B0…", "品番：…"
_COLON = re.compile(r"[:\uff1a]")
_LABEL_WORD = re.compile(r"[^\W_]+")
#: the elements that hold a label whose value is the next cell, without a colon
_LABEL_CELLS = frozenset({"th", "dt"})
#: the longest text read as one label row
_ROW_CHARS = 120
#: one identifier: letters, digits and the separators a code may hold, no space
_CODE = re.compile(r"[^\W_]*\d[\w./-]*", re.UNICODE)
_DIGIT = re.compile(r"\d")
#: what may stand around a value without being part of it ("〈M14876706〉", "# 418295")
_AROUND = " #:-()[]<>\u3008\u3009\uff08\uff09\u3010\u3011"
#: what ends a sentence a label row is written as ("EAN: 5018479061991."): no code ends so
_SENTENCE_END = ".;,"
#: the longest text read as a label without a colon
_BARE_CHARS = 40
#: a part of an address between its separators
_ADDRESS_PART = re.compile(r"[^\W_]+", re.UNICODE)
#: one word of an address, between its separators ("/shop-by-brand/" holds "brand")
_ADDRESS_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
#: the shortest part of an address read as a product's code (not a page or a size)
_MIN_ADDRESS_CODE = 5
#: the shortest code a title's last word must be to be read as a model number
_MIN_MODEL_CHARS = 5
#: a model number: letters, digits and the separators between them ("AG-M22PCIE4")
_MODEL = re.compile(r"[^\W_][\w./-]*[^\W_]", re.UNICODE)
#: a number and its unit ("128GB", "27in", "1.5kg"): a quantity, not a code
_QUANTITY = re.compile(r"[\d.,]+[^\W\d_]*", re.UNICODE)
#: signs of one currency each that the normaliser does not know
_MORE_SIGNS = {
    "kn": "HRK",
    "ft": "HUF",
    "тг": "KZT",
    "тг.": "KZT",
    "₸": "KZT",
    "руб": "RUB",
    "руб.": "RUB",
    "грн": "UAH",
    "грн.": "UAH",
    "лв": "BGN",
    "лв.": "BGN",
    "ر.س": "SAR",
    "원": "KRW",
    "s/": "PEN",
    "s/.": "PEN",
}
_DOLLAR = {
    "us": "USD",
    "ca": "CAD",
    "au": "AUD",
    "nz": "NZD",
    "mx": "MXN",
    "ar": "ARS",
    "cl": "CLP",
    "co": "COP",
    "sg": "SGD",
    "hk": "HKD",
    "tw": "TWD",
    "uy": "UYU",
    "ec": "USD",
    "sv": "USD",
    "pr": "USD",
}
_KRONA = {"se": "SEK", "no": "NOK", "dk": "DKK", "is": "ISK"}
_RUPEE = {"in": "INR", "pk": "PKR", "lk": "LKR", "np": "NPR"}
#: signs that stand for the currencies of several countries: the page's country says which
_BY_COUNTRY = {
    "$": _DOLLAR,
    "kr": _KRONA,
    "kr.": _KRONA,
    "rs": _RUPEE,
    "rs.": _RUPEE,
    "元": {"cn": "CNY", "tw": "TWD"},
}
#: the country a language without a region is spoken in, where a sign needs it (``kr``)
_LANGUAGE_COUNTRY = {"sv": "se", "nb": "no", "nn": "no", "no": "no", "da": "dk", "is": "is"}
_REGION = re.compile(r"^[a-z]{2,3}(?:[-_][a-z]{4})?[-_]([a-z]{2})\b")
_HOST_TLD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/?#]*\.([a-z]{2})(?::\d+)?(?:[/?#]|$)")


def _words(element: Any) -> list[str]:
    """The element's markup words: class, id and itemprop, split at case changes and
    punctuation, lower case."""
    text = " ".join(element.get(name) or "" for name in _PRICE)
    return _WORD.findall(_CAMEL.sub(" ", text).lower())


def _joined(element: Any) -> str:
    """The element's markup as one run of letters (``add-to-cart`` -> ``addtocart``)."""
    get = element.get
    text = f"{get('class') or ''}{get('id') or ''}{get('name') or ''}{get('itemprop') or ''}"
    return _NON_LETTER.sub("", text.lower()) if text else ""


def _names_price(words: list[str], options: BodyProductOptions) -> bool:
    marked = any(part in word for word in words for part in options.price_parts)
    return marked and not any(part in word for word in words for part in options.other_parts)


def _price_of(element: Any, options: BodyProductOptions) -> tuple[str, str | None] | None:
    """The price and currency an element shows, where its text is one amount shown as money
    (a sign or a code beside it) and nothing else; a sign of several countries' currencies
    (``$``, ``kr``) is read with the page's country."""
    text = _money_text(element)
    label, colon, after = text.partition(":")
    if colon and not _AMOUNT.search(label):
        text = after.strip()  # "Price: $3.34": the label names the number after it
    if len(text) > options.max_price_chars or len(_AMOUNT.findall(text)) != 1:
        return None  # a container of several prices (was and now) names none of them
    rest = _NUMBER.sub(" ", text).strip()
    sign = _AMOUNT.sub(" ", text).strip().lower()  # "99 ر.س": the sign keeps its dot
    if not rest or len(rest) > options.max_sign_chars or _words_beside(rest, sign):
        return None  # a bare number, or words beside it: a count, a unit price
    if "%" in rest:
        return None  # a saving
    price = as_price(text)
    if price is None or not price.strip("0."):
        return None  # "0.00" stands in for a price the page has not filled
    return price, as_currency(rest) or _sign_currency(sign, element)


def _money_text(element: Any) -> str:
    """The element's text as a reader sees it: without what the page hides
    (``style="display:none"``, ``hidden``), with cents the page sets in their own element
    after the whole units ("$229<sup>99</sup>") read after a decimal point."""
    pieces = [piece for piece in _shown_text(element) if piece.strip()]
    for index in range(1, len(pieces)):
        before, cents = pieces[index - 1].rstrip(), pieces[index].strip()
        if _CENTS.fullmatch(cents) and before[-1:].isdigit() and not _POINTED.search(before):
            pieces[index - 1], pieces[index] = before, f".{pieces[index].lstrip()}"
    return " ".join("".join(pieces).split())


def _shown_text(element: Any) -> Iterator[str]:
    """The texts of the element and its descendants, in order, leaving out hidden ones."""
    if _hidden(element):
        return
    yield element.text or ""
    for child in element:
        if isinstance(child.tag, str):
            yield from _shown_text(child)
        yield child.tail or ""


def _hidden(element: Any) -> bool:
    style = (element.get("style") or "").replace(" ", "").lower()
    return "display:none" in style or element.get("hidden") is not None


def _words_beside(rest: str, sign: str) -> bool:
    """More than one run of letters beside the number, and not one sign ("ر.س")."""
    return len(_LETTERS.findall(rest)) > 1 and sign not in _MORE_SIGNS


def _sign_currency(sign: str, element: Any) -> str | None:
    """The ISO code of a sign the normaliser does not know, or of a sign of several
    countries' currencies read with the page's country."""
    if sign in _MORE_SIGNS:
        return _MORE_SIGNS[sign]
    countries = _BY_COUNTRY.get(sign)
    if countries is None:
        return None
    return countries.get(_country(element.getroottree().getroot()) or "")


def _country(root: Any) -> str | None:
    """The country the page says it is for: its language's region (``lang="en-US"``,
    ``og:locale`` ``es_CL``), else its address's country domain (``.cl``), else the country
    of a language spoken in one (``sv``)."""
    tags = [root.get("lang") or ""]
    tags += root.xpath("/html/head/meta[@property='og:locale']/@content")
    for tag in tags:
        match = _REGION.match(tag.strip().lower())
        if match:
            return match.group(1)
    addresses = root.xpath(
        "/html/head/link[@rel='canonical']/@href|/html/head/meta[@property='og:url']/@content"
    )
    for address in addresses:
        match = _HOST_TLD.match(address.strip().lower())
        if match:
            return match.group(1)
    language = tags[0].strip().lower()[:2]
    return _LANGUAGE_COUNTRY.get(language)


def _marked(body: Any, parts: tuple[str, ...]) -> Iterator[Any]:
    """The body's elements, in page order, whose class, id or itemprop holds one of
    ``parts`` in any case (a superset of what the word checks then accept), outside
    scripts, styles and form choices."""
    for element in body.iter():
        get = element.get
        text = f"{get('class') or ''} {get('id') or ''} {get('itemprop') or ''}".lower()
        if any(part in text for part in parts) and not _skipped(element):
            yield element


def _skipped(element: Any) -> bool:
    """Inside a script, a style, a template or a form's choices: no text a reader sees."""
    return element.tag in _SKIPPED or any(a.tag in _SKIPPED for a in element.iterancestors())


def _availability_of(element: Any, options: BodyProductOptions) -> str | None:
    """What an add-to-cart control says of the product's stock: it can be bought unless the
    control is disabled. Markup that says "sold out" is left unread: shops keep it in the
    page, hidden, beside products they sell."""
    joined = _joined(element)
    named = any(part in joined for part in options.buy_parts)
    if not (named or _says_buy(element, options)) or _skipped(element):
        return None
    return "InStock" if element.get("disabled") is None else "OutOfStock"


def _says_buy(element: Any, options: BodyProductOptions) -> bool:
    """The control's own words ask to buy ("Aggiungi al carrello", "Comprar entrada"): a
    shop's markup may name its button in no language the markup words know. A form's
    words are its controls' words: the control itself says whether it is disabled."""
    if element.tag == "form":
        return False
    text = element.get("value") if element.tag == "input" else element.text_content()
    text = " ".join((text or "").split()).casefold()
    if not text or len(text) > options.max_buy_chars:
        return False
    return any(text == phrase or text.startswith(f"{phrase} ") for phrase in options.buy_texts)


def body_product(
    root: Any, options: BodyProductOptions | None = None, wanted: frozenset[str] = FILLED
) -> dict[str, str]:
    """The product fields the body's own markup and words name: the first price element the
    markup names so (a currency from its sign or code); ``InStock`` where an enabled buy
    control is there (``OutOfStock`` where every one is disabled); identifiers and the
    brand from label rows, then from elements the markup names, then (the brand) from a
    title's byline, (the model) from a title's code, (the sku) from a code the address holds.
    Only the ``wanted`` fields are looked for."""
    options = options or BodyProductOptions()
    body = root.find("body") if root is not None else None
    if body is None:
        return {}
    found: dict[str, str] = {}
    if wanted & {"price", "currency"}:
        found.update(_first_price(body, options))
    if wanted & set(LABELLED):
        found.update(_identifiers(body, options, wanted))
    if "availability" in wanted:
        found.update(_availability(body, options))
    return {name: value for name, value in found.items() if name in wanted}


def _identifiers(body: Any, options: BodyProductOptions, wanted: frozenset[str]) -> dict:
    """Identifiers and the brand, the most explicit statement first: a label row says
    what its value is, a markup name less plainly, a byline only of the brand."""
    rows = _Rows(_label_rows(body, options))
    found = _labelled(rows, options, wanted)
    found.update(_named(body, options, wanted - found.keys()))
    if "brand" in wanted and "brand" not in found:
        found.update(_brand_link(body, options))
    if "brand" in wanted and "brand" not in found:
        found.update(_byline(body, options))
    if "brand" in wanted and "brand" not in found and options.title_kicker:
        found.update(_kicker(body, options))
    if "mpn" in wanted and "mpn" not in found and options.title_model:
        found.update(_title_model(body, rows, options))
    if "sku" in wanted and "sku" not in found and options.id_attributes:
        found.update(_address_code(body, rows, options))
    return found


class _Rows:
    """The body's label rows, walked once however many readers go through them."""

    def __init__(self, rows: Iterator[tuple[str, str]]) -> None:
        self._rows = rows
        self._seen: list[tuple[str, str]] = []

    def __iter__(self) -> Iterator[tuple[str, str]]:
        yield from self._seen
        for row in self._rows:
            self._seen.append(row)
            yield row


def _address_code(body: Any, rows: _Rows, options: BodyProductOptions) -> dict[str, str]:
    """The shop's own code where the page's address carries it ("/deal/3454863898",
    "?pid=260591") and the body gives the same code as a label row's whole value or as the
    value of markup that names a product id (``data-productid``, an ``<input
    name="ProductId">``): the address alone may hold any number, the two together name the
    product."""
    codes = _address_codes(body.getparent())
    if not codes:
        return {}
    for _, text in rows:
        if text.strip(_AROUND) in codes:
            return {"sku": text.strip(_AROUND)}
    for element in body.iter():
        value = _id_attribute(element, options)
        if value in codes:
            return {"sku": value}
    return {}


def _address_codes(root: Any) -> set[str]:
    """The codes the page's own address (its canonical link or ``og:url``) holds: its path's
    and query's parts that have a digit and are long enough not to be a page number."""
    addresses = (
        root.xpath("head/link[@rel='canonical']/@href|head/meta[@property='og:url']/@content")
        if root is not None
        else []
    )
    codes: set[str] = set()
    for address in addresses:
        _, _, rest = address.partition("://")
        _, _, rest = rest.partition("/")
        codes.update(
            part
            for part in _ADDRESS_PART.findall(rest)
            if len(part) >= _MIN_ADDRESS_CODE and _DIGIT.search(part)
        )
    return codes


def _id_attribute(element: Any, options: BodyProductOptions) -> str | None:
    """The value of an element's product-id markup: an attribute so named, or an input so
    named."""
    if not isinstance(element.tag, str):
        return None
    for name, value in element.attrib.items():
        if _NON_LETTER.sub("", name.lower()) in options.id_attributes:
            return value.strip()
    if element.tag == "input":
        name = _NON_LETTER.sub("", (element.get("name") or "").lower())
        if name in options.id_inputs:
            return (element.get("value") or "").strip()
    return None


def _title_model(body: Any, rows: _Rows, options: BodyProductOptions) -> dict[str, str]:
    """The model number a title ends with ("… OS X (MQ2Y2SL/A)") where a label row the
    words do not know ("Produktové číslo: MQ2Y2SL/A") gives that same code as its whole
    value: the title and the row together say it is the product's model, whatever the
    row's language."""
    codes = {code for code in map(_title_code, body.iter("h1")) if code}
    if not codes:
        return {}
    for label, text in rows:
        value = text.strip(_AROUND)
        if value in codes and _label_names(label, options) is None:
            return {"mpn": value}
    return {}


def _title_code(title: Any) -> str | None:
    """The title's last word where it is a code: letters and digits, not a quantity
    ("128GB", "27in") or a bare number."""
    words = _text(title).split()
    code = words[-1].strip(_AROUND) if len(words) > 1 else ""
    if len(code) < _MIN_MODEL_CHARS or not _MODEL.fullmatch(code) or _QUANTITY.fullmatch(code):
        return None
    return code if _LETTERS.search(code) and _DIGIT.search(code) else None


def _availability(body: Any, options: BodyProductOptions) -> dict[str, str]:
    """InStock from the first enabled buy control; OutOfStock only when every one is
    disabled, so the controls after an enabled one need not be read."""
    said = None
    for element in body.iter(*_CONTROLS):
        stock = _availability_of(element, options)
        if stock == "InStock":
            return {"availability": stock}
        said = stock or said
    return {"availability": said} if said else {}


def _first_price(body: Any, options: BodyProductOptions) -> dict[str, str]:
    """The first price the markup names outside lists of other products: the product's own
    comes before cards of others. Where only those cards show a price, their currency is
    still the shop's."""
    currency = None
    for element in _marked(body, options.price_parts):
        if not _names_price(_words(element), options):
            continue
        read = _price_of(element, options)
        if read is None:
            continue
        if not _in_others(element, options):
            return {"price": read[0], **({"currency": read[1]} if read[1] else {})}
        currency = currency or read[1]
    return {"currency": currency} if currency else {}


def _in_others(element: Any, options: BodyProductOptions) -> bool:
    """Inside a block whose markup names it a list of other products ("recommended",
    "related", a carousel): their prices are theirs, not the page's product's."""
    for ancestor in element.iterancestors():
        words = _words(ancestor)
        if any(part in word for word in words for part in options.others_parts):
            return True
    return False


def _labelled(rows: _Rows, options: BodyProductOptions, wanted: frozenset[str]) -> dict:
    """The first value of each wanted field (identifiers, brand) a label row of the body
    names."""
    found: dict[str, str] = {}
    for label, text in rows:
        name = _label_names(label, options)
        if name is None or name not in wanted or name in found:
            continue
        value = _value_of(name, text, options)
        if value is not None:
            found[name] = value
            if len(found) == len(wanted & set(LABELLED)):
                break
    return found


def _label_rows(body: Any, options: BodyProductOptions) -> Iterator[tuple[str, str]]:
    """``(label, value text)`` of the body's label rows, in page order: an element whose
    own text holds a colon ("EAN: 123", or "EAN:" with the value in its tail or next
    element), a table or definition list's label cell (or a two-cell row's first cell)
    with the cell after it, and an
    element that is a label and nothing else ("Item #", "Výrobca") with what follows it."""
    for element in body.iter():
        if not isinstance(element.tag, str):
            continue
        leaf = _leaf(element)
        own = element.text_content() if leaf and len(element) else element.text
        if own and _COLON.search(own):
            row = _colon_row(element)
        elif element.tag in _LABEL_CELLS or _label_td(element):
            row = (_text(element), _next_text(element))
        elif own and leaf and _bare_label(own, options):
            row = (own, _after(element))
        else:
            continue
        if row is not None and not _skipped(element):
            yield row


def _leaf(element: Any) -> bool:
    """No child element, only text (and comments, which split a label's text from its
    colon: "Article number<!-- -->:")."""
    return all(not isinstance(child.tag, str) for child in element)


def _label_td(element: Any) -> bool:
    """The first of a table row's two cells: a label beside its value ("ID Produto" |
    "1257009"), as a ``th`` would be."""
    if element.tag != "td" or element.getprevious() is not None:
        return False
    row = element.getparent()
    return row is not None and len(row) == 2 and row[1].tag == "td"


def _colon_row(element: Any) -> tuple[str, str] | None:
    """An element's "label: value": the value after its colon, else in its tail or the
    next element's text ("<span>ASIN :</span><span>B0…</span>")."""
    text = _text(element)
    if len(text) > _ROW_CHARS:
        return None  # a paragraph that happens to hold a colon
    label, _, value = _split(text)
    return label, value or _after(element)


def _after(element: Any) -> str:
    """The text that follows a label: its tail, else the next element's text."""
    return " ".join((element.tail or "").split()) or _next_text(element)


def _bare_label(text: str, options: BodyProductOptions) -> bool:
    """A short text that is one of the label phrases, whole: a label the page sets apart
    without a colon. Only a whole phrase counts, so a sentence that mentions a brand or a
    model is not read as a label."""
    if len(text) > _BARE_CHARS:
        return False
    words = " ".join(_LABEL_WORD.findall(_numbered(text)))
    return any(words in phrases for phrases in _phrases(options))


def _phrases(options: BodyProductOptions) -> tuple[tuple[str, ...], ...]:
    return (options.gtin_labels, options.mpn_labels, options.sku_labels, options.brand_labels)


def _numbered(label: str) -> str:
    """The label in lower case with ``#`` read as "number" ("Item #", "Model #")."""
    return label.lower().replace("#", " number ")


def _split(text: str) -> tuple[str, str, str]:
    parts = _COLON.split(text, maxsplit=1)
    return (parts[0], ":", parts[1].strip()) if len(parts) == 2 else (text, "", "")


def _text(element: Any) -> str:
    return " ".join(element.text_content().split())


def _next_text(element: Any) -> str:
    after = element.getnext()
    while after is not None and not isinstance(after.tag, str):
        after = after.getnext()  # a comment between the label and its value
    return _text(after) if after is not None else ""


def _label_names(label: str, options: BodyProductOptions) -> str | None:
    """Which field a label names (a GTIN before a part number before the shop's own code,
    before the brand: "Manufacturer part number" is not the brand)."""
    words = _LABEL_WORD.findall(_numbered(label))
    if not words or len(words) > options.max_label_words:
        return None
    joined = f" {' '.join(words)} "
    kinds = zip(LABELLED[:3], _phrases(options)[:3])
    for name, phrases in kinds:
        if any(f" {phrase} " in joined for phrase in phrases):
            return name
    brand = any(joined.endswith(f" {phrase} ") for phrase in options.brand_labels)
    if brand and len(words) <= options.max_brand_label_words:
        return "brand"  # "Manufacturer recommended age" says something of the brand's
    return None


def _value_of(name: str, text: str, options: BodyProductOptions) -> str | None:
    """The value a label row's text is: a short name for a brand, one short code with a
    digit in it for an identifier."""
    text = text.strip(_AROUND)
    if not text or len(text) > options.max_id_chars:
        return None
    if name == "brand":  # a name, not an address ("Street 75, 21266 Town")
        short = len(text.split()) <= options.max_brand_words and "," not in text
        return text if short else None
    text = text.rstrip(_SENTENCE_END)  # "R.K." keeps its dot: a brand is read above
    if len(text.split()) > options.max_id_words or not any(c.isdigit() for c in text):
        return None
    return as_gtin(text) if name == "gtin" else as_identifier(text)


def _named(body: Any, options: BodyProductOptions, wanted: frozenset[str]) -> dict:
    """The shop's own identifier and the brand where the markup names their element
    (``class="product-brand"``, ``id="itemNumber"``) but no label row says what they are:
    the first such element whose text (after a label and its colon) is a value."""
    found: dict[str, str] = {}
    kinds = (
        ("sku", options.sku_parts, ()),
        ("brand", options.brand_parts, options.not_brand_parts),
    )
    for name, parts, others in kinds:
        if name not in wanted:
            continue
        for element in _marked(body, parts):
            joined = _joined(element)
            if not any(p in joined for p in parts) or any(p in joined for p in others):
                continue
            value = _named_value(name, _text(element), options)
            if value is not None:
                found[name] = value
                break
    return found


def _brand_link(body: Any, options: BodyProductOptions) -> dict[str, str]:
    """The brand a link to the shop's listing of one brand names ("/brands/norton",
    "?marca=cic"), where the product's title holds the link's words: a page links to many
    brands (menus, "All brands"), the title says which one is the product's."""
    titles = [_text(title).casefold() for title in body.iter("h1")]
    if not any(titles) or not options.brand_address_words:
        return {}
    for link in body.iter("a"):
        if not _links_to_brand(link.get("href") or "", options):
            continue
        text = _text(link)
        if not text or _DIGIT.search(text) or len(text.split()) > options.max_brand_words:
            continue
        words = re.compile(rf"(?<!\w){re.escape(text.casefold())}(?!\w)")
        if any(words.search(title) for title in titles) and not _skipped(link):
            return {"brand": text}
    return {}


def _links_to_brand(address: str, options: BodyProductOptions) -> bool:
    """The address's path or query has a part that is a brand word ("brands", "marca")."""
    _, slashes, rest = address.partition("//")
    path = rest.partition("/")[2] if slashes else address
    return any(word in options.brand_address_words for word in _ADDRESS_WORD.findall(path.lower()))


def _byline(body: Any, options: BodyProductOptions) -> dict[str, str]:
    """The brand a link just under a title of the page names ("Visit the Tefal Store",
    "by Tefal"): where the page states its brand nowhere else, the title's byline does.
    Every ``h1`` is tried, since a page's first may be a banner's."""
    patterns = [_byline_pattern(phrase) for phrase in options.byline_phrases]
    for title in body.iter("h1") if patterns else ():
        following = title.xpath("following::a[position() <= $reach]", reach=options.byline_reach)
        for element in following:
            value = _byline_brand(_text(element), patterns, options)
            if value is not None:
                return {"brand": value}
    return {}


def _kicker(body: Any, options: BodyProductOptions) -> dict[str, str]:
    """The brand a shop sets just before the product's title ("Superdry" above "Spirit
    Sports Puffer"), where the page's own ``<title>`` names it too: a short line next to
    the title that the page's name repeats is the maker's name, not a section heading."""
    title = next(body.iter("h1"), None)
    head = body.getparent().find("head") if body.getparent() is not None else None
    named = " ".join((head.findtext("title") or "").split()).casefold() if head is not None else ""
    if title is None or not named:
        return {}
    heading = _text(title).casefold()
    for node in (title, title.getparent()):
        before = _previous_text(node) if node is not None else ""
        if _names_maker(before, heading, named, options):
            value = _value_of("brand", before, options)
            return {"brand": value} if value else {}
    return {}


def _names_maker(text: str, heading: str, named: str, options: BodyProductOptions) -> bool:
    """A short line without a number, not part of the title, that the page's name holds."""
    folded = text.casefold()
    short = 0 < len(text.split()) <= options.max_brand_words
    return short and not _DIGIT.search(text) and folded not in heading and folded in named


def _previous_text(element: Any) -> str:
    """The text of the element's nearest earlier sibling that has any."""
    for sibling in element.itersiblings(preceding=True):
        if isinstance(sibling.tag, str):
            text = _text(sibling)
            if text:
                return text
    return ""


def _byline_brand(
    text: str, patterns: list[re.Pattern[str]], options: BodyProductOptions
) -> str | None:
    for pattern in patterns:
        match = pattern.fullmatch(text)
        if match:
            return _value_of("brand", match.group(1), options)
    return None


def _byline_pattern(phrase: str) -> re.Pattern[str]:
    before, _, after = phrase.partition("{}")
    return re.compile(f"{re.escape(before)}(.+?){re.escape(after)}", re.IGNORECASE)


def _named_value(name: str, text: str, options: BodyProductOptions) -> str | None:
    """The value of an element only its markup names, after a label and its colon where
    it has one: one code with a digit for an identifier, a name without digits or the
    word "brand" for a brand ("All brands", a price in a brand slider are not one)."""
    text = _split(text)[2] or text
    if name == "sku" and not _CODE.fullmatch(text):
        return None
    if name == "brand" and (_DIGIT.search(text) or "brand" in text.lower()):
        return None
    return _value_of(name, text, options)


def product_from_body(
    record: CoreRecord, root: Any, options: BodyProductOptions | None
) -> CoreRecord:
    """``record`` with what the body says of the product fields its metadata leaves empty
    (the same record for other page types, or when ``options`` is None)."""
    if options is None:
        return record
    return fill_from_body(
        record, "product", FILLED, lambda wanted: body_product(root, options, wanted)
    )


def with_body_product(record: CoreRecord, found: dict[str, str]) -> CoreRecord:
    """``record`` with the body's values (source ``body``) for the product fields its
    metadata leaves empty; the fields stay in their standard order."""
    return with_body_values(record, "product", found)
