"""Saving discovered page types: representatives as JSON, and a PAGESIM_TEMPLATES snippet.

A representative is stored with its page summary (compact: node codes as integers), so a later
crawl rebuilds it without the page; the page's HTML is stored too when known, so a person can
look at it or promote it to a template file. Summaries are only comparable under the same
summary options, which are stored alongside and checked on load.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.summary import (
    DEFAULT_OPTIONS,
    PageParseError,
    PageSummary,
    SummaryOptions,
    summarize,
)

logger = logging.getLogger(__name__)

FORMAT = "pagesim-discovery"
FORMAT_VERSION = 1
_CODE_BASE = 0x100  # summary codes start past the ASCII range (see summary.code_char)


class RepresentativesError(ValueError):
    """A representatives file cannot be used (not JSON, other format, newer version...)."""


def options_to_dict(options: SummaryOptions) -> dict[str, Any]:
    return {
        "skip_tags": sorted(options.skip_tags),
        "rpsa_attributes": list(options.rpsa_attributes),
        "normalise_volatile": options.normalise_volatile,
        "max_depth": options.max_depth,
    }


def options_from_dict(data: Mapping[str, Any]) -> SummaryOptions:
    known = {f.name for f in fields(SummaryOptions)}
    unknown = set(data) - known
    if unknown:
        raise RepresentativesError(f"unknown summary options {sorted(unknown)}")
    kwargs: dict[str, Any] = dict(data)
    if "skip_tags" in kwargs:
        kwargs["skip_tags"] = frozenset(kwargs["skip_tags"])
    if "rpsa_attributes" in kwargs:
        kwargs["rpsa_attributes"] = tuple(kwargs["rpsa_attributes"])
    return SummaryOptions(**kwargs)


def summary_to_dict(summary: PageSummary) -> dict[str, Any]:
    """Everything needed to rebuild the summary (no derived views, no options)."""
    return {
        "bfs": {
            relation: [ord(ch) - _CODE_BASE for ch in sequence]
            for relation, sequence in summary.bfs.items()
        },
        "parent_bfs": list(summary.parent_bfs),
        "level_starts": list(summary.level_starts),
        "tags": list(summary.tags),
        "classes": sorted(summary.classes),
        "title": summary.title,
        "source": summary.source,
    }


def summary_from_dict(
    data: Mapping[str, Any], options: SummaryOptions = DEFAULT_OPTIONS
) -> PageSummary:
    """Rebuild a summary saved by :func:`summary_to_dict`; raises RepresentativesError if broken."""
    try:
        bfs = {
            str(relation): "".join(chr(_CODE_BASE + int(code)) for code in codes)
            for relation, codes in data["bfs"].items()
        }
        parent_bfs = [int(p) for p in data["parent_bfs"]]
        level_starts = [int(x) for x in data["level_starts"]]
        tags = [str(t) for t in data["tags"]]
        classes = frozenset(str(c) for c in data.get("classes", ()))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RepresentativesError(f"broken page summary: {exc!r}") from exc
    n = len(parent_bfs)
    if len(tags) != n or any(len(seq) != n for seq in bfs.values()):
        raise RepresentativesError("broken page summary: node lists differ in length")
    if n and (parent_bfs[0] != -1 or any(not 0 <= p < i for i, p in enumerate(parent_bfs) if i)):
        raise RepresentativesError("broken page summary: parents are not in breadth-first order")
    return PageSummary(
        bfs=bfs,
        parent_bfs=parent_bfs,
        level_starts=level_starts,
        tags=tags,
        classes=classes,
        options=options,
        title=data.get("title"),
        source=data.get("source"),
    )


@dataclass
class Representative:
    """One discovered page type: its label, how many pages it had, and its representative page."""

    label: str
    size: int
    summary: PageSummary
    source: str | None = None
    title: str | None = None
    html: str | None = None
    examples: list[str] = field(default_factory=list)  # sources of a few pages of the type

    def to_dict(self, include_html: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "size": self.size,
            "source": self.source,
            "title": self.title,
            "examples": list(self.examples),
            "summary": summary_to_dict(self.summary),
        }
        if include_html and self.html is not None:
            out["html"] = self.html
        return out


def write_representatives(
    path: str | Path,
    representatives: Sequence[Representative],
    *,
    options: SummaryOptions,
    settings: Mapping[str, Any],
    include_html: bool = True,
) -> None:
    """Write the representatives file atomically (a crawl may be reading the previous one)."""
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "settings": dict(settings),
        "summary_options": options_to_dict(options),
        "clusters": [rep.to_dict(include_html) for rep in representatives],
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a unique name beside the target (same file system, so the rename is atomic); plain open()
    # so that the file gets the usual permissions
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(document, fh, ensure_ascii=True)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_representatives(
    path: str | Path, options: SummaryOptions | None = None
) -> tuple[list[Representative], dict[str, Any], SummaryOptions]:
    """Read a representatives file: (representatives, settings, the file's summary options).

    With ``options`` given and different from the file's, summaries are rebuilt from the stored
    HTML under ``options``; representatives without HTML are then skipped with a warning.
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RepresentativesError(f"cannot read {path}: {exc}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RepresentativesError(f"{path} is not a {FORMAT} file")
    version = document.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise RepresentativesError(
            f"{path} has format version {version!r}; this code reads up to {FORMAT_VERSION}"
        )
    file_options = options_from_dict(document.get("summary_options") or {})
    wanted = options or file_options
    reps: list[Representative] = []
    for number, entry in enumerate(document.get("clusters") or []):
        try:
            reps.append(_representative(entry, file_options, wanted))
        except (RepresentativesError, PageParseError, KeyError, TypeError, ValueError) as exc:
            logger.warning("%s: skipping representative #%d: %s", path, number, exc)
    return reps, dict(document.get("settings") or {}), file_options


def _representative(
    entry: Mapping[str, Any], file_options: SummaryOptions, wanted: SummaryOptions
) -> Representative:
    html = entry.get("html")
    source = entry.get("source")
    if wanted == file_options:
        summary = summary_from_dict(entry["summary"], wanted)
    elif isinstance(html, str):
        summary = summarize(html, wanted, source=source)
    else:
        raise RepresentativesError("summary options differ and no HTML is stored to rebuild it")
    return Representative(
        label=str(entry["label"]),
        size=int(entry.get("size", 1)),
        summary=summary,
        source=source,
        title=entry.get("title"),
        html=html if isinstance(html, str) else None,
        examples=[str(e) for e in entry.get("examples") or []],
    )


def templates_snippet(representatives: Sequence[Representative], examples: int = 3) -> str:
    """Python source of a ``PAGESIM_TEMPLATES`` setting with a few pages of each type."""
    lines = [
        "# Page types discovered by pagesim; rename the labels to something meaningful.",
        "PAGESIM_TEMPLATES = {",
    ]
    for rep in representatives:
        sources = []
        for source in [rep.source, *rep.examples]:
            if source and source not in sources:
                sources.append(source)
        sources = sources[: max(1, examples)]
        comment = f"  # {rep.size} page{'s' if rep.size != 1 else ''}"
        if rep.title:
            comment += f": {_one_line(rep.title, 60)}"
        if not sources:
            lines.append(f"    # {rep.label!r}: no source known for its representative{comment}")
            continue
        lines.append(f"    {rep.label!r}: [{comment}")
        lines.extend(f"        {source!r}," for source in sources)
        lines.append("    ],")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
