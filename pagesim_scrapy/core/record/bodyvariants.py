"""A product's variants as its body offers them: the choices of the add-to-cart form.

Many shops state no ``hasVariant`` or offer list in their structured data, yet their product
form lets the buyer choose a size or a colour (a ``<select>``, radio buttons, swatches). Each
choice is one variant ``{option, name}`` ("Size", "M"), one list for the page, so a user gets
the same shape as from structured data. Only the choices of the form that adds the product
to the cart count: the site's other selects (search category, sort order, quantity,
country, language) are chrome.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .fields import FIELDS
from .model import CoreRecord, Value

__all__ = ["body_variants", "with_body_variants"]

#: a form (or its container) that adds the product to the cart
_CART = re.compile(
    r"cart|basket|\bbag\b|warenkorb|panier|carrello|carrito|add[-_ ]?to|\badd\b", re.I
)
#: a select or input that is not a choice of the product: quantity, sort, place, language
_NOT_OPTION = re.compile(
    r"qty|quantit|sort|order|country|region|lang|currency|city|search|cat|gift|warrant|"
    r"payment|subscri|frequen",
    re.I,
)
#: a placeholder choice ("Choose an option", "-- Select --")
_PLACEHOLDER = re.compile(r"^\W*(?:select|choose|pick|please|bitte|choisi|selecione|-+)", re.I)
_SPACE = re.compile(r"\s+")
_MAX_CHOICES = 100
#: how far above the cart form its choices may be
_MAX_LEVELS = 3
_CHROME = ("header", "nav", "footer")


def _text(el: Any) -> str:
    return _SPACE.sub(" ", "".join(el.itertext())).strip()


def _first_text(el: Any) -> str:
    """A label's first text piece (shops repeat a label in a hidden copy beside it)."""
    pieces = (_SPACE.sub(" ", piece).strip() for piece in el.itertext())
    return next((piece for piece in pieces if piece), "")


def _attrs(el: Any) -> str:
    return " ".join(str(el.get(a) or "") for a in ("name", "id", "class", "aria-label"))


def _cart_forms(body: Any) -> list[Any]:
    """The forms that add the product to the cart (by their action, id or class, or a
    submit button's name)."""
    forms = []
    for form in body.iter("form"):
        marks = " ".join(str(form.get(a) or "") for a in ("action", "id", "class", "name"))
        buttons = " ".join(_attrs(b) for b in form.iter("button", "input") if _is_submit(b))
        if _CART.search(marks) or _CART.search(buttons):
            forms.append(form)
    return forms


def _has_choices(el: Any) -> bool:
    for choice in el.iter("select", "input", "button"):
        if _NOT_OPTION.search(_attrs(choice)):
            continue
        kind = str(choice.get("type") or "").lower()
        if choice.tag == "select" or kind == "radio" or "swatch" in str(choice.get("class") or ""):
            return True
    return False


def _scope(form: Any) -> Any:
    """Where the form's choices are: the form itself, else its smallest ancestor (a few
    levels up, short of the page's chrome) that holds some (shops often place the size and
    colour pickers beside the form that submits them)."""
    if _has_choices(form):
        return form
    el = form
    for _ in range(_MAX_LEVELS):
        el = el.getparent()
        if el is None or el.tag in ("body", "html") or next(el.iter(*_CHROME), None) is not None:
            return form
        if _has_choices(el):
            return el
    return form


def _is_submit(el: Any) -> bool:
    return el.tag == "button" or str(el.get("type") or "").lower() in ("submit", "image")


def _label_of(el: Any, labels: dict[str, str]) -> str:
    """An option's name: its ``<label for>``, its fieldset's legend, its aria-label, else
    its name attribute."""
    label = labels.get(str(el.get("id") or ""))
    if label:
        return label
    for parent in el.iterancestors("fieldset"):
        legend = parent.find("legend")
        if legend is not None and _first_text(legend):
            return _first_text(legend)
    return str(el.get("aria-label") or el.get("name") or "").strip()


def _select_choices(select: Any, option: str) -> list[dict[str, Any]]:
    out = []
    for choice in select.iter("option"):
        name = _text(choice)
        if not name or choice.get("value") == "" or _PLACEHOLDER.match(name):
            continue
        out.append({"option": option, "name": name})
    return out


def _is_quantity(choices: list[dict[str, Any]]) -> bool:
    return all(c["name"].isdigit() for c in choices)


def _radio_choices(form: Any, labels: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Radio buttons and swatches by their group (name attribute, or fieldset legend)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for el in form.iter("input", "button"):
        kind = str(el.get("type") or "").lower()
        swatch = "swatch" in str(el.get("class") or "").lower()
        if kind != "radio" and not swatch:
            continue
        name = labels.get(str(el.get("id") or "")) or el.get("title") or el.get("value")
        name = _SPACE.sub(" ", str(name or _text(el))).strip()
        option = _label_of(el, {}) if kind != "radio" else _group_label(el)
        if name and not _NOT_OPTION.search(option or ""):
            groups.setdefault(option, []).append({"option": option, "name": name})
    return groups


def _group_label(el: Any) -> str:
    for parent in el.iterancestors("fieldset"):
        legend = parent.find("legend")
        if legend is not None and _first_text(legend):
            return _first_text(legend)
    return str(el.get("name") or "").strip()


def body_variants(root: Any) -> list[dict[str, Any]]:
    """The choices of the page's add-to-cart form(s), as ``[{option, name}]`` in page order
    (an option with fewer than two choices is no choice); ``[]`` when there are none."""
    body = root.find("body") if root is not None else None
    if body is None:
        return []
    out: list[dict[str, Any]] = []
    for form in _cart_forms(body):
        form = _scope(form)
        labels = {
            str(label.get("for")): _first_text(label)
            for label in form.iter("label")
            if label.get("for")
        }
        for select in form.iter("select"):
            if _NOT_OPTION.search(_attrs(select)):
                continue
            option = _label_of(select, labels)
            choices = _select_choices(select, option)
            if len(choices) >= 2 and not _is_quantity(choices):
                out += choices
        for choices in _radio_choices(form, labels).values():
            if len(choices) >= 2:
                out += choices
    unique = list({(c["option"], c["name"]): c for c in out}.values())
    return unique[:_MAX_CHOICES]


def with_body_variants(record: CoreRecord, found: list[dict[str, Any]]) -> CoreRecord:
    """``record`` with the body's variants (source ``body``) where it is a product record
    whose structured data states none; the fields stay in their standard order."""
    if record.page_type != "product" or "variants" in record.fields or not found:
        return record
    fields = dict(record.fields, variants=Value(found, "body"))
    order = [spec.name for spec in FIELDS["product"]]
    ordered = {name: fields[name] for name in order if name in fields}
    ordered.update((k, v) for k, v in fields.items() if k not in ordered)
    return replace(record, fields=ordered)
