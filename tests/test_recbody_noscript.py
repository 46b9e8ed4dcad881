"""A page that builds its content by script keeps the whole of it in a ``<noscript>``
fallback: the body naming reads it there, and nothing else a ``<noscript>`` holds."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import body_fields

STEPS = "".join(f"<li>Step {n}: stir the pot for {n} minutes</li>" for n in range(1, 11))
RECIPE = f"<div class='recipe'><h1>Kale Salad</h1><ol>{STEPS}</ol></div>"


def _values(html: str) -> set[str]:
    return set(body_fields(lxml.html.fromstring(html), "https://x.example/r/").values())


def test_a_fallback_holding_the_content_is_read():
    html = f"<html><body><div id='app'>Loading</div><noscript>{RECIPE}</noscript></body></html>"
    values = _values(html)
    assert "Kale Salad" in values
    assert "Step 3: stir the pot for 3 minutes" in values


def test_a_tracking_pixel_or_a_lazy_image_copy_is_not_read():
    html = (
        "<html><body><h1>Kale Salad</h1>"
        "<noscript><img src='https://t.example/pixel.gif'></noscript>"
        "<noscript><img src='/img/kale.jpg'><p>Enable JavaScript</p></noscript>"
        "</body></html>"
    )
    values = _values(html)
    assert "https://t.example/pixel.gif" not in values
    assert "Enable JavaScript" not in values


def test_a_fallback_repeating_the_visible_body_is_not_read_twice():
    html = f"<html><body>{RECIPE}<noscript>{RECIPE}</noscript></body></html>"
    keys = body_fields(lxml.html.fromstring(html), "https://x.example/r/")
    assert not any("noscript" in key for key in keys)
