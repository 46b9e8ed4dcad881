"""Moved: the HTML reports live in :mod:`pagesim_scrapy.reports` (report writing is not core).

This module keeps the old import path working; it loads the reports only when a name is used,
so the core itself never imports them.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = ("pagesim_scrapy.reports", "pagesim_scrapy.reports.clustering")


def __getattr__(name: str) -> Any:
    for module_name in _MODULES:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
