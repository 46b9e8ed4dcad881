"""Multi-layout page objects that pick their layout by pagesim's label, not by URL.

web-poet's rules choose a page object by URL and leave "which layout is this page?" to
hand-written code in a multi-layout page object. pagesim answers exactly that question per
site, so the layout page object here only looks the label up: a mapping
``{label: PageObjectClass}`` with ``None`` as the default for pages of no label.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

import attrs
from scrapy.utils.misc import load_object
from url_matcher import Patterns
from web_poet import ApplyRule, ItemPage
from web_poet.pages import is_injectable
from web_poet.utils import ensure_awaitable

from pagesim_scrapy.poet.verdict import PageSimVerdict

ItemT = TypeVar("ItemT")

#: A layout mapping as written by hand or in settings: ``{label or None: class or import path}``.
LayoutSpec = Mapping[Any, "type[Any] | str"]


class NoLayoutError(LookupError):
    """The page's label has no layout page object, and there is no default for it."""

    def __init__(self, verdict: PageSimVerdict, labels: list[str]) -> None:
        self.verdict = verdict
        super().__init__(
            f"no layout page object for label {verdict.label!r} ({verdict.reason}); "
            f"layouts are given for {labels} and there is no default (the None key)"
        )


@attrs.define
class PageSimLayoutPage(ItemPage[ItemT], Generic[ItemT]):
    """A multi-layout page object: ``to_item()`` is that of the layout of the page's label.

    Subclasses declare each layout page object as an attribute (so scrapy-poet builds it with
    its inputs) and map labels to their classes in ``layouts``; the ``None`` key is the
    layout of pages with no label, or with a label not in the mapping.
    """

    verdict: PageSimVerdict
    layouts: ClassVar[Mapping[str | None, type[Any]]] = {}

    def layout_class(self) -> type[Any]:
        """The layout page object class for this page's label (NoLayoutError if none)."""
        layouts = self.layouts
        label = self.verdict.label
        if label in layouts:
            return layouts[label]
        if None in layouts:
            return layouts[None]
        raise NoLayoutError(self.verdict, sorted(str(key) for key in layouts))

    def get_layout(self) -> Any:
        """The layout page object instance this page delegates to."""
        wanted = self.layout_class()
        candidates = [getattr(self, field.name) for field in attrs.fields(type(self))]
        for value in candidates:
            if type(value) is wanted:
                return value
        for value in candidates:
            if isinstance(value, wanted):
                return value
        raise TypeError(
            f"{type(self).__name__} maps a label to {wanted.__name__} but has no attribute "
            "of that type: declare one so that scrapy-poet builds it"
        )

    async def to_item(self) -> ItemT:
        item: ItemT = await ensure_awaitable(self.get_layout().to_item())
        return item


def load_layouts(
    layouts: LayoutSpec, default: type[Any] | str | None = None
) -> dict[str | None, type[Any]]:
    """``layouts`` with import paths loaded and ``default`` under the None key, checked."""
    specs: dict[str | None, type[Any] | str] = dict(layouts)
    if default is not None:
        specs[None] = default
    loaded: dict[str | None, type[Any]] = {}
    for label, spec in specs.items():
        cls = load_object(spec) if isinstance(spec, str) else spec
        if not (isinstance(cls, type) and is_injectable(cls)):
            raise TypeError(
                f"layout for label {label!r} must be a web-poet page object class "
                f"(an ItemPage subclass), not {cls!r}"
            )
        loaded[label] = cls
    return loaded


def _attribute_name(label: str | None, taken: set[str]) -> str:
    base = re.sub(r"\W+", "_", f"layout_{label or 'default'}").lower()
    name = base
    while keyword.iskeyword(name) or name in taken:
        name += "_"
    return name


def layout_page(
    layouts: LayoutSpec,
    *,
    default: type[Any] | str | None = None,
    base: type[PageSimLayoutPage[Any]] = PageSimLayoutPage,
    name: str = "PageSimLayouts",
) -> type[PageSimLayoutPage[Any]]:
    """A :class:`PageSimLayoutPage` subclass for ``layouts``, with one attribute per layout.

    Writing the attributes out by hand is the same thing; this builds them where the mapping
    is only known at run time (settings).
    """
    loaded = load_layouts(layouts, default)
    attributes: dict[str, Any] = {}
    taken = {field.name for field in attrs.fields(base)}
    for label, cls in loaded.items():
        if cls in (field.type for field in attributes.values()):
            continue  # one attribute per class: two labels may share a layout
        attribute = _attribute_name(label, taken)
        taken.add(attribute)
        attributes[attribute] = attrs.field(type=cls)
    page: type[PageSimLayoutPage[Any]] = attrs.make_class(name, attributes, bases=(base,))
    page.layouts = loaded
    return page


def layout_rule(
    layouts: LayoutSpec,
    *,
    default: type[Any] | str | None = None,
    for_patterns: str = "",
    instead_of: type[PageSimLayoutPage[Any]] = PageSimLayoutPage,
    priority: int = 500,
) -> ApplyRule:
    """A web-poet rule: on ``for_patterns`` (every URL by default), use the label's layout.

    A callback or page object that declares ``instead_of`` (by default
    :class:`PageSimLayoutPage`) then gets a page object that delegates to the layout of the
    page's label. Put the rule in ``SCRAPY_POET_RULES``, or let :func:`configure_poet` do it
    from ``PAGESIM_POET_LAYOUTS``.
    """
    page = layout_page(layouts, default=default, base=instead_of)
    patterns = Patterns([for_patterns] if for_patterns else [], priority=priority)
    return ApplyRule(patterns, use=page, instead_of=instead_of)
