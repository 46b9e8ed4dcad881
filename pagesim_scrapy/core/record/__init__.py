"""The core record of a page: standard names per page type, each value with its source.

Framework-free: reads a page's structured data (JSON-LD, microdata, RDFa, OpenGraph, twitter
cards, meta tags) and maps it to schema.org's names for the page type (product, article,
thread, recipe, event, or a plain page). See ``docs/records.md`` for the contract.
"""

from __future__ import annotations

from .build import build_record, guess_page_type, read_record
from .fields import FIELDS, PAGE_TYPES, FieldSpec
from .item import ItemRecord, item_record
from .model import SOURCES, CoreRecord, Value
from .options import RecordOptions
from .read import StructuredData, read_structured

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
