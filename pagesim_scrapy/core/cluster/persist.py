"""Saving discovered page types: representatives as JSON, and a PAGESIM_TEMPLATES snippet.

A representative is stored with its page summary (compact: node codes as integers), so a later
crawl rebuilds it without the page; the page's HTML is stored too when known, so a person can
look at it or promote it to a template file. Summaries are only comparable under the same
summary options, which are stored alongside (all of them) and checked on load.

Loading checks everything (see :mod:`pagesim_scrapy.core.statefile`): nesting, number ranges,
the options, the settings, and each summary's shape (codes, breadth-first parents, levels). A
file whose frame is wrong raises :class:`RepresentativesError`; a broken representative inside
a sound file is skipped with a warning.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.statefile import (
    MAX_COUNT,
    check_bool,
    check_dict,
    check_int,
    check_int_list,
    check_nesting,
    check_number,
    check_str,
    check_str_list,
    describe_error,
    parse_json,
    write_atomic,
)
from pagesim_scrapy.core.summary import (
    DEFAULT_OPTIONS,
    RELATIONS,
    PageSummary,
    SummaryOptions,
    summarize,
)

logger = logging.getLogger(__name__)

FORMAT = "pagesim-discovery"
FORMAT_VERSION = 1
_CODE_BASE = 0x100  # summary codes start past the ASCII range (see summary.code_char)
_MAX_CODE = 0x10FFFF - _CODE_BASE
#: Broken representatives logged one by one before the rest are only counted.
_SKIP_LOG_LIMIT = 5


class RepresentativesError(ValueError):
    """A representatives file cannot be used (not JSON, other format, newer version...)."""


def options_to_dict(options: SummaryOptions) -> dict[str, Any]:
    return {
        "skip_tags": sorted(options.skip_tags),
        "rpsa_attributes": list(options.rpsa_attributes),
        "normalise_volatile": options.normalise_volatile,
        "max_depth": options.max_depth,
        "max_nodes": options.max_nodes,
    }


def options_from_dict(data: Any) -> SummaryOptions:
    """Summary options from :func:`options_to_dict`'s form (a missing one takes its default;
    files written before ``max_nodes`` was stored mean None). Raises RepresentativesError."""
    if not isinstance(data, Mapping):
        raise RepresentativesError("summary options must be an object")
    known = {f.name for f in fields(SummaryOptions)}
    unknown = set(data) - known
    if unknown:
        raise RepresentativesError(f"unknown summary options {sorted(map(str, unknown))[:10]}")
    kwargs: dict[str, Any] = dict(data)
    try:
        if "skip_tags" in kwargs:
            kwargs["skip_tags"] = frozenset(check_str_list(kwargs["skip_tags"], "skip_tags"))
        if "rpsa_attributes" in kwargs:
            attributes = check_str_list(kwargs["rpsa_attributes"], "rpsa_attributes")
            kwargs["rpsa_attributes"] = tuple(attributes)
        if "normalise_volatile" in kwargs:
            check_bool(kwargs["normalise_volatile"], "normalise_volatile")
        for name, low in (("max_depth", 0), ("max_nodes", 1)):
            if kwargs.get(name) is not None:
                check_int(kwargs[name], name, low)
        return SummaryOptions(**kwargs)
    except (TypeError, ValueError) as exc:
        raise RepresentativesError(f"bad summary options: {describe_error(exc)}") from exc


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
    """Rebuild a summary saved by :func:`summary_to_dict`; raises RepresentativesError if broken
    (types, code ranges, the relations, breadth-first parents, levels that match them)."""
    try:
        check_dict(data, "a summary")
        sequences = check_dict(data.get("bfs"), "bfs")
        if set(sequences) != set(RELATIONS):
            raise RepresentativesError(f"the relations must be {list(RELATIONS)}")
        bfs = {
            relation: "".join(
                chr(_CODE_BASE + code)
                for code in check_int_list(codes, f"bfs {relation}", 0, _MAX_CODE)
            )
            for relation, codes in sequences.items()
        }
        parent_bfs = list(check_int_list(data.get("parent_bfs"), "parent_bfs", -1, MAX_COUNT))
        level_starts = list(check_int_list(data.get("level_starts"), "level_starts"))
        tags = list(check_str_list(data.get("tags"), "tags"))
        classes = frozenset(check_str_list(data.get("classes", []), "classes"))
        title = check_str(data.get("title"), "title", optional=True)
        source = check_str(data.get("source"), "source", optional=True)
    except RepresentativesError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise RepresentativesError(f"broken page summary: {describe_error(exc)}") from exc
    n = len(parent_bfs)
    if len(tags) != n or any(len(seq) != n for seq in bfs.values()):
        raise RepresentativesError("broken page summary: node lists differ in length")
    if n and (parent_bfs[0] != -1 or any(not 0 <= p < i for i, p in enumerate(parent_bfs) if i)):
        raise RepresentativesError("broken page summary: parents are not in breadth-first order")
    if level_starts != _level_starts(parent_bfs):
        raise RepresentativesError("broken page summary: levels do not match the parents")
    return PageSummary(
        bfs=bfs,
        parent_bfs=parent_bfs,
        level_starts=level_starts,
        tags=tags,
        classes=classes,
        options=options,
        title=title,
        source=source,
    )


def _level_starts(parent_bfs: Sequence[int]) -> list[int]:
    """Where each depth begins, from breadth-first parents (checked already)."""
    starts: list[int] = []
    depths: list[int] = []
    for i, parent in enumerate(parent_bfs):
        depth = 0 if parent < 0 else depths[parent] + 1
        depths.append(depth)
        if depth == len(starts):
            starts.append(i)
        elif depth != len(starts) - 1:
            return []  # depths go down: not breadth-first
    return starts


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
    representatives: Iterable[Representative],
    *,
    options: SummaryOptions,
    settings: Mapping[str, Any],
    include_html: bool = True,
) -> None:
    """Write the representatives file atomically (a crawl may be reading the previous one).

    Written one representative at a time (``representatives`` may be a generator): the whole
    document as one string, with every page's HTML, took about 4.6 times the file's size at
    once (218 MB for a 47 MB file of 200 types).
    """
    header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "settings": dict(settings),
        "summary_options": options_to_dict(options),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # through ``.<name>.<pid>.<thread>.tmp`` beside the target (same file system, so the rename
    # is atomic); one left by a killed process is removed by the next crawl's start
    write_atomic(path, _document_pieces(header, representatives, include_html))


def _document_pieces(
    header: dict[str, Any], representatives: Iterable[Representative], include_html: bool
) -> Iterator[str]:
    """The text of ``json.dumps({**header, "clusters": [...]}, ensure_ascii=True)``, in pieces."""
    yield json.dumps(header, ensure_ascii=True)[:-1] + ', "clusters": ['
    for number, rep in enumerate(representatives):
        if number:
            yield ", "
        yield json.dumps(rep.to_dict(include_html), ensure_ascii=True)
    yield "]}"


def read_representatives(
    path: str | Path, options: SummaryOptions | None = None
) -> tuple[list[Representative], dict[str, Any], SummaryOptions]:
    """Read a representatives file: (representatives, settings, the file's summary options).

    With ``options`` given and different from the file's, summaries are rebuilt from the stored
    HTML under ``options``; representatives without HTML are then skipped with a warning.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RepresentativesError(f"cannot read {path}: {exc}") from exc
    return parse_representatives(text, options, name=str(path))


def parse_representatives(
    text: str, options: SummaryOptions | None = None, name: str = "discovery file"
) -> tuple[list[Representative], dict[str, Any], SummaryOptions]:
    """:func:`read_representatives` on the file's text; ``name`` names it in messages.

    Raises :class:`RepresentativesError` for anything wrong with the file as a whole (not JSON,
    nested too deep, numbers out of range, bad options or settings); a broken representative is
    skipped with a warning.
    """
    try:
        document = parse_json(text)
    except (ValueError, RecursionError) as exc:
        raise RepresentativesError(f"{name} is not valid JSON: {describe_error(exc)}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RepresentativesError(f"{name} is not a {FORMAT} file")
    version = document.get("version")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise RepresentativesError(
            f"{name} has format version {version!r}; this code reads up to {FORMAT_VERSION}"
        )
    file_options = options_from_dict(document.get("summary_options") or {})
    settings = _checked_settings(document.get("settings") or {})
    wanted = options or file_options
    clusters = document.get("clusters") or []
    if not isinstance(clusters, list):
        raise RepresentativesError(f"{name}: clusters must be a list")
    reps: list[Representative] = []
    skipped = 0
    for number, entry in enumerate(clusters):
        try:
            reps.append(_representative(entry, file_options, wanted))
        except Exception as exc:  # one broken representative costs only itself
            skipped += 1
            if skipped <= _SKIP_LOG_LIMIT:
                logger.warning(
                    "%s: skipping representative #%d: %s", name, number, describe_error(exc)
                )
    if skipped > _SKIP_LOG_LIMIT:
        logger.warning(
            "%s: skipping representative: %d more broken ones", name, skipped - _SKIP_LOG_LIMIT
        )
    return reps, settings, file_options


def _checked_settings(data: Any) -> dict[str, Any]:
    """The discovery settings stored in a file, checked (they may seed a discovery)."""
    if not isinstance(data, dict):
        raise RepresentativesError("settings must be an object")
    try:
        check_nesting(data)
        if data.get("method") is not None:
            check_str(data["method"], "method")
        if data.get("method_params") is not None:
            check_dict(data["method_params"], "method_params")
        if data.get("threshold") is not None:
            check_number(data["threshold"], "threshold", 0.0, 1.0)
        if data.get("closeness") is not None:
            check_number(data["closeness"], "closeness", 0.0, 1.0)
        if data.get("max_clusters") is not None:
            check_int(data["max_clusters"], "max_clusters", 1)
    except ValueError as exc:
        raise RepresentativesError(f"bad settings: {describe_error(exc)}") from exc
    return dict(data)


def _representative(
    entry: Any, file_options: SummaryOptions, wanted: SummaryOptions
) -> Representative:
    check_dict(entry, "a representative")
    html = check_str(entry.get("html"), "html", optional=True)
    source = check_str(entry.get("source"), "source", optional=True)
    label = check_str(entry.get("label"), "label")
    if not label or len(label) > 200:
        raise RepresentativesError("a label must have 1 to 200 characters")
    if wanted == file_options:
        summary = summary_from_dict(entry.get("summary"), wanted)
    elif html is not None:
        summary = summarize(html, wanted, source=source)
    else:
        raise RepresentativesError("summary options differ and no HTML is stored to rebuild it")
    return Representative(
        label=label,
        size=check_int(entry.get("size", 1), "size"),
        summary=summary,
        source=source,
        title=check_str(entry.get("title"), "title", optional=True),
        html=html,
        examples=list(check_str_list(entry.get("examples") or [], "examples")),
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
