"""What one round of drift checks reads more than once, read once.

A check unpacks every kept page of the label and of the site's other labels, counts the other
labels' features twice (their chrome, and what moved site-wide) and builds the site's weights;
the close summary checks every label of a site, which read every look again per label. Inside
:func:`remembered`, each of these is computed once per look (or pair of sites' looks) as it
stands: a look that gained a page since is read again. Outside it nothing is kept, so the
monitor's memory stays what its looks hold.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["once", "remembered"]

T = TypeVar("T")

#: (kind, ids of the owners) -> (the owners, their state, the value), while a round runs
_MEMO: ContextVar[dict[tuple[Any, ...], tuple[Any, Any, Any]] | None] = ContextVar(
    "_MEMO", default=None
)


@contextmanager
def remembered() -> Iterator[None]:
    """A round of checks in which :func:`once` remembers (nested rounds share the outer one)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def once(kind: Hashable, owners: tuple[Any, ...], state: Any, compute: Callable[[], T]) -> T:
    """``compute()``, remembered within the round for the same ``owners`` (compared by
    identity, held while the round runs) in the same ``state``."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    key = (kind, *map(id, owners))
    hit = memo.get(key)
    if hit is not None and hit[1] == state and all(a is b for a, b in zip(hit[0], owners)):
        return hit[2]
    value = compute()
    memo[key] = (owners, state, value)
    return value
