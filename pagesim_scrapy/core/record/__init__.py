"""The core record of a page: standard names per page type, each value with its source.

Framework-free: reads a page's structured data (JSON-LD, microdata, RDFa, OpenGraph, twitter
cards, meta tags) and maps it to schema.org's names for the page type (product, article,
thread, recipe, event, or a plain page). See ``docs/records.md`` for the contract.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pagesim_scrapy.core.lazy import lazy_exports

#: public name -> module that defines it (imported on first use, so that importing one
#: submodule does not load the heavy dependencies of the others)
_EXPORTS: dict[str, str] = {
    "CoreRecord": "pagesim_scrapy.core.record.model",
    "FIELDS": "pagesim_scrapy.core.record.fields",
    "FieldSpec": "pagesim_scrapy.core.record.fields",
    "ItemRecord": "pagesim_scrapy.core.record.item",
    "PAGE_TYPES": "pagesim_scrapy.core.record.fields",
    "RecordOptions": "pagesim_scrapy.core.record.options",
    "SOURCES": "pagesim_scrapy.core.record.model",
    "StructuredData": "pagesim_scrapy.core.record.read",
    "Value": "pagesim_scrapy.core.record.model",
    "build_record": "pagesim_scrapy.core.record.build",
    "guess_page_type": "pagesim_scrapy.core.record.build",
    "item_record": "pagesim_scrapy.core.record.item",
    "read_record": "pagesim_scrapy.core.record.build",
    "read_structured": "pagesim_scrapy.core.record.read",
}

if TYPE_CHECKING:
    from pagesim_scrapy.core.record.build import build_record as build_record
    from pagesim_scrapy.core.record.build import guess_page_type as guess_page_type
    from pagesim_scrapy.core.record.build import read_record as read_record
    from pagesim_scrapy.core.record.fields import FIELDS as FIELDS
    from pagesim_scrapy.core.record.fields import PAGE_TYPES as PAGE_TYPES
    from pagesim_scrapy.core.record.fields import FieldSpec as FieldSpec
    from pagesim_scrapy.core.record.item import ItemRecord as ItemRecord
    from pagesim_scrapy.core.record.item import item_record as item_record
    from pagesim_scrapy.core.record.model import SOURCES as SOURCES
    from pagesim_scrapy.core.record.model import CoreRecord as CoreRecord
    from pagesim_scrapy.core.record.model import Value as Value
    from pagesim_scrapy.core.record.options import RecordOptions as RecordOptions
    from pagesim_scrapy.core.record.read import StructuredData as StructuredData
    from pagesim_scrapy.core.record.read import read_structured as read_structured


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "FIELDS",
    "PAGE_TYPES",
    "SOURCES",
    "CoreRecord",
    "FieldSpec",
    "ItemRecord",
    "RecordOptions",
    "StructuredData",
    "Value",
    "build_record",
    "guess_page_type",
    "item_record",
    "read_record",
    "read_structured",
]
