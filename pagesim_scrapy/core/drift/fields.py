"""Wrapper drift: the fields a learned wrapper stopped finding, or whose values changed kind.

A redesign that keeps a page type's look close enough for its label can still break its
records: the price moved into a node the wrapper does not know, or the node it reads now holds
text where it held a number. Per (site, label), the records of the wrapper's pages are counted
per field (found or not, and the kind of its value); a field *gone* was found on most pages
before and is missing on most now, a field whose values *changed kind* held one kind before
and another now. A Fisher exact test keeps chance out, as for the looks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.drift.fisher import fisher_two_sided
from pagesim_scrapy.core.drift.options import DEFAULT_DRIFT_OPTIONS, DriftOptions

GONE = "gone"
KIND = "kind"

_NUMBER = re.compile(r"^[^\w]{0,3}\s*[-+]?\d[\d\s.,]*\s*[^\w\s]{0,3}\s*[A-Za-z]{0,3}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}|^\d{1,2}[./]\d{1,2}[./]\d{2,4}$")
_URL = re.compile(r"^(https?:)?//|^/[^\s]*$")


def value_kind(value: Any) -> str | None:
    """The kind of a record value (None: empty, the field was not found)."""
    if isinstance(value, Mapping) and "value" in value:  # a value with its source
        return value_kind(value["value"])
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return _text_kind(str(value).strip())


def _text_kind(text: str) -> str | None:
    if not text:
        return None
    if _DATE.match(text):
        return "date"
    if _URL.match(text):
        return "url"
    if _NUMBER.match(text):
        return "number"
    return "text"


@dataclass
class FieldCounts:
    """How often each field of a label's records was found, and the kinds of its values."""

    pages: int = 0
    found: Counter[str] = field(default_factory=Counter)
    kinds: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one page's record (its keys starting with ``pagesim`` are not fields)."""
        self.pages += 1
        for name, value in record.items():
            kind = value_kind(value)
            if kind is None or name.startswith("pagesim"):
                continue
            self.found[name] += 1
            self.kinds.setdefault(name, Counter())[kind] += 1

    def share(self, name: str) -> float:
        return self.found[name] / self.pages if self.pages else 0.0

    def main_kind(self, name: str) -> tuple[str, int] | None:
        kinds = self.kinds.get(name)
        return kinds.most_common(1)[0] if kinds else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "found": dict(self.found),
            "kinds": {name: dict(kinds) for name, kinds in self.kinds.items()},
        }

    @classmethod
    def from_dict(cls, saved: Mapping[str, Any]) -> FieldCounts:
        counts = cls(int(saved.get("pages", 0)))
        counts.found.update({str(k): int(v) for k, v in dict(saved.get("found", {})).items()})
        for name, kinds in dict(saved.get("kinds", {})).items():
            counts.kinds[str(name)] = Counter({str(k): int(v) for k, v in dict(kinds).items()})
        return counts


@dataclass
class FieldDrift:
    """One field of a wrapper that stopped being found, or whose values changed kind."""

    name: str
    change: str  # GONE or KIND
    before: float  # share of the baseline pages with the field (of its kind, for KIND)
    now: float
    p_value: float
    kind_before: str = ""
    kind_now: str = ""

    def render(self) -> str:
        if self.change == GONE:
            return (
                f"{self.name}: found on {self.before:.0%} of the pages before, {self.now:.0%} now"
            )
        return (
            f"{self.name}: {self.kind_before} before ({self.before:.0%} of its values), "
            f"{self.kind_now} now"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "field": self.name,
            "change": self.change,
            "before": round(self.before, 3),
            "now": round(self.now, 3),
            "p_value": float(f"{self.p_value:.3g}"),
            "kind_before": self.kind_before,
            "kind_now": self.kind_now,
        }


def compare_fields(
    before: FieldCounts | None, now: FieldCounts, options: DriftOptions = DEFAULT_DRIFT_OPTIONS
) -> list[FieldDrift]:
    """The fields of ``before`` gone or of another kind in ``now`` (none when either side has
    fewer than ``min_pages`` records: no verdict)."""
    if before is None or min(before.pages, now.pages) < options.min_pages:
        return []
    drifts = [_gone(name, before, now, options) for name in before.found]
    drifts += [_new_kind(name, before, now, options) for name in before.found]
    found = [d for d in drifts if d is not None]
    return sorted(found, key=lambda d: (d.p_value, d.name, d.change))


def _gone(
    name: str, before: FieldCounts, now: FieldCounts, options: DriftOptions
) -> FieldDrift | None:
    """Found on most pages before (``look_share``), and missing on most now."""
    was, is_now = before.share(name), now.share(name)
    if was < options.look_share or was - is_now < options.min_shift or is_now >= 0.5:
        return None
    p = fisher_two_sided(before.found[name], before.pages, now.found[name], now.pages)
    return FieldDrift(name, GONE, was, is_now, p) if p <= options.max_p else None


def _new_kind(
    name: str, before: FieldCounts, now: FieldCounts, options: DriftOptions
) -> FieldDrift | None:
    """Mostly one kind before, mostly another now (among the pages that have it)."""
    old, new = before.main_kind(name), now.main_kind(name)
    if old is None or new is None or old[0] == new[0]:
        return None
    n_before, n_now = before.found[name], now.found[name]
    if min(n_before, n_now) < options.min_pages:
        return None
    was = old[1] / n_before
    is_now = now.kinds[name][old[0]] / n_now
    if was < options.look_share or was - is_now < options.min_shift:
        return None
    p = fisher_two_sided(old[1], n_before, now.kinds[name][old[0]], n_now)
    if p > options.max_p:
        return None
    return FieldDrift(name, KIND, was, is_now, p, kind_before=old[0], kind_now=new[0])
