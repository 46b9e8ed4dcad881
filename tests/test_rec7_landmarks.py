"""The landmarks' texts folded inline are the texts :func:`_norm` folds, long ones included."""

from __future__ import annotations

from pagesim_scrapy.core.induce.dom import forget_page
from pagesim_scrapy.core.record.landmarks import _norm, _whole_texts, landmark_texts
from pagesim_scrapy.core.record.read import as_utf8, parse_html


def _reference(html: str) -> set[str]:
    """Every folded text node and short whole text of the page's header, as _norm gives."""
    root = parse_html(as_utf8(html))
    header = next(root.iter("header"))
    texts = set()
    for el, whole in _whole_texts(header):
        texts.add(_norm(el.text))
        if el is not header:
            texts.add(_norm(el.tail))
        if len(_norm(whole)) <= 300:
            texts.add(_norm(whole))
    texts.discard("")
    return texts


def test_long_texts_that_casefolding_lengthens_are_left_out_as_before() -> None:
    # "ß" folds to "ss": 299 characters before folding, 300 or more after
    for word in ("a" * 298 + "ß", "a" * 297 + "ß", "A  " * 120, "Ünïcode " * 40):
        html = f"<html><body><header><p>{word}</p><p>Cart</p></header><main>x</main></body></html>"
        forget_page()
        root = parse_html(as_utf8(html))
        found = landmark_texts(root)
        assert set(found.shown) == _reference(html)
        forget_page()
