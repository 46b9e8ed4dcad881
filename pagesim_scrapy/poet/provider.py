"""The scrapy-poet provider that injects :class:`PageSimVerdict` where it is declared.

scrapy-poet builds callback arguments and page-object inputs in its downloader middleware's
``process_response`` (priority 543), which runs after pagesim's (545): by then pagesim has
written ``request.meta["pagesim"]``, and the provider only reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scrapy.http import HtmlResponse, Request, Response
from scrapy_poet import PageObjectInputProvider

from pagesim_scrapy.poet.verdict import NOT_CLASSIFIED, PageSimVerdict

#: The meta keys of the meta contract (kept here so this layer does not import middlewares).
META_KEY = "pagesim"
DONT_META_KEY = "dont_pagesim"


def verdict_of(request: Request, response: Response) -> PageSimVerdict:
    """pagesim's verdict on ``response``, or an unclassified one saying why there is none."""
    meta = request.meta
    verdict = meta.get(META_KEY)
    if verdict is not None:
        return PageSimVerdict.from_meta(verdict)
    return PageSimVerdict.unclassified(unclassified_reason(meta, response))


def unclassified_reason(meta: dict[str, Any], response: Response) -> str:
    """Why pagesim left ``response`` without a verdict, as far as the response shows it."""
    if meta.get(DONT_META_KEY):
        return f"not classified: the request has meta[{DONT_META_KEY!r}] set"
    if not isinstance(response, HtmlResponse):
        return f"not classified: not an HTML response ({type(response).__name__})"
    if not 200 <= response.status < 300:
        return f"not classified: HTTP status {response.status}"
    return NOT_CLASSIFIED


class PageSimVerdictProvider(PageObjectInputProvider):
    """Provides :class:`PageSimVerdict` to callbacks and page objects that declare it.

    It asks for the Scrapy response, so scrapy-poet downloads the page (pagesim classifies
    the downloaded page) even when the callback itself only takes page objects.
    """

    # a set, as the base class declares it (scrapy-poet reads, never changes it)
    provided_classes: set[Callable[..., Any]] = {PageSimVerdict}  # noqa: RUF012
    name = "pagesim_verdict"  # scrapy-poet's cache keys entries by provider name

    def __call__(
        self, to_provide: set[Callable[..., Any]], request: Request, response: Response
    ) -> Sequence[Any]:
        return [verdict_of(request, response)]
