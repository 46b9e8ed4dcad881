"""Values a page's body gives, added to its core record only where the metadata left the field
empty: the body readers (products, recipes) share this step, so a value the metadata states is
never replaced and the fields keep their standard order."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from .fields import FIELDS
from .model import CoreRecord, Value
from .posts import BODY


def with_body_values(record: CoreRecord, page_type: str, found: Mapping[str, Any]) -> CoreRecord:
    """``record`` with the body's values (source ``body``) for the fields of ``page_type`` its
    metadata leaves empty; the same record for another page type."""
    if record.page_type != page_type:
        return record
    added = {k: Value(v, BODY) for k, v in found.items() if k not in record.fields}
    if not added:
        return record
    fields = {**record.fields, **added}
    order = [spec.name for spec in FIELDS[page_type]]
    ordered = {name: fields[name] for name in order if name in fields}
    ordered.update((k, v) for k, v in fields.items() if k not in ordered)
    return replace(record, fields=ordered)


def fill_from_body(
    record: CoreRecord,
    page_type: str,
    filled: frozenset[str],
    read: Callable[[frozenset[str]], Mapping[str, Any]],
) -> CoreRecord:
    """``record`` with what ``read`` finds in the body for the fields of ``filled`` its
    metadata leaves empty; the body is not read when it has nothing to add."""
    wanted = filled - record.fields.keys()
    if record.page_type != page_type or not wanted:
        return record
    return with_body_values(record, page_type, read(wanted))
