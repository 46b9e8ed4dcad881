"""Exported page objects mirror the record's clean-up by a value's shape, and a record
field named like one of the module's own names cannot break the module."""

from __future__ import annotations

import pytest

from pagesim_scrapy.core.record.tidy import is_chrome
from pagesim_scrapy.poet.export import attribute_name
from pagesim_scrapy.poet.selectors import RUNTIME_SOURCE, clean


@pytest.mark.parametrize(
    "text",
    ["Customer reviews (7)", "3 of 13", "Share on Facebook", "<span class=money>$1</span>", "#"],
)
def test_the_reader_leaves_out_what_the_record_leaves_out(text):
    assert is_chrome("field", text)
    assert clean(text) is None


@pytest.mark.parametrize("text", ["Brio Classic Tee", "$12.50", "Size (2) XL", "Document.pdf"])
def test_the_reader_keeps_values(text):
    assert clean(f"  {text} ") == text


def test_the_runtime_needs_no_pagesim():
    assert "import pagesim" not in RUNTIME_SOURCE and "from pagesim" not in RUNTIME_SOURCE


@pytest.mark.parametrize("name", ["field", "re"])
def test_module_names_are_not_field_names(name):
    assert attribute_name(name, set()) != name
