"""Which element holds a standard value, remembered across sites.

Many sites are built with the same recipe, shop or blog plugins, so the element that held
the metadata's ``prep_time`` on other sites (its signature: the body key that names only the
element and its parent, tag and class words, :data:`.bodyfields.LOCAL`) is evidence on a site
whose own few pages cannot say which element holds it. A :class:`SignatureMemory` keeps, per
page type and standard name, the sites whose pages vouched for each signature; a
:class:`~.naming.BodyNaming` asks it only for names its own pages do not settle, and never
counts its own site's vote. The memory is plain data, so it can be kept with a crawl's state.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from .bodyfields import LOCAL

__all__ = ["SignatureMemory", "is_signature"]

#: the version of :meth:`SignatureMemory.to_dict`'s format
FORMAT_VERSION = 1

Votes = dict[tuple[str, str], dict[str, set[str]]]


def is_signature(key: str) -> bool:
    """Whether a body key names an element by itself and its parent only (the same on every
    site that uses the same markup)."""
    return key[:1] == LOCAL


class SignatureMemory:
    """Sites that vouched for each ``(page type, signature) -> standard name``.

    A signature names a standard name for a site when at least ``min_sites`` other sites
    vouched for it, and no other name has more sites for the same signature (an element
    whose value two names shared, a total and a cook time, vouches for both). Thread-safe.
    """

    def __init__(self, min_sites: int = 2) -> None:
        if min_sites < 1:
            raise ValueError("min_sites must be positive")
        self.min_sites = min_sites
        #: ``{(page type, signature): {name: sites}}``
        self._votes: Votes = {}
        #: ``{(page type, name): signatures}``: the index :meth:`signatures` reads
        self._keys: dict[tuple[str, str], set[str]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._votes)

    def learn(self, site: str, page_type: str, vouched: Mapping[str, Iterable[str]]) -> None:
        """``site``'s pages of ``page_type`` agreed on ``{name: signatures}`` (a site's vote
        replaces nothing: a site that votes again adds only what is new)."""
        with self._lock:
            for name, keys in vouched.items():
                for key in keys:
                    if is_signature(key):
                        by_name = self._votes.setdefault((page_type, key), {})
                        by_name.setdefault(name, set()).add(site)
                        self._keys.setdefault((page_type, name), set()).add(key)

    def signatures(self, page_type: str, name: str, site: str = "") -> list[str]:
        """The signatures other sites than ``site`` name ``name`` by, most sites first."""
        ranked = []
        with self._lock:
            for key in self._keys.get((page_type, name), ()):
                by_name = self._votes[page_type, key]
                counts = {other: len(sites - {site}) for other, sites in by_name.items()}
                mine = counts[name]
                if mine >= self.min_sites and mine >= max(counts.values()):
                    ranked.append((-mine, key))
        return [key for _, key in sorted(ranked)]

    def to_dict(self) -> dict[str, Any]:
        """The memory as JSON-ready data (sorted, so the same votes give the same file)."""
        with self._lock:
            votes = [
                [page_type, key, name, sorted(sites)]
                for (page_type, key), by_name in sorted(self._votes.items())
                for name, sites in sorted(by_name.items())
            ]
        return {"format": FORMAT_VERSION, "min_sites": self.min_sites, "votes": votes}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SignatureMemory:
        """A memory saved by :meth:`to_dict` (a newer format is refused, not misread)."""
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"signature memory format {data.get('format')!r} is not supported")
        memory = cls(int(data.get("min_sites", 2)))
        for page_type, key, name, sites in data.get("votes", ()):
            for site in sites:
                memory.learn(str(site), str(page_type), {str(name): [str(key)]})
        return memory
