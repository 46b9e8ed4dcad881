"""The site of a response's URL, remembered per origin.

A crawl meets a few sites and many pages of each; splitting every URL again to find its host
(:func:`~pagesim_scrapy.core.site.site_key`) costs more than one look-up by the URL's origin.
"""

from __future__ import annotations

import re

from pagesim_scrapy.core.site import site_key

#: ``scheme://authority``: where ``urlsplit``'s netloc ends (the first ``/``, ``?`` or ``#``).
#: The site of a URL depends on this part alone.
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


class SiteKeys:
    """``site_key(url)``, remembered for up to ``limit`` origins (then forgotten at once: a
    crawl over more sites only splits their URLs again)."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._known: dict[str, str] = {}

    def __call__(self, url: str) -> str:
        match = _ORIGIN.match(url)
        if match is None:  # no scheme and authority (or leading blanks): as site_key reads it
            return site_key(url)
        origin = match.group()
        site = self._known.get(origin)
        if site is None:
            if len(self._known) >= self.limit:
                self._known.clear()
            site = self._known[origin] = site_key(url)
        return site
