"""The request meta keys and response flags through which pagesim talks to a crawl."""

from __future__ import annotations

#: Request meta key holding the verdict; the callback reads ``response.meta[META_KEY]``.
META_KEY = "pagesim"
#: Request meta key that, when true, makes pagesim leave the request and its response alone.
DONT_META_KEY = "dont_pagesim"
#: ``request.meta`` key of a page requested again for its second look (see
#: :mod:`pagesim_scrapy.core.secondlook`): decided without counting it into its site twice
SECOND_LOOK_META_KEY = "pagesim_second_look"
#: Its value for a page deferred in tag mode: the spider gets it whatever its new verdict
OWED = "owed"
#: ``request.meta`` key of a page requested again: its first verdict's label, score and
#: discovered cluster (the page is not counted into the discovery twice)
FIRST_VERDICT_META_KEY = "pagesim_first_verdict"
#: ``request.meta`` key of a held page requested again: the token of its response, kept
#: in memory, which the middleware returns instead of downloading the page a second time
REPLAY_META_KEY = "pagesim_replay"
#: Prefix of the response flag naming the label (shown in the "Crawled" log line).
FLAG_PREFIX = "pagesim:"
#: Flag label of pages no label matched.
UNMATCHED_FLAG = "unmatched"
#: The logger of the middlewares' modules: one name, so their log lines read as one
#: component's.
LOGGER_NAME = "pagesim_scrapy.middlewares"
