"""Shared learned state: what pagesim learns during a crawl, readable by other crawl processes.

One crawl process learns site models (per-host document frequencies of structural features and
the kept pages the cuts are re-estimated from), discovered page types, wrappers and the
document frequencies of relevance scoring. A fleet of crawl processes (scrapy-redis) should
learn them together, or each worker decides on its own evidence and the workers disagree.

:class:`SharedState` is the one interface for that state; :class:`FileSharedState` keeps it in
the files a single crawl uses today (wrappers one JSON file per label, discovered types one
representatives file; site models and relevance counts live in the process), and
:class:`~pagesim_scrapy.core.state.redisstate.RedisSharedState` keeps it in Redis for a fleet.
:class:`~pagesim_scrapy.core.state.sync.FleetSync` moves deltas between a worker's local
models and the store off the hot path. Framework-free: no Scrapy import.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pagesim_scrapy.core.cluster.persist import (
    Representative,
    RepresentativesError,
    read_representatives,
    write_representatives,
)
from pagesim_scrapy.core.induce.wrapper import Wrapper
from pagesim_scrapy.core.statefile import read_state
from pagesim_scrapy.core.summary import SummaryOptions

if TYPE_CHECKING:
    from pagesim_scrapy.core.state.redisstate import RedisSharedState

__all__ = [
    "CRAWL_AGING",
    "CRAWL_JOINED",
    "CRAWL_NEW",
    "FileSharedState",
    "SharedState",
    "SiteCounts",
    "SiteDelta",
    "StateUnavailable",
    "TermCounts",
    "open_shared_state",
]


#: What :meth:`SharedState.join_crawl` found: no other worker at work (this one starts a new
#: crawl of the fleet, and ages the site models of the earlier ones), others at work, or others
#: at work while the one that started the crawl is still ageing the site models.
CRAWL_NEW = "new"
CRAWL_JOINED = "joined"
CRAWL_AGING = "ageing"


class StateUnavailable(ConnectionError):
    """The shared state cannot be reached now (network, timeout, server gone): the caller goes
    on with its local state and tries again later."""


@dataclass
class SiteDelta:
    """What one worker learned about a site since its last push."""

    pages: int = 0
    df: Counter[str] = field(default_factory=Counter)
    #: the kept pages, packed (see :mod:`pagesim_scrapy.core.site`), oldest first
    kept: list[str] = field(default_factory=list)

    def add(self, other: SiteDelta, keep_pages: int) -> None:
        self.pages += other.pages
        self.df.update(other.df)
        self.kept.extend(other.kept)
        del self.kept[: max(0, len(self.kept) - keep_pages)]


@dataclass
class SiteCounts:
    """A site as the whole fleet learned it: pages, feature document frequencies, the last
    kept pages (packed, oldest first)."""

    pages: int
    df: dict[str, int]
    kept: list[str]


@dataclass
class TermCounts:
    """Relevance document frequencies: pages counted and pages per term."""

    documents: int = 0
    df: Counter[str] = field(default_factory=Counter)


class SharedState(Protocol):
    """Where the state learned by one or many crawl processes lives.

    Every method may raise :class:`StateUnavailable`; counts are only ever added to (so a
    worker that dies between two pushes loses its own unpushed pages and nothing else).
    """

    #: where the state lives, for log lines (no password)
    location: str

    def push_sites(self, deltas: Mapping[str, SiteDelta], keep_pages: int) -> None: ...

    def join_crawl(self, worker: str, stale_after: float) -> str:
        """Count ``worker`` in the fleet's crawl (workers not seen for ``stale_after`` seconds
        are forgotten first): CRAWL_NEW when no other worker is at work, CRAWL_JOINED or
        CRAWL_AGING when others are."""
        ...

    def heartbeat(self, worker: str) -> None:
        """``worker`` is still at work."""
        ...

    def leave_crawl(self, worker: str) -> None:
        """``worker`` has stopped."""
        ...

    def age_sites(self, weight: float) -> int:
        """Multiply every site model's counts by ``weight`` (as ``SavedSite.scaled`` does),
        then clear the ageing mark; returns how many sites were aged."""
        ...

    def ageing(self) -> bool:
        """Whether the worker that started the crawl is still ageing the site models."""
        ...

    def site_pages(self, sites: Sequence[str]) -> dict[str, int]: ...

    def pull_sites(self, sites: Iterable[str]) -> dict[str, SiteCounts]: ...

    def push_terms(self, delta: TermCounts) -> None: ...

    def pull_terms(self) -> TermCounts: ...

    def reserve_type_numbers(self, count: int) -> int: ...

    def publish_types(
        self,
        representatives: Sequence[Representative],
        options: SummaryOptions,
        settings: Mapping[str, Any],
    ) -> list[str]: ...

    def pull_types(self, options: SummaryOptions, known: Iterable[str]) -> list[Representative]: ...

    def load_wrapper(self, label: str) -> tuple[Wrapper | None, int]: ...

    def save_wrapper(self, label: str, wrapper: Wrapper, base_version: int) -> int: ...

    def load_document(self, name: str) -> str | None:
        """The fleet's document ``name`` (``drift``: the drift looks, ``signatures``: the
        signature memory), None when none is saved yet."""

    def update_document(self, name: str, update: Callable[[str | None], str]) -> None:
        """Save ``update(stored)`` as the fleet's document ``name`` (again when raced)."""

    def load_drift(self) -> str | None:
        """The drift looks the fleet saved (a baseline document), None when none yet."""

    def update_drift(self, update: Callable[[str | None], str]) -> None:
        """Save ``update(stored)`` as the fleet's drift looks (again when raced)."""

    def close(self) -> None: ...


class FileSharedState:
    """The state of one machine: wrappers in one JSON file per label under ``wrapper_dir``,
    discovered types in the representatives file ``types_file`` (the formats of
    ``PAGESIM_INDUCTION_DIR`` and ``PAGESIM_DISCOVERY_FILE``); site models and relevance
    counts stay in this process, as in a crawl without a fleet."""

    def __init__(self, wrapper_dir: str | Path, types_file: str | Path) -> None:
        self.wrapper_dir = Path(wrapper_dir)
        self.types_file = Path(types_file)
        self.location = f"{self.wrapper_dir}, {self.types_file}"
        self._sites: dict[str, SiteCounts] = {}
        self._terms = TermCounts()
        self._next_type = 1
        self._documents: dict[str, str] = {}

    def push_sites(self, deltas: Mapping[str, SiteDelta], keep_pages: int) -> None:
        for site, delta in deltas.items():
            counts = self._sites.setdefault(site, SiteCounts(0, {}, []))
            counts.pages += delta.pages
            for feature, n in delta.df.items():
                counts.df[feature] = counts.df.get(feature, 0) + n
            counts.kept = (counts.kept + delta.kept)[-keep_pages:] if keep_pages else []

    # Site models live in this process only: nothing carries over from an earlier crawl, so
    # there is nothing to age and no crawl to join.
    def join_crawl(self, worker: str, stale_after: float) -> str:
        return CRAWL_JOINED

    def heartbeat(self, worker: str) -> None:
        pass

    def leave_crawl(self, worker: str) -> None:
        pass

    def age_sites(self, weight: float) -> int:
        return 0

    def ageing(self) -> bool:
        return False

    def site_pages(self, sites: Sequence[str]) -> dict[str, int]:
        return {site: self._sites[site].pages for site in sites if site in self._sites}

    def pull_sites(self, sites: Iterable[str]) -> dict[str, SiteCounts]:
        return {
            site: SiteCounts(c.pages, dict(c.df), list(c.kept))
            for site in sites
            if (c := self._sites.get(site)) is not None
        }

    def push_terms(self, delta: TermCounts) -> None:
        self._terms.documents += delta.documents
        self._terms.df.update(delta.df)

    def pull_terms(self) -> TermCounts:
        return TermCounts(self._terms.documents, Counter(self._terms.df))

    def reserve_type_numbers(self, count: int) -> int:
        first = self._next_type
        self._next_type += count
        return first

    def publish_types(
        self,
        representatives: Sequence[Representative],
        options: SummaryOptions,
        settings: Mapping[str, Any],
    ) -> list[str]:
        write_representatives(self.types_file, representatives, options=options, settings=settings)
        return [rep.label for rep in representatives]

    def pull_types(self, options: SummaryOptions, known: Iterable[str]) -> list[Representative]:
        if not self.types_file.exists():
            return []
        try:
            reps, _, _ = read_representatives(self.types_file, options)
        except RepresentativesError as exc:
            raise StateUnavailable(str(exc)) from exc
        seen = set(known)
        return [rep for rep in reps if rep.label not in seen]

    def _wrapper_path(self, label: str) -> Path:
        from pagesim_scrapy.core.state.redisstate import safe_label

        return self.wrapper_dir / f"{safe_label(label)}.json"

    def load_wrapper(self, label: str) -> tuple[Wrapper | None, int]:
        wrapper = read_state(self._wrapper_path(label), Wrapper.from_json)
        return wrapper, 0

    def save_wrapper(self, label: str, wrapper: Wrapper, base_version: int) -> int:
        self.wrapper_dir.mkdir(parents=True, exist_ok=True)
        wrapper.save(self._wrapper_path(label))
        return base_version + 1

    # One machine keeps its drift looks in its drift file (PAGESIM_DRIFT_FILE) and its
    # signature memory with its wrappers; here the documents live as long as the process.
    def load_document(self, name: str) -> str | None:
        return self._documents.get(name)

    def update_document(self, name: str, update: Callable[[str | None], str]) -> None:
        self._documents[name] = update(self._documents.get(name))

    def load_drift(self) -> str | None:
        return self.load_document("drift")

    def update_drift(self, update: Callable[[str | None], str]) -> None:
        self.update_document("drift", update)

    def close(self) -> None:
        pass


def open_shared_state(
    url: str, *, prefix: str = "pagesim", timeout: float = 2.0
) -> RedisSharedState:
    """The shared state at ``url`` (``redis://``, ``rediss://`` or ``unix://``). Connects
    lazily: an unreachable server shows up as :class:`StateUnavailable` on first use. Raises
    ValueError for another scheme and ImportError without the ``redis`` package."""
    from pagesim_scrapy.core.state.redisstate import RedisSharedState

    return RedisSharedState(url, prefix=prefix, timeout=timeout)
