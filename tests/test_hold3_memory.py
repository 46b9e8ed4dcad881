"""A held page's first response lets go of its parse (issue 32: a held crawl's peak RSS).

The exception that turns a held page away keeps that response alive, through its traceback's
frames, until Python's cyclic collector runs: the parsed tree and decoded text must not ride
along. The copy kept for the replay still parses and reads the same page."""

from __future__ import annotations

from collections import Counter
from typing import Any

from scrapy import Request
from scrapy.http import HtmlResponse

from pagesim_scrapy.core.decide import HOLD, PASS, Decision
from pagesim_scrapy.core.secondlook import SecondLook
from pagesim_scrapy.middlewares.holding import HeldPages, let_go_of_parse

BODY = b"<html><body><div class='a'><p>one</p><a href='/x'>x</a></div></body></html>"


class _Stats:
    def __init__(self) -> None:
        self.values: Counter[str] = Counter()

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self.values[key] += count


def _parsed(url: str = "http://example.com/a") -> tuple[Request, HtmlResponse]:
    request = Request(url)
    response = HtmlResponse(url, body=BODY, encoding="utf-8", request=request)
    assert response.css("p::text").get() == "one"  # parsed, as the middleware leaves it
    return request, response


def _held(action: str = HOLD) -> Decision:
    return Decision(
        label=None,
        score=0.0,
        scores={},
        method=None,
        held_for_type=True,
        leader=7,
        action=action,
        record=True,
        site="example.com",
    )


def _holding() -> HeldPages:
    holding = HeldPages(_Stats())  # type: ignore[arg-type]
    holding.second_look = SecondLook[Request](None)
    return holding


def test_a_held_page_lets_go_of_its_parse_and_its_replay_parses_again() -> None:
    holding = _holding()
    request, response = _parsed()
    holding.record(request, response, _held())
    assert response._cached_selector is None
    assert response._cached_ubody is None
    kept: Any = holding._held_responses[id(request)]
    assert kept.body is response.body  # the bytes are shared, not copied
    assert kept.css("p::text").get() == "one"
    assert response.text.startswith("<html>")  # still readable, decoded again if asked


def test_a_page_that_passes_keeps_its_parse_for_the_callback() -> None:
    holding = _holding()
    request, response = _parsed()
    holding.record(request, response, _held(PASS))
    assert response._cached_selector is not None


def test_let_go_of_parse_ignores_a_response_without_text() -> None:
    from scrapy.http import Response

    let_go_of_parse(Response("http://example.com/b", body=b"\x00"))
