"""The typed result: a page's core record, each value with the source it was read from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["SOURCES", "CoreRecord", "Value"]

#: Where a value may come from, most trusted first (the order in which sources are asked).
SOURCES = ("json-ld", "microdata", "rdfa", "opengraph", "twitter", "meta")


@dataclass(frozen=True)
class Value:
    """One core value and the structured-data syntax it came from (one of `SOURCES`)."""

    value: Any
    source: str


@dataclass(frozen=True)
class CoreRecord:
    """A page's core record: standard names for its page type, then labelled extras.

    ``fields`` is in the page type's field order; ``extra`` holds values the page labels itself
    (``twitter:labelN``) that have no standard name, sorted by name.
    """

    page_type: str
    fields: dict[str, Value] = field(default_factory=dict)
    extra: dict[str, Value] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.fields or self.extra)

    def get(self, name: str, default: Any = None) -> Any:
        """The plain value of a core field (no source), or ``default``."""
        found = self.fields.get(name)
        return default if found is None else found.value

    def as_dict(self) -> dict[str, Any]:
        """``{name: value}`` for the core fields, plus ``sources`` (and ``extra`` when any)."""
        out: dict[str, Any] = {name: v.value for name, v in self.fields.items()}
        sources = {name: v.source for name, v in self.fields.items()}
        if self.extra:
            out["extra"] = {name: v.value for name, v in self.extra.items()}
            sources.update({f"extra.{name}": v.source for name, v in self.extra.items()})
        out["sources"] = sources
        return out
