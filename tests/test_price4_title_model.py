"""The model number a product's title ends with, where a label row of words the reader does
not know gives the same code (``core/record/bodyproduct.py``)."""

from __future__ import annotations

import gzip
import json

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import BodyProductOptions, body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data


def _found(body: str, options: BodyProductOptions | None = None) -> dict[str, str]:
    return body_product(read_structured(f"<html><body>{body}</body></html>").root, options)


def test_a_title_code_a_label_row_repeats_is_the_model():
    page = "<h1>iMac Pro 27 (MQ2Y2SL/A)</h1><p>Produktové číslo: MQ2Y2SL/A</p>"
    assert _found(page)["mpn"] == "MQ2Y2SL/A"
    page = "<h1>Redukcia NGFF na PCI-E AG-M22PCIE4</h1><table><tr><td>Číslo</td>"
    page += "<td>AG-M22PCIE4</td></tr></table>"
    assert _found(page)["mpn"] == "AG-M22PCIE4"
    assert "mpn" not in _found(page, BodyProductOptions(title_model=False))


def test_a_title_code_alone_or_a_quantity_is_no_model():
    assert "mpn" not in _found("<h1>Kettle KX-2000</h1><p>Nice kettle</p>")
    assert "mpn" not in _found("<h1>Phone 12 128GB</h1><p>Storage: 128GB</p>")
    # a row whose label the words know names its own field, not the model
    found = _found("<h1>Kettle KX2000</h1><p>SKU: KX2000</p>")
    assert found["sku"] == "KX2000" and "mpn" not in found


def test_a_real_page_whose_model_only_its_title_and_a_row_show():
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truths = json.loads((data / "ground-truth.json").read_text())
    page = next(k for k in truths if k.startswith("453f5cc079af"))
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truths[page]["url"], page_type="product")
    assert record.fields["mpn"].source == "body"
    assert record.get("mpn") == "MQ2Y2SL/A"
