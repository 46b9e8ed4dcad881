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

import json
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from pagesim_scrapy.core.statefile import (
    StateFormatError,
    check_int,
    check_list,
    check_str,
    check_str_list,
    read_document,
)

from .bodyfields import LOCAL

__all__ = ["SignatureMemory", "is_signature", "memory_text", "parse_memory"]

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


# --- the memory as a state file ------------------------------------------------------------------

#: the ``format`` of a saved memory (:func:`memory_text`)
FILE_FORMAT = "pagesim-signatures"
#: a saved signature keeps at most this many of the sites that vouched for it: far more than
#: any ``min_sites``, and a crawl of thousands of sites of one plugin does not grow the file
MAX_SITES_PER_VOTE = 20
#: a saved memory keeps at most this many votes, those the most sites back first
MAX_VOTES = 20_000


def memory_text(
    memory: SignatureMemory, max_votes: int = MAX_VOTES, max_sites: int = MAX_SITES_PER_VOTE
) -> str:
    """The memory as a state file's text: at most ``max_votes`` votes, those the most sites
    back, each with at most ``max_sites`` of its sites."""
    votes = memory.to_dict()["votes"]
    votes.sort(key=lambda vote: -len(vote[3]))
    kept = [[*vote[:3], vote[3][:max_sites]] for vote in votes[:max_votes]]
    kept.sort()
    document = {
        "format": FILE_FORMAT,
        "version": FORMAT_VERSION,
        "min_sites": memory.min_sites,
        "votes": kept,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def parse_memory(text: str) -> SignatureMemory:
    """A memory from :func:`memory_text`'s text; a file of another format, a newer version or
    wrong types raises :class:`~pagesim_scrapy.core.statefile.StateFormatError`."""
    document = read_document(text, FILE_FORMAT, FORMAT_VERSION)
    memory = SignatureMemory(check_int(document.get("min_sites", 2), "min_sites", 1, 1000))
    votes = check_list(document.get("votes", []), "votes")
    if len(votes) > MAX_VOTES:
        raise StateFormatError(f"votes: more than {MAX_VOTES}")
    for i, vote in enumerate(votes):
        fields = check_list(vote, f"votes[{i}]")
        if len(fields) != 4:
            raise StateFormatError(f"votes[{i}]: not [page type, signature, name, sites]")
        page_type, key, name = (check_str(value, f"votes[{i}]") for value in fields[:3])
        sites = check_str_list(fields[3], f"votes[{i}][3]")[:MAX_SITES_PER_VOTE]
        for site in sites:
            memory.learn(site, page_type, {name: [key]})
    return memory
