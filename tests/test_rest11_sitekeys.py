"""The middleware's remembered sites (``SiteKeys``) are ``site_key``'s, URL by URL."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim_scrapy.core.site import site_key
from pagesim_scrapy.middlewares.sitekeys import SiteKeys

URLS = [
    "http://127.0.0.1:8080/page/1",
    "http://127.0.0.1:8080/page/2?x=1#f",
    "https://www.example.com/a",
    "https://WWW.Example.COM:443/b",
    "https://example.com:8443?q",
    "http://example.com#frag",
    "http://user:pw@example.com:81/x",
    "http://[::1]:8000/x",
    "http://example.com:99999/x",
    "http://example.com:abc/x",
    "http://[/x",
    "http://[/x",
    "file:///page.html",
    "  http://example.com/leading-blank",
    "http://exa\tmple.com/tab",
    "data:text/html,<p>",
    "example.com/no-scheme",
    "",
]


def outcome(function, url: str) -> object:
    """The site, or the type of the error (an invalid URL raises in both)."""
    try:
        return function(url)
    except ValueError as exc:
        return type(exc)


def test_same_as_site_key_in_any_order():
    keys = SiteKeys()
    for url in URLS + URLS[::-1]:
        assert outcome(keys, url) == outcome(site_key, url), url


def test_forgets_past_its_limit():
    keys = SiteKeys(limit=2)
    for number in range(5):
        url = f"http://host{number}.example/x"
        assert keys(url) == site_key(url)
        assert len(keys._known) <= 2


part = st.text(alphabet=st.sampled_from(list("aZ09.-_:@[]/?#%\t w")), max_size=12)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["http", "https", "ftp", "HTTP", "x+y"]), part, part, part)
def test_generated_urls(scheme: str, host: str, path: str, other: str):
    keys = SiteKeys()
    for url in (f"{scheme}://{host}{path}", f"{scheme}://{host}/{other}", f"{scheme}://{host}"):
        assert outcome(keys, url) == outcome(site_key, url), url
