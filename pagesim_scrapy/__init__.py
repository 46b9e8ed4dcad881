"""pagesim-scrapy: crawl-time page-type classification and template induction for Scrapy.

The framework-free core lives in :mod:`pagesim_scrapy.core`; the Scrapy layer (add-on,
middlewares, pipelines, commands) imports it, never the other way round.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
