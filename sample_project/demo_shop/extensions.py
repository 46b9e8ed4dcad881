"""Score pagesim's verdicts against the demo site's ground truth at the end of a crawl.

The demo site ships ``labels.json`` ({relative page path: page type}). For every response
this extension reads the verdict pagesim's downloader middleware put into the request meta
(``request.meta["pagesim"]["label"]``) and, when the spider closes, logs and stores in the
stats the precision, recall and F1 of each target label plus a confusion table.
A crawl without verdicts (pagesim disabled or its middleware missing) is reported as such,
never scored.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from scrapy import signals
from scrapy.exceptions import NotConfigured

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

#: Column name for responses pagesim left unmatched (label None).
UNMATCHED = "(none)"
#: Column name for pages that reached the downloader but whose response never arrived
#: (dropped by a middleware, e.g. pagesim in "drop" mode, or failed).
DROPPED = "(dropped)"
_NO_VERDICT = object()


def load_labels(path: Path) -> dict[str, str]:
    """Read ``{relative path: label}``; raise ValueError on anything else."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise ValueError(f"{path} must hold a JSON object of strings")
    return data


def page_key(url: str, labels: dict[str, str]) -> str | None:
    """Match a crawled URL to a labels.json key by its path, whatever the site root.

    Works for ``file:///any/dir/demo_site/p/1.html`` and ``http://host:port/p/1.html``
    alike: the longest path suffix that is a key wins.
    """
    segments = [s for s in unquote(urlsplit(url).path).split("/") if s]
    for start in range(len(segments)):
        key = "/".join(segments[start:])
        if key in labels:
            return key
    return None


@dataclass
class Score:
    """Precision, recall and F1 of one target label."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score(confusion: Counter[tuple[str, str]], target: str) -> Score:
    """Binary scores of ``target`` from a (true label, predicted label) confusion count."""
    tp = fp = fn = 0
    for (true, predicted), count in confusion.items():
        if predicted == target and true == target:
            tp += count
        elif predicted == target:
            fp += count
        elif true == target:
            fn += count
    return Score(tp, fp, fn)


def format_confusion(confusion: Counter[tuple[str, str]]) -> str:
    """A fixed-width table: one row per true label, one column per verdict."""
    rows = sorted({true for true, _ in confusion})
    columns = sorted({pred for _, pred in confusion if pred not in (UNMATCHED, DROPPED)})
    columns += [c for c in (UNMATCHED, DROPPED) if any(p == c for _, p in confusion)]
    corner = "true \\ verdict"
    first = max(len(c) for c in [*rows, corner]) + 2
    widths = [max(len(c), *(len(str(n)) for n in confusion.values())) + 2 for c in columns]
    lines = [
        "  "
        + corner.ljust(first)
        + "".join(c.rjust(w) for c, w in zip(columns, widths, strict=True))
    ]
    for true in rows:
        cells = "".join(
            str(confusion[(true, pred)]).rjust(w) for pred, w in zip(columns, widths, strict=True)
        )
        lines.append("  " + true.ljust(first) + cells)
    return "\n".join(lines)


class LabelAccuracyReport:
    """Compare each crawled page's pagesim label with ``labels.json`` at spider close."""

    def __init__(
        self,
        labels: dict[str, str],
        targets: list[str],
        stats: StatsCollector,
        pagesim_enabled: bool = True,
    ) -> None:
        self.labels = labels
        self.targets = targets
        self.stats = stats
        self.pagesim_enabled = pagesim_enabled
        self.verdicts: dict[str, Any] = {}
        self.requested: set[str] = set()
        self.unlabelled = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LabelAccuracyReport:
        settings = crawler.settings
        labels_file = settings.get("DEMO_LABELS_FILE")
        if not labels_file:
            raise NotConfigured("DEMO_LABELS_FILE is not set")
        try:
            labels = load_labels(Path(labels_file))
        except (OSError, ValueError) as exc:
            raise NotConfigured(f"cannot read DEMO_LABELS_FILE {labels_file}: {exc}") from exc
        # DEMO_TARGETS: the labels to score when every label is a target (PAGESIM_TARGETS empty)
        targets = settings.getlist("DEMO_TARGETS") or settings.getlist("PAGESIM_TARGETS")
        if not targets:
            raise NotConfigured("PAGESIM_TARGETS is empty: no target label to score")
        ext = cls(labels, targets, crawler.stats, settings.getbool("PAGESIM_ENABLED"))
        crawler.signals.connect(ext.request_reached_downloader, signals.request_reached_downloader)
        crawler.signals.connect(ext.response_received, signals.response_received)
        crawler.signals.connect(ext.spider_closed, signals.spider_closed)
        return ext

    def request_reached_downloader(self, request: Request) -> None:
        key = page_key(request.url, self.labels)
        if key is not None:
            self.requested.add(key)

    def response_received(self, response: Response, request: Request) -> None:
        key = page_key(response.url, self.labels)
        if key is None:
            self.unlabelled += 1
            return
        verdict = request.meta.get("pagesim")
        if isinstance(verdict, dict) and "label" in verdict:
            label = verdict["label"]
            self.verdicts[key] = UNMATCHED if label is None else str(label)
        else:
            self.verdicts[key] = _NO_VERDICT

    def spider_closed(self) -> None:
        self.report()

    def report(self) -> dict[str, Score]:
        """Log and store the scores; return them (empty when there is nothing to score)."""
        stats = self.stats
        if self.unlabelled:
            stats.set_value("demo/unlabelled_responses", self.unlabelled)
        missing = sorted(k for k, v in self.verdicts.items() if v is _NO_VERDICT)
        if missing:
            stats.set_value("demo/verdicts_missing", len(missing))
        confusion: Counter[tuple[str, str]] = Counter()
        for key, verdict in self.verdicts.items():
            if verdict is not _NO_VERDICT:
                confusion[(self.labels[key], verdict)] += 1
        if not confusion:
            why = (
                "PAGESIM_ENABLED is False"
                if not self.pagesim_enabled
                else "is the pagesim downloader middleware enabled?"
            )
            # Expected when pagesim was switched off; a problem when it was meant to run.
            logger.log(
                logging.INFO if not self.pagesim_enabled else logging.WARNING,
                "Label accuracy not computed: none of the %d labelled responses carries a "
                "pagesim verdict in request.meta['pagesim'] (%s)",
                len(self.verdicts),
                why,
            )
            return {}
        for key in self.requested - self.verdicts.keys():
            confusion[(self.labels[key], DROPPED)] += 1
        if missing:
            logger.warning(
                "%d labelled responses carry no pagesim verdict and are not scored, e.g. %s",
                len(missing),
                missing[0],
            )
        scores: dict[str, Score] = {}
        lines = []
        for target in self.targets:
            result = score(confusion, target)
            scores[target] = result
            stats.set_value(f"demo/{target}_precision", round(result.precision, 4))
            stats.set_value(f"demo/{target}_recall", round(result.recall, 4))
            stats.set_value(f"demo/{target}_f1", round(result.f1, 4))
            lines.append(
                f"  {target}: precision {result.precision:.2f}, recall {result.recall:.2f}, "
                f"F1 {result.f1:.2f} (tp {result.tp}, fp {result.fp}, fn {result.fn})"
            )
        for (true, predicted), count in sorted(confusion.items()):
            stats.set_value(f"demo/confusion/{true}/{predicted}", count)
        scored = sum(confusion.values())
        stats.set_value("demo/pages_scored", scored)
        logger.info(
            "Label accuracy of pagesim on %d demo pages (verdicts vs labels.json):\n%s\n%s",
            scored,
            "\n".join(lines),
            format_confusion(confusion),
        )
        return scores
