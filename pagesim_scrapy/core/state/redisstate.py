"""The shared state in Redis, for a fleet of crawl processes (scrapy-redis uses the same server).

Only atomic, additive operations, so that workers never lock each other out and a worker
killed at any moment leaves nothing half-written that others read:

* site models: ``<prefix>:site:<host>:pages`` (INCRBY), ``…:df`` (a hash, HINCRBY per feature,
  all of a push's features in one short server script),
  ``…:kept`` (LPUSH of packed pages, LTRIM to the pages kept), the hosts in ``<prefix>:sites``
  (a sorted set by last push); one pipeline (one round trip) per push;
* crawls: the workers at work in ``<prefix>:workers`` (a sorted set by last sign of life).
  A worker that finds no other at work starts a new crawl of the fleet: it marks
  ``<prefix>:ageing`` and multiplies every site model's counts by a weight (a short server
  script per site), as a crawl without a fleet weighs the site models saved by the last one;
  workers that join meanwhile wait for the mark to go;
* relevance: ``<prefix>:terms:documents`` (INCRBY) and ``<prefix>:terms:df`` (HINCRBY);
* discovered types: ``<prefix>:types`` (a hash label -> a one-type representatives document,
  written with HSETNX so a label is never overwritten); label numbers are reserved in blocks
  from ``<prefix>:types:next`` (INCRBY), so two workers never found the same label;
* drift looks (the layout-change alarm's baseline): ``<prefix>:drift``, one baseline document,
  saved with WATCH/MULTI by each worker at close (each (site, label) it met replaced, the
  rest kept as stored);
* the record's signature memory: ``<prefix>:signatures``, one memory document, saved with
  WATCH/MULTI by each worker at close (its votes added to the stored ones);
* wrappers: ``<prefix>:wrapper:<label>`` (a hash of ``json`` and ``version``), saved with
  WATCH/MULTI: a save over a version someone else wrote meanwhile pools the two with
  ``Wrapper.merge()`` instead of losing either.

Values are checked when read (a corrupt wrapper or type is reported, never trusted). The
``redis`` package is imported here only, so the rest of pagesim runs without it.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pagesim_scrapy.core.cluster.persist import (
    FORMAT,
    FORMAT_VERSION,
    Representative,
    RepresentativesError,
    options_to_dict,
    parse_representatives,
)
from pagesim_scrapy.core.induce.wrapper import Wrapper, WrapperError
from pagesim_scrapy.core.state import (
    CRAWL_AGING,
    CRAWL_JOINED,
    CRAWL_NEW,
    SiteCounts,
    SiteDelta,
    StateUnavailable,
    TermCounts,
)
from pagesim_scrapy.core.statefile import CorruptStateError, StateFormatError, describe_error
from pagesim_scrapy.core.summary import SummaryOptions

#: How many times a wrapper save retries after another worker saved the same label meanwhile.
SAVE_ATTEMPTS = 8

#: Add the counts of ARGV[1] ("field<TAB>amount" lines) to the hash KEYS[1]; atomic like
#: HINCRBY itself (a script runs whole, nothing interleaves with it).
_HINCRBY_MANY = r"""
local n = 0
for field, amount in string.gmatch(ARGV[1], "([^\t\n]+)\t(%d+)") do
    redis.call('HINCRBY', KEYS[1], field, amount)
    n = n + 1
end
return n
"""

#: Forget the workers of KEYS[1] last seen before ARGV[1] - ARGV[2], then count ARGV[3] in.
#: With no other worker left it is a new crawl: mark KEYS[2] (ageing, for a minute at most)
#: and return 1; else 2 while the mark is there, 0 when not.
_JOIN_CRAWL = r"""
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZREM', KEYS[1], ARGV[3])
local others = redis.call('ZCARD', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
if others == 0 then
    redis.call('SET', KEYS[2], ARGV[3], 'EX', 60)
    return 1
end
if redis.call('EXISTS', KEYS[2]) == 1 then
    return 2
end
return 0
"""

#: Multiply the page count KEYS[1] and the document frequencies in the hash KEYS[2] by
#: ARGV[1], rounded half to even as Python's round() (SavedSite.scaled), the page count at
#: least 1, a frequency at most the page count; frequencies that round to 0 are deleted.
_AGE_SITE = r"""
local factor = tonumber(ARGV[1])
local function half_even(x)
    local f = math.floor(x)
    local d = x - f
    if d > 0.5 or (d == 0.5 and f % 2 == 1) then
        return f + 1
    end
    return f
end
local pages = tonumber(redis.call('GET', KEYS[1]) or '0')
if pages <= 0 then
    return 0
end
local scaled = math.max(1, half_even(pages * factor))
redis.call('SET', KEYS[1], scaled)
local all = redis.call('HGETALL', KEYS[2])
local gone = {}
for i = 1, #all, 2 do
    local n = half_even(tonumber(all[i + 1]) * factor)
    if n < 1 then
        gone[#gone + 1] = all[i]
    else
        redis.call('HSET', KEYS[2], all[i], math.min(n, scaled))
    end
end
for i = 1, #gone, 1000 do
    redis.call('HDEL', KEYS[2], unpack(gone, i, math.min(i + 999, #gone)))
end
return scaled
"""

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_label(label: str) -> str:
    """A label as a file or key name that cannot leave its folder or namespace."""
    return _UNSAFE.sub("_", label).strip("._") or "label"


def _bytes(text: str) -> bytes:
    # feature codes are characters from U+0100 up, lone surrogates included
    return text.encode("utf-8", "surrogatepass")


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def without_password(url: str) -> str:
    """The URL for log lines: user and password removed."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class RedisSharedState:
    """:class:`~pagesim_scrapy.core.state.SharedState` in Redis (see the module docstring).

    ``timeout`` bounds every connection attempt and command, so an unreachable server costs at
    most that long per call, and is raised as :class:`StateUnavailable`.
    """

    def __init__(self, url: str, *, prefix: str = "pagesim", timeout: float = 2.0) -> None:
        scheme = urlsplit(url).scheme
        if scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"a shared state URL starts with redis://, not {url!r}")
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._watch_error = redis.WatchError
        self.client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            decode_responses=False,
        )
        self.prefix = prefix
        self.location = without_password(url)
        #: Redis round trips made (pipelines count once)
        self.round_trips = 0
        #: labels of the types the last :meth:`pull_types` could not use
        self.corrupt_types: list[str] = []

    def _add_counts(self, key: str, counts: Mapping[str, int], pipe: Any) -> None:
        """HINCRBY of every field of ``counts`` in ``key``, as one command: a short server
        script given the counts as one string. A pipeline of one HINCRBY per feature cost the
        worker more CPU building commands and parsing replies than classifying the pages did,
        and one argument per field still cost more than one string. Fields never hold a tab or a
        newline: structural features are characters from U+0100 up, relevance terms are
        words."""
        blob = "\n".join([f"{field_name}\t{count}" for field_name, count in counts.items()])
        # EVAL with the script's text (a few hundred bytes): a registered script would make
        # the pipeline ask SCRIPT EXISTS first, one more round trip per push
        pipe.eval(_HINCRBY_MANY, 1, key, _bytes(blob))

    # -- keys ------------------------------------------------------------------------------

    def _site_key(self, site: str, part: str) -> str:
        return f"{self.prefix}:site:{site}:{part}"

    def keys_of_site(self, site: str) -> list[str]:
        return [self._site_key(site, part) for part in ("pages", "df", "kept")]

    def _call(self, what: str, func: Any, *args: Any) -> Any:
        """Run one round trip; a failure of the server or the network is StateUnavailable."""
        self.round_trips += 1
        try:
            return func(*args)
        except self._errors as exc:
            raise StateUnavailable(f"{what}: {describe_error(exc)}") from exc

    # -- site models -----------------------------------------------------------------------

    def push_sites(self, deltas: Mapping[str, SiteDelta], keep_pages: int) -> None:
        if not deltas:
            return
        # MULTI/EXEC: a push is applied whole or not at all
        pipe = self.client.pipeline(transaction=True)
        now = time.time()
        for site, delta in deltas.items():
            if delta.pages:
                pipe.incrby(self._site_key(site, "pages"), delta.pages)
            if delta.df:
                self._add_counts(self._site_key(site, "df"), delta.df, pipe)
            if delta.kept and keep_pages:
                kept_key = self._site_key(site, "kept")
                pipe.lpush(kept_key, *[_bytes(page) for page in delta.kept])
                pipe.ltrim(kept_key, 0, keep_pages - 1)
            pipe.zadd(f"{self.prefix}:sites", {site: now})
        self._call("push site models", pipe.execute)

    # -- crawls of the fleet ---------------------------------------------------------------

    def join_crawl(self, worker: str, stale_after: float) -> str:
        found = self._call(
            "join the crawl",
            self.client.eval,
            _JOIN_CRAWL,
            2,
            f"{self.prefix}:workers",
            f"{self.prefix}:ageing",
            repr(time.time()),
            repr(float(stale_after)),
            worker,
        )
        return {1: CRAWL_NEW, 2: CRAWL_AGING}.get(int(found), CRAWL_JOINED)

    def heartbeat(self, worker: str) -> None:
        workers = f"{self.prefix}:workers"
        self._call("sign of life", self.client.zadd, workers, {worker: time.time()})

    def leave_crawl(self, worker: str) -> None:
        self._call("leave the crawl", self.client.zrem, f"{self.prefix}:workers", worker)

    def age_sites(self, weight: float) -> int:
        if not 0.0 < weight <= 1.0:
            raise ValueError("weight must be within (0, 1]")
        sites = [
            _text(site)
            for site in self._call("list sites", self.client.zrange, f"{self.prefix}:sites", 0, -1)
        ]
        if weight < 1.0:
            for start in range(0, len(sites), 100):
                pipe = self.client.pipeline(transaction=False)
                for site in sites[start : start + 100]:
                    keys = (self._site_key(site, "pages"), self._site_key(site, "df"))
                    pipe.eval(_AGE_SITE, 2, *keys, repr(weight))
                self._call("age site models", pipe.execute)
        self._call("end the ageing", self.client.delete, f"{self.prefix}:ageing")
        return len(sites)

    def ageing(self) -> bool:
        return bool(self._call("ask for the ageing", self.client.exists, f"{self.prefix}:ageing"))

    def site_pages(self, sites: Sequence[str]) -> dict[str, int]:
        """The fleet's page count of each site (sites nobody pushed are left out)."""
        if not sites:
            return {}
        values = self._call(
            "read page counts",
            self.client.mget,
            [self._site_key(site, "pages") for site in sites],
        )
        return {site: int(v) for site, v in zip(sites, values) if v is not None}

    def pull_sites(self, sites: Iterable[str]) -> dict[str, SiteCounts]:
        sites = list(sites)
        if not sites:
            return {}
        pipe = self.client.pipeline(transaction=False)
        for site in sites:
            pipe.get(self._site_key(site, "pages"))
            pipe.hgetall(self._site_key(site, "df"))
            pipe.lrange(self._site_key(site, "kept"), 0, -1)
        replies = self._call("pull site models", pipe.execute)
        out: dict[str, SiteCounts] = {}
        for i, site in enumerate(sites):
            pages, df, kept = replies[3 * i : 3 * i + 3]
            if pages is None:
                continue
            try:
                counts = SiteCounts(
                    int(pages),
                    {_text(k): int(v) for k, v in df.items()},
                    [_text(page) for page in reversed(kept)],
                )
            except (ValueError, UnicodeDecodeError) as exc:
                raise StateUnavailable(f"site model of {site} is corrupt: {exc}") from exc
            out[site] = counts
        return out

    def forget_rare_features(self, site: str, max_features: int) -> int:
        """Remove the features seen on one page from a site's hash when it holds more than
        ``max_features`` (they weigh nothing); returns how many. A worker adding one of them
        at the same moment loses that one count, which only delays its weight."""
        df_key = self._site_key(site, "df")
        if self._call("count features", self.client.hlen, df_key) <= max_features:
            return 0
        rare = [
            key
            for key, value in self._call("read features", self.client.hgetall, df_key).items()
            if int(value) <= 1
        ]
        for start in range(0, len(rare), 1000):
            self._call("forget features", self.client.hdel, df_key, *rare[start : start + 1000])
        return len(rare)

    # -- relevance -------------------------------------------------------------------------

    def push_terms(self, delta: TermCounts) -> None:
        if not delta.documents:
            return
        pipe = self.client.pipeline(transaction=True)
        pipe.incrby(f"{self.prefix}:terms:documents", delta.documents)
        if delta.df:
            self._add_counts(f"{self.prefix}:terms:df", delta.df, pipe)
        self._call("push relevance counts", pipe.execute)

    def pull_terms(self) -> TermCounts:
        pipe = self.client.pipeline(transaction=False)
        pipe.get(f"{self.prefix}:terms:documents")
        pipe.hgetall(f"{self.prefix}:terms:df")
        documents, df = self._call("pull relevance counts", pipe.execute)
        try:
            return TermCounts(
                int(documents or 0), Counter({_text(k): int(v) for k, v in df.items()})
            )
        except (ValueError, UnicodeDecodeError) as exc:
            raise StateUnavailable(f"relevance counts are corrupt: {exc}") from exc

    # -- discovered types ------------------------------------------------------------------

    def reserve_type_numbers(self, count: int) -> int:
        """The first of ``count`` label numbers nobody else will use."""
        last = self._call(
            "reserve type labels", self.client.incrby, f"{self.prefix}:types:next", count
        )
        return int(last) - count + 1

    def publish_types(
        self,
        representatives: Sequence[Representative],
        options: SummaryOptions,
        settings: Mapping[str, Any],
    ) -> list[str]:
        """Add types under labels not taken yet; returns the labels added."""
        if not representatives:
            return []
        pipe = self.client.pipeline(transaction=False)
        for rep in representatives:
            document = {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "settings": dict(settings),
                "summary_options": options_to_dict(options),
                "clusters": [rep.to_dict(include_html=True)],
            }
            pipe.hsetnx(f"{self.prefix}:types", rep.label, json.dumps(document))
        added = self._call("publish types", pipe.execute)
        return [rep.label for rep, new in zip(representatives, added) if new]

    def pull_types(self, options: SummaryOptions, known: Iterable[str]) -> list[Representative]:
        """The fleet's types whose labels are not in ``known``. A corrupt entry is skipped and
        its label listed in ``corrupt_types`` (the caller reports it)."""
        seen = set(known)
        entries = self._call("pull types", self.client.hgetall, f"{self.prefix}:types")
        reps: list[Representative] = []
        self.corrupt_types = []
        for raw_label, text in entries.items():
            label = raw_label.decode("utf-8", "replace")
            if label in seen:
                continue
            try:
                found, _, _ = parse_representatives(
                    text.decode("utf-8"), options, name=f"type {label}"
                )
            except (RepresentativesError, UnicodeDecodeError):
                self.corrupt_types.append(label)
                continue
            reps.extend(rep for rep in found if rep.label == label)
        return reps

    # -- wrappers --------------------------------------------------------------------------

    def _wrapper_key(self, label: str) -> str:
        return f"{self.prefix}:wrapper:{safe_label(label)}"

    def load_wrapper(self, label: str) -> tuple[Wrapper | None, int]:
        """(the fleet's wrapper of ``label`` or None, its version). Raises
        :class:`CorruptStateError` for a stored wrapper that cannot be used."""
        text, version = self._call(
            "load wrapper", self.client.hmget, self._wrapper_key(label), ["json", "version"]
        )
        if text is None:
            return None, 0
        try:
            wrapper = Wrapper.from_json(text.decode("utf-8"))
            if wrapper.tree.root is not None:
                wrapper.compiled()
            return wrapper, int(version or 0)
        except (WrapperError, StateFormatError, ValueError, UnicodeDecodeError) as exc:
            key = self._wrapper_key(label)
            aside = f"{key}:corrupt:{int(time.time())}"
            try:
                self._call("move a corrupt wrapper aside", self.client.rename, key, aside)
            except StateUnavailable:
                moved: Path | None = None
            else:
                moved = Path(aside)
            raise CorruptStateError(Path(key), describe_error(exc), moved) from exc

    def save_wrapper(self, label: str, wrapper: Wrapper, base_version: int) -> int:
        """Save ``wrapper``, learned from version ``base_version`` of the stored one; when
        another worker saved meanwhile, the stored wrapper and this one are merged. Returns
        the new version."""
        key = self._wrapper_key(label)
        for _ in range(SAVE_ATTEMPTS):
            with self.client.pipeline(transaction=True) as pipe:
                try:
                    self.round_trips += 3  # WATCH, HMGET, MULTI/EXEC
                    pipe.watch(key)
                    text, version_bytes = pipe.hmget(key, ["json", "version"])
                    version = int(version_bytes or 0)
                    to_save = wrapper
                    if isinstance(text, bytes) and version != base_version:
                        try:
                            stored: Wrapper | None = Wrapper.from_json(text.decode("utf-8"))
                        except (WrapperError, StateFormatError, ValueError, UnicodeDecodeError):
                            stored = None  # a corrupt stored wrapper is replaced
                        if stored is not None:
                            to_save = stored.merge(wrapper)
                    pipe.multi()
                    pipe.hset(key, mapping={"json": to_save.to_json(), "version": version + 1})
                    pipe.execute()
                    return version + 1
                except self._watch_error:
                    continue
                except self._errors as exc:
                    raise StateUnavailable(f"save wrapper: {describe_error(exc)}") from exc
        raise StateUnavailable(f"save wrapper: {label!r} changed {SAVE_ATTEMPTS} times meanwhile")

    # -- documents: drift looks, signature memory -------------------------------------------

    def _document_key(self, name: str) -> str:
        return f"{self.prefix}:{name}"

    def _drift_key(self) -> str:
        return self._document_key("drift")

    def load_document(self, name: str) -> str | None:
        """The fleet's saved document ``name``, None when none is saved yet."""
        text = self._call(f"load {name}", self.client.get, self._document_key(name))
        return text.decode("utf-8") if isinstance(text, bytes) else None

    def update_document(self, name: str, update: Callable[[str | None], str]) -> None:
        """Replace the fleet's document ``name`` by ``update(stored)``; when another worker
        saved meanwhile, ``update`` runs again on what it saved, so neither worker's part is
        lost."""
        key = self._document_key(name)
        for _ in range(SAVE_ATTEMPTS):
            with self.client.pipeline(transaction=True) as pipe:
                try:
                    self.round_trips += 3  # WATCH, GET, MULTI/EXEC
                    pipe.watch(key)
                    stored = pipe.get(key)
                    text = update(stored.decode("utf-8") if isinstance(stored, bytes) else None)
                    pipe.multi()
                    pipe.set(key, _bytes(text))
                    pipe.execute()
                    return
                except self._watch_error:
                    continue
                except self._errors as exc:
                    raise StateUnavailable(f"save {name}: {describe_error(exc)}") from exc
        raise StateUnavailable(f"save {name}: changed {SAVE_ATTEMPTS} times meanwhile")

    def load_drift(self) -> str | None:
        """The fleet's saved drift looks (a baseline document), None when none saved yet."""
        return self.load_document("drift")

    def update_drift(self, update: Callable[[str | None], str]) -> None:
        """Replace the fleet's drift looks by ``update(stored)`` (see :meth:`update_document`)."""
        self.update_document("drift", update)

    # -- the whole state -------------------------------------------------------------------

    def memory_usage(self, keys: Iterable[str]) -> int:
        """Bytes Redis uses for ``keys`` (MEMORY USAGE), for the sizing figures."""
        return sum(int(self.client.memory_usage(key, samples=0) or 0) for key in keys)

    def close(self) -> None:
        with contextlib.suppress(*self._errors):
            self.client.close()
