"""Wrapper drift in the core: fields gone, values of another kind, and no alarm by chance."""

from __future__ import annotations

from pagesim_scrapy.core.drift import (
    DriftBaseline,
    DriftMonitor,
    FieldCounts,
    baseline_text,
    compare_fields,
    parse_baseline,
    value_kind,
)
from pagesim_scrapy.core.drift.fields import GONE, KIND
from pagesim_scrapy.core.summary import SummaryOptions


def _counts(records: list[dict[str, object]]) -> FieldCounts:
    counts = FieldCounts()
    for record in records:
        counts.add(record)
    return counts


def test_value_kinds() -> None:
    assert value_kind("$381.76") == "number"
    assert value_kind("12,50 EUR") == "number"
    assert value_kind("In stock") == "text"
    assert value_kind("2024-05-01T10:00") == "date"
    assert value_kind("https://x.example/a.jpg") == "url"
    assert value_kind({"value": 3, "source": "json-ld"}) == "number"
    assert value_kind(["a"]) == "list"
    assert value_kind("") is None and value_kind(None) is None and value_kind([]) is None


def test_a_field_gone_and_a_field_of_another_kind() -> None:
    before = _counts([{"name": f"T {i}", "price": f"${i}.50", "sku": f"N{i}"} for i in range(20)])
    now = _counts([{"name": f"T {i}", "price": "Call us"} for i in range(20)])
    drifts = {d.name: d for d in compare_fields(before, now)}
    assert set(drifts) == {"price", "sku"}
    assert drifts["sku"].change == GONE and drifts["sku"].now == 0.0
    assert drifts["price"].change == KIND
    assert (drifts["price"].kind_before, drifts["price"].kind_now) == ("number", "text")
    assert drifts["sku"].render() == "sku: found on 100% of the pages before, 0% now"


def test_same_fields_other_values_and_few_pages_say_nothing() -> None:
    before = _counts([{"name": f"T {i}", "price": f"${i}"} for i in range(20)])
    now = _counts([{"name": f"U {i}", "price": f"${i * 3}"} for i in range(20)])
    assert compare_fields(before, now) == []
    # a field missing on a few pages now is chance, not drift
    patchy = _counts([{"name": "T", **({"price": "$1"} if i % 4 else {})} for i in range(20)])
    assert compare_fields(before, patchy) == []
    assert compare_fields(before, _counts([{"name": "T"}] * 3)) == []
    assert compare_fields(None, now) == []


def test_the_monitor_reports_once_and_the_counts_are_saved() -> None:
    baseline = DriftBaseline()
    baseline.site("shop").fields["product"] = _counts([{"price": "$1", "sku": "A"}] * 10)
    options = SummaryOptions(max_nodes=300)
    baseline = parse_baseline(baseline_text(baseline, options), options)
    assert baseline is not None and baseline.sites["shop"].fields["product"].pages == 10
    monitor = DriftMonitor(baseline)
    reports = [monitor.observe_record("shop", "product", {"price": "$2"}) for _ in range(12)]
    found = [r for r in reports if r]
    assert len(found) == 1 and [d.name for d in found[0]] == ["sku"]
    assert list(monitor.field_drifts()) == [("shop", "product")]
    assert monitor.snapshot().sites["shop"].fields["product"].pages == 12
