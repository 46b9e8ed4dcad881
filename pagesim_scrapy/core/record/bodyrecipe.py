"""A recipe's times, yield, ingredients, steps, author, cuisine and category read from its
own page body, by the labels and headings the page shows a cook.

Recipe sites are small (a crawl may see two or three pages of one), and their pages often
come in several layouts, so a site's own naming (:mod:`.naming`) often has too little to
learn from. The page still says what its parts are: "Prep Time" beside a duration,
"Servings" beside a count, an "Ingredients" heading over a list, "Method" over the steps.
These values are read only where the metadata and the site's learned naming give none, and
carry the source ``body``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .bodyfill import fill_from_body, with_body_values
from .bodyvalues import read_as
from .model import CoreRecord
from .options import BodyRecipeOptions

__all__ = [
    "FILLED",
    "BodyRecipeOptions",
    "body_recipe",
    "recipe_from_body",
    "with_body_recipe",
]

#: the label rows' fields and the kind their value is read as
LABELLED = {
    "prep_time": "duration",
    "cook_time": "duration",
    "total_time": "duration",
    "recipe_yield": "text",
    "author": "authors",
    "recipe_cuisine": "text",
    "recipe_category": "text",
    "date_published": "date",
    "date_modified": "date",
}
#: the lists under a heading
LISTED = ("recipe_ingredient", "recipe_instructions")
#: the field the page's main heading names
HEADED = "name"
#: the field the recipe card's summary gives
SUMMED = "description"
#: the recipe fields the body may fill
FILLED = frozenset(LABELLED) | frozenset(LISTED) | {HEADED, SUMMED}

_SKIPPED = frozenset({"script", "style", "noscript", "template", "head", "select", "option"})
#: the site's chrome: a menu's "Category" or "Cocina" names no value of the recipe
_CHROME = frozenset({"nav", "header", "footer", "aside"})
#: where a ``header`` is a recipe card's own (its times, its title), not the site's
_CONTENT = frozenset({"article", "main", "section"})
#: elements whose text is a link or a control, not a label the page sets beside its value
_NOT_LABELS = frozenset({"a", "button", "option", "input", "textarea"})
_NOT_HEADINGS = _NOT_LABELS | {"li"}
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_TRIM = " \t\n:#*\u00a0\uff1a"
_DIGIT = re.compile(r"\d")
#: a step's number before its text ("Step 1", "Schritt 2:", "3.")
_STEP = re.compile(
    r"^(?:(?:step|schritt|paso|stap|étape|passo|trin|steg|lépés)\s*\d+[.:]?\s*|\d+[.)]\s+)",
    re.I,
)
#: a step's title in capitals before its text ("BLISTER TOMATOES In a large skillet…")
_TITLE = re.compile(r"^(?:[^\W\d_a-z]{2,}\s*){2,}:?\s+(?=[^\W\d_a-z][^\W\d_A-Z])")
#: a nutrition row ("Calories: 222", "Total fat: 20g"): the steps have ended
_FACT = re.compile(r"^[^:]{1,30}:\s*\d")
#: "By Jane Doe": a byline in one element (the name after it, a few words, no digits)
_BYLINE = re.compile(r"^(?:by|von|par|door|por|af|av)\s+(\S+(?:\s+\S+){0,3})$", re.I)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold().strip(_TRIM)


def _text(element: Any) -> str:
    """The text a reader sees in an element: its scripts' and styles' source left out."""
    return _text_without(element, _SKIPPED, _whole_text)


def _whole_text(element: Any) -> str:
    return " ".join(element.text_content().split())


def _text_without(element: Any, tags: Any, whole: Callable[[Any], str]) -> str:
    """An element's text, whitespace-folded, with the elements of ``tags`` left out; a
    part holding none of them is read by ``whole``."""
    if not any(True for _ in element.iter(*tags)):
        return whole(element)
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and child.tag not in tags:
            parts.append(_text_without(child, tags, whole))
        parts.append(child.tail or "")
    return " ".join(" ".join(parts).split())


@lru_cache(maxsize=8)
def _labels(options: BodyRecipeOptions) -> dict[str, str]:
    """``{folded label: field}``; a label two fields share keeps the first."""
    kinds = (
        ("prep_time", options.prep_labels),
        ("cook_time", options.cook_labels),
        ("total_time", options.total_labels),
        ("recipe_yield", options.yield_labels),
        ("author", options.author_labels),
        ("recipe_cuisine", options.cuisine_labels),
        ("recipe_category", options.category_labels),
        ("date_published", options.published_labels),
        ("date_modified", options.modified_labels),
    )
    found: dict[str, str] = {}
    for name, labels in kinds:
        for label in labels:
            found.setdefault(_fold(label), name)
    return found


@lru_cache(maxsize=8)
def _sections(options: BodyRecipeOptions) -> dict[str, str]:
    """``{folded heading: section}``: a list's field, or ``end`` for a section after it."""
    found = {_fold(h): "end" for h in options.end_headings}
    found.update((_fold(h), "recipe_instructions") for h in options.instruction_headings)
    found.update((_fold(h), "recipe_ingredient") for h in options.ingredient_headings)
    return found


def _in_chrome(element: Any) -> bool:
    """In the site's navigation, footer, sidebar, or its header (a ``header`` inside the
    content is a card's own)."""
    path = [element, *element.iterancestors()]
    for at, tag in enumerate(e.tag for e in path):
        if tag in _CHROME and (tag != "header" or not _CONTENT & {a.tag for a in path[at:]}):
            return True
    return False


def _skipped(element: Any) -> bool:
    return element.tag in _SKIPPED or any(a.tag in _SKIPPED for a in element.iterancestors())


def _elements(body: Any) -> list[Any]:
    """The body's elements in page order, outside scripts, styles and form choices."""
    out = []
    skipped: set[Any] = set()
    for element in body.iter():
        if not isinstance(element.tag, str):
            continue
        parent = element.getparent()
        if element.tag in _SKIPPED or parent in skipped:
            skipped.add(element)
            continue
        out.append(element)
    return out


def body_recipe(
    root: Any, options: BodyRecipeOptions | None = None, wanted: frozenset[str] = FILLED
) -> dict[str, Any]:
    """The recipe fields the body's labels and headings name: the first value each label
    row gives that reads as its field's kind; the longest list under a heading of the
    ingredients or the steps. Only the ``wanted`` fields are looked for."""
    options = options or BodyRecipeOptions()
    body = root.find("body") if root is not None else None
    if body is None or not wanted:
        return {}
    elements = _elements(body)
    found: dict[str, Any] = {}
    if HEADED in wanted:
        found.update(_headed(elements, options))
    if SUMMED in wanted:
        found.update(_summed(elements, options))
    if wanted & _CARD_TERMS.keys():
        found.update(_carded(elements, options, wanted))
    if wanted & LABELLED.keys() - found.keys():
        found.update(_labelled(elements, options, wanted - found.keys()))
    if wanted & set(LISTED):
        found.update(_listed(elements, options, wanted))
    return found


def _headed(elements: list[Any], options: BodyRecipeOptions) -> dict[str, str]:
    """The recipe's name: the title its recipe card repeats (an element whose class names a
    recipe's name or title), else the text of the page's one main heading (``h1``) outside
    the site's chrome. A blog's ``h1`` often dresses the name up ("The Easiest Dan Dan
    Noodles") where the card states it; a page with several different ``h1`` says none."""
    for element in elements:
        if _in_card(element, _CARD_NAME):
            heading = next(element.iter("h1", "h2", "h3", "h4"), element)  # beside a rating
            name = _text(heading)
            if name and len(name) <= options.max_name_chars:
                return {HEADED: name}
    texts = {_text(e) for e in elements if e.tag == "h1" and not _in_chrome(e)}
    texts.discard("")
    if len(texts) != 1:
        return {}
    name = texts.pop()
    return {HEADED: name} if len(name) <= options.max_name_chars else {}


def _summed(elements: list[Any], options: BodyRecipeOptions) -> dict[str, str]:
    """The recipe's description: the text the recipe card's summary holds (a class
    ``wprm-recipe-summary``, ``tasty-recipes-description``…), its own "Description"
    heading left out."""
    for element in elements:
        if _in_card(element, _CARD_SUMMARY):
            text = _unheaded(element)
            if text and len(text) <= options.max_description_chars:
                return {SUMMED: text}
            return {}
    return {}


def _unheaded(element: Any) -> str:
    """An element's text without the headings inside it."""
    return _text_without(element, _HEADINGS, _text)


def _in_card(element: Any, part: re.Pattern[str]) -> bool:
    """A part of a recipe card by its class (``wprm-recipe-name``, ``tasty-recipes-title``,
    ``recipe-summary``…), outside the chrome and not on a link (another recipe's card) or
    a control."""
    classes = element.get("class")
    if not classes or "recipe" not in classes or element.tag in _NOT_LABELS:
        return False
    if not any(part.match(token) for token in classes.split()):
        return False
    return not _in_chrome(element) and not any(a.tag == "a" for a in element.iterancestors())


#: a recipe card's term slots by their class: WP Recipe Maker's ``wprm-recipe-course``,
#: ``wprm-recipe-cuisine`` and Tasty Recipes' ``tasty-recipes-category``,
#: ``tasty-recipes-cuisine`` hold the term alone, often with no label beside it (an icon, or
#: a label hidden from the eye); a term slot is read before the label rows
_CARD_TERMS = {
    "recipe_category": re.compile(r"^(?:[a-z]+-)?recipes?-(?:course|category)$", re.I),
    "recipe_cuisine": re.compile(r"^(?:[a-z]+-)?recipes?-cuisine$", re.I),
}


def _carded(elements: list[Any], options: BodyRecipeOptions, wanted: frozenset[str]) -> dict:
    """The first readable term of each wanted field a recipe card's term slot holds."""
    found: dict[str, Any] = {}
    for name, part in _CARD_TERMS.items():
        if name not in wanted:
            continue
        for element in elements:
            if _in_card(element, part):
                value = _value_of(name, _text(element), options)
                if value is not None:
                    found[name] = value
                    break
    return found


_CARD_NAME = re.compile(r"^(?:[a-z]+-)?recipes?-(?:name|title)$", re.I)
_CARD_SUMMARY = re.compile(r"^(?:[a-z]+-)?recipes?-(?:summary|description|intro)$", re.I)


def _labelled(elements: list[Any], options: BodyRecipeOptions, wanted: frozenset[str]) -> dict:
    """The first readable value of each wanted field a label row of the body names."""
    labels = _labels(options)
    found: dict[str, Any] = {}
    for element in elements:
        if element.tag in _NOT_LABELS or element.getparent() is None or _in_chrome(element):
            continue
        for name, text in _rows(element, labels, options):
            if name in wanted and name not in found:
                value = _value_of(name, text, options)
                if value is not None:
                    found[name] = value
    return found


def _rows(element: Any, labels: dict[str, str], options: BodyRecipeOptions) -> Iterator:
    """``(field, value text)`` candidates an element stands for as a label: its whole text
    a label (the value in its tail, the next element, or the rest of its parent's text),
    "Label: value" in one element, its own text a label before the value its children hold,
    or a byline ("By Jane Doe")."""
    own = element.text or ""
    if not own.strip() and not len(element):
        return
    text = _text(element)
    if not text or len(text) > options.max_label_chars + options.max_value_chars:
        return
    label = _fold(text)
    if label in labels and len(text) <= options.max_label_chars:
        for value in _beside(element, text, options):
            yield labels[label], value
        return
    before, colon, after = text.partition(":")
    if colon and _fold(before) in labels and after.strip():
        yield labels[_fold(before)], after.strip()
        return
    lead = " ".join(own.split())
    if len(element) and _fold(lead) in labels and text.startswith(lead):
        yield labels[_fold(lead)], text[len(lead) :].strip()  # "Total Time<div>35 Mins</div>"
        return
    dated = _dated(options).match(text)
    if dated:
        yield labels[_fold(dated.group(1))], dated.group(2)
        return
    byline = _BYLINE.match(text) if len(element) <= 1 else None
    if byline and not _DIGIT.search(byline.group(1)):
        yield "author", byline.group(1)


@lru_cache(maxsize=8)
def _dated(options: BodyRecipeOptions) -> re.Pattern[str]:
    """A date label before its date in one text, without a colon ("Posted on May 5, 2021")."""
    words = sorted(options.published_labels + options.modified_labels, key=len, reverse=True)
    return re.compile(rf"^({'|'.join(map(re.escape, words))})\s+(.*\d.*)$", re.I)


def _beside(element: Any, label: str, options: BodyRecipeOptions) -> Iterator[str]:
    """The texts a label's value may be: its tail, the next element with text, the rest
    of its parent's text (a value shown before its label, "10 mins Prep")."""
    tail = " ".join((element.tail or "").split())
    if tail:
        yield tail
    after = element.getnext() if element.tag != "li" else None  # a menu's next item
    while after is not None and not (isinstance(after.tag, str) and _text(after)):
        after = after.getnext()
    if after is not None and len(after.xpath(".//a")) < 2:  # several links: a menu
        yield _text(after)
    parent = element.getparent()
    whole = _text(parent) if parent is not None else ""
    if label in whole and len(whole) <= len(label) + options.max_value_chars:
        rest = whole.replace(label, " ", 1).strip(_TRIM)
        if rest:
            yield rest


def _value_of(name: str, text: str, options: BodyRecipeOptions) -> Any:
    """The label row's value as its field's kind (None where it does not read as one): a
    yield needs a number, a cuisine or category a short text, a time a duration."""
    text = text.split(" (", 1)[0].strip(_TRIM)  # "4 (12-16 tortillas)": the count first
    if not text or len(text) > options.max_value_chars:
        return None
    if LABELLED[name] == "date":
        return read_as("date", text)
    if ":" in text:
        return None  # the next label row glued on ("Dessert Cuisine: American")
    if name == "recipe_yield":
        return _yield(text)
    if name in ("recipe_cuisine", "recipe_category", "author") and _DIGIT.search(text):
        return None
    if name == "author" and not _names_person(text):
        return None
    return read_as(LABELLED[name], text)


def _yield(text: str) -> str | None:
    """A yield with its count first: "9 large or 16 small brownies" and "8 to 10 servings"
    say 9 and 8 (a range written with a dash, "4-6", stays whole)."""
    numbers = _NUMBERS.findall(text)
    if not numbers:
        return None
    return numbers[0] if len(numbers) > 1 else text


_NUMBERS = re.compile(r"\d+(?:[.,]\d+)?(?:\s*[-\u2013]\s*\d+(?:[.,]\d+)?)?")


def _names_person(text: str) -> bool:
    """A short text whose words each begin with a capital, a name's particles aside
    ("Rosa Ardá", "Jan van Dijk"): not a date, a count or a phrase ("allergen or diet")."""
    words = text.split()
    if not 1 <= len(words) <= 4:
        return False
    return all(w[:1].isupper() or w.casefold() in _PARTICLES for w in words)


_PARTICLES = frozenset({"de", "van", "von", "der", "den", "la", "le", "da", "di", "du", "del"})


def _listed(elements: list[Any], options: BodyRecipeOptions, wanted: frozenset[str]) -> dict:
    """Each wanted list: the items of the longest list under one of its headings."""
    sections = _sections(options)
    index = {element: at for at, element in enumerate(elements)}
    best: dict[str, list[str]] = {}
    for at, element in enumerate(elements):
        name = _heading_of(element, sections, options)
        if name is None or name not in wanted or _in_chrome(element):
            continue
        items = _items_after(elements, at + _size(element, index), element, sections, options)
        if name == "recipe_ingredient" and not _measured(items, options):
            continue
        if len(items) > len(best.get(name, ())):
            best[name] = items
    return {name: items for name, items in best.items() if len(items) >= 2}


def _measured(items: list[str], options: BodyRecipeOptions) -> bool:
    """An ingredient list whose lines mostly begin with their quantity ("200 g flour",
    "½ cup milk"): a list of another kind under the heading (a shopping tip, kitchen tools,
    a list written "Flour 200 g" whose metadata says otherwise) is not read as one."""
    if not items:
        return False
    measured = sum(bool(_QUANTITY.match(item)) for item in items)
    return measured >= options.min_measured_share * len(items)


_QUANTITY = re.compile(r"^[\W_]*[\d\u00bc-\u00be\u2150-\u215e]")


def _size(element: Any, index: dict[Any, int]) -> int:
    """How many of the page's elements ``element`` and its descendants are."""
    last = max((index.get(e, 0) for e in element.iter()), default=index[element])
    return max(last, index[element]) - index[element] + 1


def _heading_of(element: Any, sections: dict[str, str], options: BodyRecipeOptions) -> str | None:
    """The section an element heads, where its whole text is one of the headings (a link or
    a control, as a table of contents' "Ingredients", is none)."""
    ancestors = element.iterancestors()
    if element.tag in _NOT_LABELS or any(a.tag in _NOT_HEADINGS for a in ancestors):
        return None  # a link's or a list item's text: a contents entry, a time row's label
    own = element.text or ""
    if not own.strip() and not len(element):
        return None
    text = _text(element)
    if not text or len(text) > options.max_label_chars:
        return None
    folded = _fold(text)
    if folded in sections:
        return sections[folded]
    ends = (h for h, section in sections.items() if section == "end")
    return "end" if any(folded.startswith(h) for h in ends) else None  # "Nutrition Facts"


def _items_after(
    elements: list[Any],
    start: int,
    heading: Any,
    sections: dict[str, str],
    options: BodyRecipeOptions,
) -> list[str]:
    """The texts of the list items after a heading, up to the next section's heading (or a
    heading of its level or above), innermost items only."""
    level = _HEADINGS.get(heading.tag)
    steps = _heading_of(heading, sections, options) == "recipe_instructions"
    items: list[str] = []
    inside: Any = None
    for element in elements[start : start + options.max_reach]:
        if inside is not None and _within(element, inside):
            continue
        inside = None
        if _ends(element, level, sections, options):
            break
        if element.tag == "li" and not any(True for _ in element.iter("li") if _ is not element):
            text = _TITLE.sub("", _STEP.sub("", _text(element)))
            if steps and _FACT.match(text):
                break
            if text and not _link_only(element, text):
                items.append(text)
            inside = element
    return items


def _link_only(element: Any, text: str) -> bool:
    """A list item that is one link and nothing else: a menu's or a share bar's entry."""
    links = [_text(a) for a in element.iter("a")]
    return len(links) == 1 and links[0] == text


def _within(element: Any, ancestor: Any) -> bool:
    return any(a is ancestor for a in element.iterancestors())


def _ends(element: Any, level: int | None, sections: dict[str, str], opt: Any) -> bool:
    """A heading of the same level or above, another section's heading, or the site's
    chrome (comments, a footer)."""
    if element.tag in _CHROME and _in_chrome(element):
        return True
    own = _HEADINGS.get(element.tag)
    if own is not None and level is not None and own <= level:
        return True
    return _heading_of(element, sections, opt) is not None


def recipe_from_body(
    record: CoreRecord, root: Any, options: BodyRecipeOptions | None
) -> CoreRecord:
    """``record`` with what the body says of the recipe fields its metadata leaves empty
    (the same record for other page types, or when ``options`` is None)."""
    if options is None:
        return record
    return fill_from_body(
        record, "recipe", FILLED, lambda wanted: body_recipe(root, options, wanted)
    )


def with_body_recipe(record: CoreRecord, found: dict[str, Any]) -> CoreRecord:
    """``record`` with the body's values (source ``body``) for the recipe fields its
    metadata leaves empty; the fields stay in their standard order."""
    return with_body_values(record, "recipe", found)
