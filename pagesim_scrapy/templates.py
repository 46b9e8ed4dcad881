"""Load the template pages of ``PAGESIM_TEMPLATES`` when the spider opens.

URLs are downloaded through the running crawl (``crawler.engine.download_async``), so the
project's headers, user agent, proxies, cookies, authentication and retries apply to them as
to any page, except robots.txt: the user named each template page, so it is fetched even when
``ROBOTSTXT_OBEY`` is on (the crawl's own pages still obey robots.txt). Local files, folders
and ``file://`` URLs are read from disk; a relative path is relative to the project root (the
folder of ``scrapy.cfg``) when there is one, else to the current directory. Every template is
summarised from an :class:`~scrapy.http.HtmlResponse` selector, exactly like crawled pages, so
both sides of a comparison come from the same parser and encoding detection.

Any template that cannot be fetched, read or parsed raises :class:`TemplateError`: a crawl that
silently classified every page as unmatched would be worse than no crawl.

A folder of thousands of saved pages must not freeze the start: at most ``max_per_label``
templates of a label are loaded (an evenly spaced, deterministic sample of the rest, said in one
WARNING), a progress line is logged every few seconds, and in a crawl the loader hands control
back to the reactor between pages, so Scrapy's log lines and a Ctrl-C still work.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pagesim_scrapy.core.pageio import PageReadError, iter_page_paths, read_page_bytes
from pagesim_scrapy.core.summary import (
    DEFAULT_OPTIONS,
    PageParseError,
    PageSummary,
    SummaryOptions,
    summarize_tree,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Request meta key marking a template download (its value is the label).
TEMPLATE_META_KEY = "pagesim_template"

#: Seconds between two progress lines while templates load.
PROGRESS_SECONDS = 5.0


class TemplateLoadStopped(Exception):
    """The crawl was asked to stop (Ctrl-C, ``crawler.stop()``) while templates were loading."""


class TemplateError(Exception):
    """A template page could not be fetched, read or parsed."""

    def __init__(self, label: str, source: str, why: str) -> None:
        super().__init__(f"template {source!r} of label {label!r}: {why}")
        self.label = label
        self.source = source
        self.why = why


@dataclass(frozen=True)
class TemplateSource:
    """One entry of PAGESIM_TEMPLATES, resolved: a URL to download or a file to read."""

    label: str
    source: str  # as the user wrote it
    url: str | None = None  # set for sources downloaded through the crawl
    path: Path | None = None  # set for sources read from disk


def project_root() -> Path:
    """The folder of the closest ``scrapy.cfg`` (searching up from the current directory), or
    the current directory outside a project: what relative template paths are relative to."""
    from scrapy.utils.conf import closest_scrapy_cfg

    cfg = closest_scrapy_cfg()
    return Path(cfg).parent if cfg else Path.cwd()


def resolve_sources(
    templates: Mapping[str, Sequence[str]], base_dir: Path | None = None
) -> list[TemplateSource]:
    """Turn ``{label: [source, ...]}`` into downloadable URLs and existing files.

    Folders expand to the saved pages inside them (``.html``, ``.htm``, ``.html.gz``...).
    Relative paths are taken relative to ``base_dir`` (default: the current directory).
    Raises :class:`TemplateError` for a missing file or an empty folder.
    """
    from w3lib.url import file_uri_to_path

    resolved: list[TemplateSource] = []
    for label, sources in templates.items():
        for source in sources:
            scheme = urlsplit(source).scheme.lower()
            if scheme == "file":
                location = Path(file_uri_to_path(source))
            elif "://" in source or scheme in ("data", "about"):
                resolved.append(TemplateSource(label, source, url=source))
                continue
            else:
                location = Path(source).expanduser()
                if base_dir is not None and not location.is_absolute():
                    location = base_dir / location
            try:
                paths = list(iter_page_paths([location]))
            except PageReadError as exc:
                raise TemplateError(label, source, str(exc)) from None
            if not paths:
                raise TemplateError(label, source, f"no saved pages in folder {location}")
            resolved.extend(TemplateSource(label, source, path=path) for path in paths)
    return resolved


def summarize_html(
    body: bytes,
    url: str,
    options: SummaryOptions = DEFAULT_OPTIONS,
    *,
    encoding: str | None = None,
    headers: Any = None,
) -> PageSummary:
    """Summarise a page the way the middleware summarises a crawled HTML response.

    Raises :class:`~pagesim_scrapy.core.summary.PageParseError` for an empty or element-less
    page.
    """
    from scrapy.http import HtmlResponse

    if not body or body.isspace():
        raise PageParseError("empty document")
    response = HtmlResponse(url=url, body=body, encoding=encoding, headers=headers)
    root = response.selector.root
    if root is None:
        raise PageParseError("no HTML element found")
    return summarize_tree(root, options, source=url)


def summarize_template_response(
    response: Response, label: str, source: str, options: SummaryOptions = DEFAULT_OPTIONS
) -> PageSummary:
    """Check a downloaded template response and summarise it, or raise TemplateError."""
    from scrapy.http import TextResponse

    if not 200 <= response.status < 300:
        raise TemplateError(label, source, f"HTTP status {response.status} ({response.url})")
    if not isinstance(response, TextResponse):
        content_type = (response.headers.get(b"Content-Type") or b"none").decode("latin-1")
        raise TemplateError(
            label, source, f"not an HTML page (Content-Type: {content_type}, {response.url})"
        )
    try:
        return summarize_html(response.body, response.url, options, encoding=response.encoding)
    except PageParseError as exc:
        raise TemplateError(label, source, f"{exc} ({response.url})") from None


def load_file_template(
    entry: TemplateSource, options: SummaryOptions = DEFAULT_OPTIONS
) -> PageSummary:
    assert entry.path is not None
    try:
        body = read_page_bytes(entry.path)
        return summarize_html(body, entry.path.resolve().as_uri(), options)
    except (PageReadError, PageParseError) as exc:
        raise TemplateError(entry.label, entry.source, str(exc)) from None


async def download_template(
    crawler: Crawler, entry: TemplateSource, options: SummaryOptions = DEFAULT_OPTIONS
) -> PageSummary:
    """Fetch one template through the crawl's downloader.

    Every downloader middleware applies, but the request skips robots.txt (the user named this
    page) and a failed download is reported once, by the caller, as the crawl's start-up error
    (retries still happen; the retry middleware's "Gave up retrying" line drops to INFO).
    """
    from scrapy import Request
    from scrapy.http.request import NO_CALLBACK

    assert entry.url is not None
    try:
        request = Request(
            entry.url,
            callback=NO_CALLBACK,
            dont_filter=True,
            meta={
                "dont_pagesim": True,
                TEMPLATE_META_KEY: entry.label,
                "allow_offsite": True,
                "dont_obey_robotstxt": True,
                "give_up_log_level": logging.INFO,
            },
        )
    except ValueError as exc:  # malformed URL
        raise TemplateError(entry.label, entry.source, str(exc)) from None
    try:
        response = await crawler.engine.download_async(request)
    except Exception as exc:  # any download failure (refused, DNS, timeout, ignored...)
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise TemplateError(entry.label, entry.source, f"download failed: {why}") from None
    return summarize_template_response(response, entry.label, entry.source, options)


def cap_sources(
    sources: Sequence[TemplateSource], max_per_label: int
) -> tuple[list[TemplateSource], dict[str, tuple[int, int]]]:
    """At most ``max_per_label`` sources per label (0: all), and ``{label: (kept, given)}`` for
    the labels cut down.

    The kept ones are evenly spaced over the label's sources in their order (the same ones on
    every run), so a folder's sample spans the whole folder rather than its first files.
    """
    by_label: dict[str, list[TemplateSource]] = {}
    for entry in sources:
        by_label.setdefault(entry.label, []).append(entry)
    kept: set[int] = set()
    capped: dict[str, tuple[int, int]] = {}
    for label, entries in by_label.items():
        n = len(entries)
        if max_per_label and n > max_per_label:
            chosen = [entries[i * n // max_per_label] for i in range(max_per_label)]
            capped[label] = (max_per_label, n)
        else:
            chosen = entries
        kept.update(id(entry) for entry in chosen)
    return [entry for entry in sources if id(entry) in kept], capped


def _warn_capped(capped: Mapping[str, tuple[int, int]], max_per_label: int) -> None:
    if not capped:
        return
    logger.warning(
        "pagesim: more than %d templates for %s: an evenly spaced sample of %d is used "
        "(PAGESIM_MAX_TEMPLATES_PER_LABEL; more templates slow the start and every page and "
        "rarely help)",
        max_per_label,
        ", ".join(f"label {label!r} ({given} given)" for label, (_, given) in capped.items()),
        max_per_label,
    )


class _Progress:
    """An INFO line every ``every`` seconds while many templates load."""

    def __init__(self, total: int, every: float) -> None:
        self.total = total
        self.every = every
        self.done = 0
        self._next = time.monotonic() + every

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if now >= self._next and self.done < self.total:
            self._next = now + self.every
            logger.info("pagesim: loading templates: %d of %d loaded", self.done, self.total)


async def _yield_to_reactor(crawler: Crawler) -> None:
    """Let the reactor run (signals, log lines); raise TemplateLoadStopped if the crawl is
    stopping."""
    from scrapy.utils.asyncio import sleep

    await sleep(0)
    if not crawler.crawling:
        raise TemplateLoadStopped("the crawl is stopping")


async def _load_one(
    entry: TemplateSource, crawler: Crawler | None, options: SummaryOptions
) -> PageSummary:
    if entry.path is not None:
        return load_file_template(entry, options)
    if crawler is None:
        raise TemplateError(
            entry.label, entry.source, "URL templates need a running crawl to fetch them"
        )
    return await download_template(crawler, entry, options)


async def load_templates(
    templates: Mapping[str, Sequence[str]],
    crawler: Crawler | None = None,
    options: SummaryOptions = DEFAULT_OPTIONS,
    base_dir: Path | None = None,
    *,
    max_per_label: int = 0,
    progress_every: float = PROGRESS_SECONDS,
) -> dict[str, list[PageSummary]]:
    """Summaries of every template, per label; raises TemplateError on the first failure.

    ``crawler`` (with an open spider) is needed only when some sources are URLs; in a running
    crawl, the reactor runs between two templates and a stopping crawl raises
    :class:`TemplateLoadStopped`. Relative paths are relative to ``base_dir`` (default: the
    current directory); ``max_per_label`` caps the templates of a label (0: no cap).
    """
    summaries: dict[str, list[PageSummary]] = {label: [] for label in templates}
    sources, capped = cap_sources(resolve_sources(templates, base_dir), max_per_label)
    _warn_capped(capped, max_per_label)
    progress = _Progress(len(sources), progress_every)
    # only a running crawl has a reactor to yield to and a stop to notice
    running = crawler if crawler is not None and crawler.crawling else None
    for entry in sources:
        summary = await _load_one(entry, crawler, options)
        logger.debug(
            "Loaded pagesim template %s for label %r (%d nodes)",
            entry.source,
            entry.label,
            summary.n_nodes,
        )
        summaries[entry.label].append(summary)
        progress.step()
        if running is not None:
            await _yield_to_reactor(running)
    return summaries


__all__ = [
    "TEMPLATE_META_KEY",
    "TemplateError",
    "TemplateLoadStopped",
    "TemplateSource",
    "cap_sources",
    "load_templates",
    "project_root",
    "resolve_sources",
    "summarize_html",
]
