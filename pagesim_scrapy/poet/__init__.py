"""pagesim for web-poet and scrapy-poet page objects (``pip install pagesim-scrapy[poet]``).

- :class:`PageSimVerdict`: pagesim's verdict as a typed input of callbacks and page objects,
  injected by :class:`PageSimVerdictProvider`;
- :class:`PageSimLayoutPage`, :func:`layout_page`, :func:`layout_rule`: multi-layout page
  objects that pick the layout by pagesim's label;
- :func:`configure_poet`: the settings wiring the add-on applies when scrapy-poet is installed.

Only :func:`configure_poet` and :func:`poet_available` import without the ``poet`` extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.poet.config import PoetAddon, configure_poet, poet_available

if TYPE_CHECKING:
    from pagesim_scrapy.poet.layouts import (
        NoLayoutError,
        PageSimLayoutPage,
        layout_page,
        layout_rule,
    )
    from pagesim_scrapy.poet.provider import PageSimVerdictProvider
    from pagesim_scrapy.poet.verdict import PageSimVerdict

_LAZY = {
    "PageSimVerdict": "pagesim_scrapy.poet.verdict",
    "PageSimVerdictProvider": "pagesim_scrapy.poet.provider",
    "PageSimLayoutPage": "pagesim_scrapy.poet.layouts",
    "NoLayoutError": "pagesim_scrapy.poet.layouts",
    "layout_page": "pagesim_scrapy.poet.layouts",
    "layout_rule": "pagesim_scrapy.poet.layouts",
}

__all__ = [
    "NoLayoutError",
    "PageSimLayoutPage",
    "PageSimVerdict",
    "PageSimVerdictProvider",
    "PoetAddon",
    "configure_poet",
    "layout_page",
    "layout_rule",
    "poet_available",
]


def __getattr__(name: str) -> Any:
    """Import the web-poet parts on first use, so the add-on imports this without them."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
