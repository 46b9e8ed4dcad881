"""Template induction and record extraction (seed 003, with DEPTA-style repeating regions).

Learn a page type's template from a few of its pages — which nodes are fixed, which are
optional, which hold data — and extract records from every page of that type, with no
hand-written selectors.
"""

from __future__ import annotations

from pagesim_scrapy.core.induce.compiled import FieldInfo
from pagesim_scrapy.core.induce.dom import PageParseError, parse_html
from pagesim_scrapy.core.induce.extract import Extraction
from pagesim_scrapy.core.induce.wrapper import (
    DEFAULT_LAMBDA,
    DEFAULT_MIN_FIT,
    FORMAT_VERSION,
    Wrapper,
    WrapperError,
    induce,
)

__all__ = [
    "DEFAULT_LAMBDA",
    "DEFAULT_MIN_FIT",
    "FORMAT_VERSION",
    "Extraction",
    "FieldInfo",
    "PageParseError",
    "Wrapper",
    "WrapperError",
    "induce",
    "parse_html",
]
