"""Checks of the user's template pages before a crawl starts: degenerate, mislabelled, clashing.

The classifier takes the given templates as they are, so a bad one silently skews every verdict:
a saved page whose ``<title>`` was never closed parses to a handful of nodes (the rest of the page
becomes title text), a template saved from a 404 or a bot check makes that label claim the site's
error pages, one page given under two labels makes those labels indistinguishable, and two
unrelated pages under one label make it two page types. :func:`check_templates` finds these from
the page summaries alone and says, per template, what is wrong and how it is handled; it changes
nothing (every template is kept). :func:`format_warnings` turns the findings into log lines.

Framework-free: the Scrapy layer calls it at start and logs the lines.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pagesim_scrapy.core.site import Features, SiteModel, site_similarity, structural_features
from pagesim_scrapy.core.summary import PageSummary

#: Warning kinds (stable codes, e.g. for tests, stats keys and filtering logs).
TINY = "tiny"
ERROR_PAGE = "error_page"
DUPLICATE = "duplicate"
UNLIKE = "unlike"
WARNING_KINDS: tuple[str, ...] = (TINY, ERROR_PAGE, DUPLICATE, UNLIKE)

#: A template with fewer elements than this is degenerate. An unclosed ``<title>`` turns a whole
#: Stack Overflow page (600-1,050 elements) into 4 (html, head, meta, title), an empty or
#: truncated save into a few more; the smallest of the 976 real pages of
#: ../shared/data/site_page_types has 53 (a Sphinx search page), most several hundred.
MIN_TEMPLATE_NODES = 20

#: Title wording of error, block and bot-check pages; matched case-insensitively as whole words
#: ("404" but not "E404", "error" but not "TypeError" nor the tag name "system-error").
ERROR_TITLE_WORDS: tuple[str, ...] = (
    "404",
    "not found",
    "page not found",
    "error",
    "forbidden",
    "403",
    "access denied",
    "503",
    "service unavailable",
    "bad gateway",
    "gateway timeout",
    "too many requests",
    "captcha",
    "just a moment",
    "attention required",
)

_ERROR_TITLE = re.compile(
    r"(?<![\w'-])(?:"
    + "|".join(r"\s+".join(map(re.escape, words.split())) for words in ERROR_TITLE_WORDS)
    + r")(?![\w'-])",
    re.IGNORECASE,
)

#: Only this much of a title is matched; an unclosed ``<title>`` makes the rest of the page its
#: text, and a word from the page body must not make it look like an error page.
_TITLE_CHARS = 200

#: Two templates of one label whose structural features (CSR parent -> child pairs, see
#: :func:`~pagesim_scrapy.core.site.structural_features`) have an unweighted Jaccard below this
#: share almost no structure. On real multi-type sites, this value sits at half the lowest
#: same-type pair and above every cross-site pair; sibling page types of one site share its
#: chrome and overlap the same-type range, so no cut tells them apart without flagging real
#: same-type pairs, and the site-weighted similarity overlaps as well. This check therefore
#: catches templates that are not of one kind at all (another site, another document, a broken
#: save), and reports the site-weighted figure beside the Jaccard for the reader.
UNLIKE_JACCARD = 0.05

#: At most this many pairs of one label's templates are compared for the ``unlike`` check (all
#: pairs of 50 templates): all pairs of thousands of templates would stall the start for
#: minutes, and a template unlike the rest is still met among its nearest neighbours in order.
UNLIKE_MAX_PAIRS = 1225


@dataclass(frozen=True, slots=True)
class TemplateWarning:
    """One finding about the templates of one label.

    ``kind`` is one of :data:`WARNING_KINDS`; ``message`` is one sentence saying what is wrong
    and how it is handled.
    """

    label: str
    source: str | None
    kind: str
    message: str


def _jaccard(a: Features, b: Features) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def _error_wording(title: str | None) -> str | None:
    """The error wording in a page title, or None."""
    if not title:
        return None
    title = title.split("<", 1)[0][:_TITLE_CHARS]
    match = _ERROR_TITLE.search(title)
    return " ".join(match.group().split()) if match else None


def _describe(label: str, index: int, source: str | None) -> str:
    where = f" ({source})" if source else ""
    return f"template {index + 1} of label {label!r}{where}"


def check_templates(
    templates: Mapping[str, Sequence[PageSummary]],
    sources: Mapping[str, Sequence[str]] | None = None,
) -> list[TemplateWarning]:
    """Find degenerate, error-page, duplicate and mutually unlike templates.

    ``templates`` maps each label to the summaries of its template pages; ``sources`` optionally
    names each template (parallel to ``templates``, e.g. file paths), otherwise a summary's own
    ``source`` is used. Warnings come per template first (``tiny``, ``error_page``), then per pair
    of labels (``duplicate``), then per pair of a label's templates (``unlike``), in input order.
    Nothing is changed or dropped: every template is still used as given.
    """
    names: dict[str, list[str | None]] = {}
    for label, summaries in templates.items():
        given = list(sources.get(label, ())) if sources is not None else []
        names[label] = [
            given[i] if i < len(given) else summary.source for i, summary in enumerate(summaries)
        ]
    features = {
        label: [structural_features(summary) for summary in summaries]
        for label, summaries in templates.items()
    }
    warnings: list[TemplateWarning] = []

    tiny: set[tuple[str, int]] = set()
    for label, summaries in templates.items():
        for i, summary in enumerate(summaries):
            source = names[label][i]
            what = _describe(label, i, source)
            if summary.n_nodes < MIN_TEMPLATE_NODES:
                tiny.add((label, i))
                warnings.append(
                    TemplateWarning(
                        label,
                        source,
                        TINY,
                        f"{what} has only {summary.n_nodes} elements (broken markup such as an "
                        "unclosed <title> swallowing the page, or an empty page); it is kept but "
                        "will match few pages, so replace it with a complete save of the page.",
                    )
                )
            wording = _error_wording(summary.title)
            if wording is not None:
                warnings.append(
                    TemplateWarning(
                        label,
                        source,
                        ERROR_PAGE,
                        f"{what} looks like an error page (its title {summary.title!r} says "
                        f"{wording!r}); it is kept as given, so the site's error pages will be "
                        f"classified as {label!r}: if it is not a real page of that type, "
                        "replace it.",
                    )
                )

    labels = list(templates)
    for first, second in itertools.combinations(labels, 2):
        clash = _first_duplicate(templates, features, first, second)
        if clash is not None:
            i, j = clash
            warnings.append(
                TemplateWarning(
                    first,
                    names[first][i],
                    DUPLICATE,
                    f"{_describe(first, i, names[first][i])} and "
                    f"{_describe(second, j, names[second][j])} are the same page, so labels "
                    f"{first!r} and {second!r} cannot be told apart on pages like it (both "
                    "score the same); both are kept, so remove it from the label it does not "
                    "belong to.",
                )
            )

    model = SiteModel()
    for label_features in features.values():
        for page_features in label_features:
            model.add(page_features, keep=False)
    for label, label_features in features.items():
        for i, j in template_pairs(len(label_features)):
            if (label, i) in tiny or (label, j) in tiny:
                continue  # already reported: its structure is broken, not of another kind
            a, b = label_features[i], label_features[j]
            jaccard = _jaccard(a, b)
            if jaccard >= UNLIKE_JACCARD:
                continue
            weighted = site_similarity(a, b, model)
            warnings.append(
                TemplateWarning(
                    label,
                    names[label][i],
                    UNLIKE,
                    f"{_describe(label, i, names[label][i])} and "
                    f"{_describe(label, j, names[label][j])} share almost no structure "
                    f"(Jaccard {jaccard:.3g}, site-weighted {weighted:.3g}), so label "
                    f"{label!r} may be two page types; both are kept and a page scores its "
                    "nearest template (the max), so each template still matches its own kind.",
                )
            )
    return warnings


def template_pairs(n: int, max_pairs: int = UNLIKE_MAX_PAIRS) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, of ``n`` templates to compare, in input order: all of
    them up to ``max_pairs``, else each template with the next few in a ring (a bounded,
    deterministic sample that still compares every template)."""
    if n * (n - 1) // 2 <= max_pairs:
        return list(itertools.combinations(range(n), 2))
    step = max(1, max_pairs // n)
    pairs = {
        (min(i, (i + k) % n), max(i, (i + k) % n)) for i in range(n) for k in range(1, step + 1)
    }
    return sorted((i, j) for i, j in pairs if i != j)


def _first_duplicate(
    templates: Mapping[str, Sequence[PageSummary]],
    features: Mapping[str, Sequence[Features]],
    first: str,
    second: str,
) -> tuple[int, int] | None:
    """Indexes of the first template of ``first`` that is also a template of ``second`` (by
    hashed structure, so the check stays linear in the number of templates)."""
    by_structure: dict[tuple[Features, str | None], int] = {}
    by_sequence: dict[str, int] = {}
    for j, b in enumerate(templates[second]):
        by_structure.setdefault((features[second][j], b.title), j)
        by_sequence.setdefault(b.bfs["csr"], j)
    for i, a in enumerate(templates[first]):
        found = [
            j
            for j in (
                by_structure.get((features[first][i], a.title)),
                by_sequence.get(a.bfs["csr"]),
            )
            if j is not None
        ]
        if found:
            return i, min(found)
    return None


def format_warnings(warnings: Sequence[TemplateWarning]) -> list[str]:
    """One log line per warning: ``template check [kind] message``."""
    return [f"template check [{warning.kind}] {warning.message}" for warning in warnings]
