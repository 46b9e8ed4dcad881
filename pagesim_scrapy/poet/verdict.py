"""``PageSimVerdict``: pagesim's verdict on a page as a typed page-object input.

web-poet page objects declare what they need as typed attributes; this class is what they
declare to get pagesim's decision. It is built from ``response.meta["pagesim"]`` (the one meta
contract, see :meth:`pagesim_scrapy.core.verdict.Verdict.as_meta`), so it needs neither
Scrapy nor scrapy-poet, and it serializes for web-poet test fixtures and scrapy-poet's cache.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs
from web_poet.serialization import SerializedLeafData, register_serialization

#: The ``reason`` of a response pagesim let through without a verdict.
NOT_CLASSIFIED = (
    "pagesim did not classify this response (skipped: see the pagesim/skipped/* stats, or "
    "pagesim is not enabled)"
)


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def _copied_dict(value: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(value or {})


@attrs.frozen
class PageSimVerdict:
    """pagesim's decision on one page: which page type it is, how sure, and why.

    ``label`` is None both when no label reached its threshold (``classified`` is True) and
    when pagesim did not look at the response at all (``classified`` is False); ``reason``
    says which, in words.
    """

    label: str | None
    score: float = 0.0
    scores: dict[str, float] = attrs.field(factory=dict, converter=_copied_dict)
    confidence: float | None = None
    threshold: float | None = None
    threshold_source: str | None = None
    method: str | None = None
    margin: float | None = None
    runner_up: str | None = None
    target: bool = False
    cluster: str | None = None
    classified: bool = True
    reason: str = ""
    #: the whole ``response.meta["pagesim"]`` dict, for keys not typed above
    meta: dict[str, Any] = attrs.field(factory=dict, converter=_copied_dict, repr=False)

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any] | None, *, reason: str = "") -> PageSimVerdict:
        """The verdict in ``meta`` (``response.meta["pagesim"]``); None means not classified.

        ``reason`` explains a missing verdict; a present one is explained from its own fields.
        """
        if meta is None:
            return cls.unclassified(reason or NOT_CLASSIFIED)
        verdict = cls(
            label=meta.get("label"),
            score=float(meta.get("score") or 0.0),
            scores={label: float(score) for label, score in (meta.get("scores") or {}).items()},
            confidence=_float_or_none(meta.get("confidence")),
            threshold=_float_or_none(meta.get("threshold")),
            threshold_source=meta.get("threshold_source"),
            method=meta.get("method"),
            margin=_float_or_none(meta.get("margin")),
            runner_up=meta.get("runner_up"),
            target=bool(meta.get("target")),
            cluster=meta.get("cluster"),
            meta=meta,
        )
        return attrs.evolve(verdict, reason=explain(verdict))

    @classmethod
    def unclassified(cls, reason: str = NOT_CLASSIFIED) -> PageSimVerdict:
        """The verdict of a response pagesim did not classify."""
        return cls(label=None, classified=False, reason=reason)

    def as_meta(self) -> dict[str, Any]:
        """The ``response.meta["pagesim"]`` dict this verdict came from ({} if none)."""
        return dict(self.meta)


def explain(verdict: PageSimVerdict) -> str:
    """One line saying why ``verdict`` has its label, from the verdict's own figures."""
    if verdict.label is None:
        best = max(verdict.scores, key=verdict.scores.__getitem__, default=None)
        if best is None:
            return "no label: no template or page type to compare with"
        return f"no label: the best, {best}, scored {verdict.score:.3f}, under its threshold"
    parts = [f"{verdict.label}: score {verdict.score:.3f}"]
    if verdict.threshold is not None:
        source = f" ({verdict.threshold_source})" if verdict.threshold_source else ""
        parts.append(f"threshold {verdict.threshold:.3f}{source}")
    if verdict.runner_up is not None and verdict.margin is not None:
        parts.append(f"margin {verdict.margin:.3f} over {verdict.runner_up}")
    if verdict.confidence is not None:
        parts.append(f"confidence {verdict.confidence:.2f}")
    return ", ".join(parts)


def _serialize_verdict(verdict: PageSimVerdict) -> SerializedLeafData:
    info = {"meta": verdict.meta if verdict.classified else None, "reason": verdict.reason}
    return {"verdict.json": json.dumps(info, indent=2, sort_keys=True).encode()}


def _deserialize_verdict(cls: type[PageSimVerdict], data: SerializedLeafData) -> PageSimVerdict:
    info = json.loads(data["verdict.json"])
    return cls.from_meta(info["meta"], reason=info["reason"])


register_serialization(_serialize_verdict, _deserialize_verdict)
