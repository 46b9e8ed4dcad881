"""pagesim-scrapy: crawl-time page-type classification and template induction for Scrapy.

The framework-free core lives in :mod:`pagesim_scrapy.core`; the Scrapy layer (add-on,
middlewares, pipelines, commands) imports it, never the other way round. Names below are
imported on first use, so ``import pagesim_scrapy`` loads neither Scrapy nor lxml.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pagesim_scrapy.core.lazy import lazy_exports

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Addon": "pagesim_scrapy.addon",
    "HeldForSecondLook": "pagesim_scrapy.middlewares",
    "PageItem": "pagesim_scrapy.items",
    "PageSimConfig": "pagesim_scrapy.settings",
    "PageSimConfigError": "pagesim_scrapy.settings",
    "PageSummary": "pagesim_scrapy.core.summary",
    "PageParseError": "pagesim_scrapy.core.summary",
    "summarize": "pagesim_scrapy.core.summary",
    "summarize_tree": "pagesim_scrapy.core.summary",
    "parse_html": "pagesim_scrapy.core.summary",
    "similarity": "pagesim_scrapy.core.similarity",
    "METHODS": "pagesim_scrapy.core.similarity",
    "TemplateClassifier": "pagesim_scrapy.core.classify",
    "Verdict": "pagesim_scrapy.core.classify",
}

if TYPE_CHECKING:
    from pagesim_scrapy.addon import Addon as Addon
    from pagesim_scrapy.core.classify import TemplateClassifier as TemplateClassifier
    from pagesim_scrapy.core.classify import Verdict as Verdict
    from pagesim_scrapy.core.similarity import METHODS as METHODS
    from pagesim_scrapy.core.similarity import similarity as similarity
    from pagesim_scrapy.core.summary import PageParseError as PageParseError
    from pagesim_scrapy.core.summary import PageSummary as PageSummary
    from pagesim_scrapy.core.summary import parse_html as parse_html
    from pagesim_scrapy.core.summary import summarize as summarize
    from pagesim_scrapy.core.summary import summarize_tree as summarize_tree
    from pagesim_scrapy.items import PageItem as PageItem
    from pagesim_scrapy.middlewares import HeldForSecondLook as HeldForSecondLook
    from pagesim_scrapy.settings import PageSimConfig as PageSimConfig
    from pagesim_scrapy.settings import PageSimConfigError as PageSimConfigError


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = ["__version__", *_EXPORTS]
