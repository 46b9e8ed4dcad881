"""``cluster PATH…``: discover page types by clustering pages by structure.

Writes one JSON object per page (``{"path", "cluster"}``), and on request an HTML report, a
representatives file that a crawl's discovery can continue from, and a ready
``PAGESIM_TEMPLATES`` snippet. Pages are read and summarised one at a time, so memory follows
the number of distinct layouts rather than the number of pages.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pagesim_scrapy.cli._common import (
    CommandError,
    add_output_argument,
    output_stream,
    page_paths,
    write_jsonl,
)
from pagesim_scrapy.cli._method import (
    SITE_METHOD,
    add_method_arguments,
    method_params,
    summary_options,
)
from pagesim_scrapy.cli._progress import StageBars, add_progress_argument
from pagesim_scrapy.core.cluster import (
    ALGORITHMS,
    CLOSENESS,
    DEFAULT_ALGORITHM,
    METHOD_THRESHOLDS,
    Clustering,
    ClusterOptions,
    adjusted_rand_index,
    cluster_pages,
    templates_snippet,
)
from pagesim_scrapy.core.cluster.pipeline import LONE, OVERLAP
from pagesim_scrapy.core.pageio import PageReadError
from pagesim_scrapy.core.summary import PageParseError, PageSummary, summarize

logger = logging.getLogger(__name__)


def _unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within [0, 1], not {value}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "cluster",
        help="discover page types by clustering pages by structure",
        description="Group pages by structural similarity (seed 003 agglomerative, seed 004 "
        "shared nearest neighbours, or a single-pass online procedure); candidate pairs come "
        "from MinHash LSH, so large page sets do not cost n² comparisons. Writes one JSON "
        'object per page: {"path", "cluster"}.',
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="pages or folders of pages")
    add_cluster_arguments(parser)
    add_output_argument(parser, 'one JSON object per page, {"path", "cluster"}')
    parser.add_argument("--report", metavar="FILE.html", help="write an HTML report here")
    parser.add_argument(
        "--templates-snippet",
        action="store_true",
        help="print a ready PAGESIM_TEMPLATES = {...} built from the clusters (to stdout; the "
        "per-page lines then need --output FILE)",
    )
    parser.add_argument(
        "--save",
        metavar="FILE.json",
        help="write the clusters' representatives here (a crawl's discovery can load them)",
    )
    parser.add_argument(
        "--labels-from-folders",
        action="store_true",
        help="treat each page's folder name as its known type: report the adjusted Rand index",
    )
    parser.add_argument(
        "--verdicts",
        metavar="FILE.jsonl",
        help="output of the classify command: add its score histograms to the report",
    )
    add_progress_argument(parser)
    parser.set_defaults(handler=run)


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """Method, algorithm and thresholds (shared with the Spark job)."""
    add_method_arguments(parser, default=SITE_METHOD, site=True)
    parser.add_argument(
        "-a",
        "--algorithm",
        choices=ALGORITHMS,
        default=DEFAULT_ALGORITHM,
        help=f"clustering procedure (default: {DEFAULT_ALGORITHM})",
    )
    defaults = "; ".join(
        f"{method}: " + ", ".join(f"{name} {value}" for name, value in values.items())
        for method, values in METHOD_THRESHOLDS.items()
    )
    tuning = parser.add_argument_group(
        "thresholds", f"defaults depend on --method and were measured on real pages ({defaults})"
    )
    tuning.add_argument("--q-a", type=_unit_float, help="agglomerative: auto-similarity Q_a")
    tuning.add_argument("--q-c", type=_unit_float, help="agglomerative: pair similarity Q_c")
    tuning.add_argument("--k", type=_positive_int, default=30, help="snn: neighbours (30)")
    tuning.add_argument("--t-n", type=_unit_float, help="snn: near-neighbour similarity")
    tuning.add_argument(
        "--k-p", type=_unit_float, default=0.85, help="snn: shared-neighbour share (0.85)"
    )
    tuning.add_argument("--threshold", type=_unit_float, help="online: similarity to join")
    tuning.add_argument(
        "--condense", type=_unit_float, help="similarity to fold near-duplicates into one item"
    )
    tuning.add_argument(
        "--closeness",
        type=_unit_float,
        help="batch: merge two clusters whose pages are this share as alike as the pages within "
        f"the looser of them; 0 turns it off (default: {_closeness_defaults()})",
    )
    # Off by default here: the command weighs all the pages it is given as one site, and across
    # several sites each site's chrome is not discounted, so containment merges a site's types.
    tuning.add_argument(
        "--overlap",
        type=_unit_float,
        default=0.0,
        help="batch, one site's pages: merge clusters whose smaller pages are this much "
        f"contained in the larger ones ({OVERLAP['site']} for one site; default 0: off)",
    )
    tuning.add_argument(
        "--lone",
        type=_unit_float,
        default=0.0,
        help="batch, one site's pages: a lone page joins the cluster it overlaps this share as "
        f"much as the cluster's pages overlap each other ({LONE['site']} for one site; "
        "default 0: off)",
    )


def _closeness_defaults() -> str:
    return ", ".join(f"{method} {value}" for method, value in CLOSENESS.items()) + ", else 0"


def cluster_options(args: argparse.Namespace) -> ClusterOptions:
    """The clustering options the arguments ask for."""
    try:
        return ClusterOptions(
            algorithm=args.algorithm,
            method=args.method,
            method_params=method_params(args),
            q_a=args.q_a,
            q_c=args.q_c,
            k=args.k,
            t_n=args.t_n,
            k_p=args.k_p,
            threshold=args.threshold,
            condense=args.condense,
            closeness=args.closeness,
            overlap=args.overlap,
            lone=args.lone,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def _read_verdicts(path: str) -> list[dict[str, Any]]:
    verdicts = []
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise CommandError(f"{path}:{number}: not JSON: {exc}") from exc
                if isinstance(record, dict):
                    verdicts.append(record)
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc
    return verdicts


def run(args: argparse.Namespace) -> int:
    options = cluster_options(args)
    paths = page_paths(args.paths)
    verdicts = _read_verdicts(args.verdicts) if args.verdicts else None
    errors: dict[int, str] = {}  # path index -> why it was left out
    clustered: list[int] = []  # path index of every clustered page, in order

    summary_opts = summary_options(args)

    progress = StageBars(args)
    # Method 'site' reads every page before condensing (the site's weights come first): its
    # reading gets a bar of its own. The other methods read each page as it is condensed.
    reading = options.method == SITE_METHOD

    def summaries() -> Iterator[PageSummary]:
        for index, path in enumerate(paths):
            if reading:
                progress("reading", index, len(paths))
            try:
                summary = summarize(path, summary_opts)
            except (PageReadError, PageParseError) as exc:
                logger.warning("skipping %s: %s", path, exc)
                errors[index] = str(exc)
                continue
            clustered.append(index)
            yield summary
        if reading:
            progress("reading", len(paths), len(paths))

    with progress:
        try:
            result = cluster_pages(summaries(), options, progress=progress, total=len(paths))
        except ValueError as exc:
            raise CommandError(f"nothing clustered: {exc}") from exc
    logger.info(
        "%d pages in %d clusters (%s, %s; %d leaders, %.1f s)",
        len(clustered),
        len(result.clusters),
        options.algorithm,
        options.method,
        result.stats["leaders"],
        result.stats["seconds_condense"]
        + result.stats["seconds_compare"]
        + result.stats["seconds_cluster"],
    )
    labels = result.labels()
    truth = [paths[index].parent.name for index in clustered] if args.labels_from_folders else None
    if truth is not None:
        logger.info(
            "adjusted Rand index against folder names: %.4f", adjusted_rand_index(truth, labels)
        )

    cluster_of = dict(zip(clustered, labels))
    write_lines = not (args.templates_snippet and args.output in (None, "-"))
    if write_lines:
        with output_stream(args.output) as stream:
            for index, path in enumerate(paths):
                record: dict[str, Any] = {"path": str(path), "cluster": cluster_of.get(index)}
                if index in errors:
                    record["error"] = errors[index]
                write_jsonl(stream, record)
    else:
        logger.info("per-page clusters not written: give --output FILE to get them too")
    if args.save:
        try:
            result.save(args.save)
        except OSError as exc:
            raise CommandError(f"cannot write {args.save}: {exc}") from exc
        logger.info("representatives written to %s", args.save)
    if args.report:
        from pagesim_scrapy.reports import clustering_report, write_report

        text = clustering_report(result, truth=truth, verdicts=verdicts)
        try:
            write_report(args.report, text)
        except OSError as exc:
            raise CommandError(f"cannot write {args.report}: {exc}") from exc
        logger.info("report written to %s", args.report)
    if args.templates_snippet:
        sys.stdout.write(_snippet(result))
        sys.stdout.flush()
    return 0


def _snippet(result: Clustering, examples: int = 3) -> str:
    """The templates snippet with page paths made absolute, so it works from a project folder."""
    reps = result.representatives(examples)
    for rep in reps:
        rep.source = _absolute(rep.source)
        rep.examples = [_absolute(source) or source for source in rep.examples]
    return templates_snippet(reps, examples)


def _absolute(source: str | None) -> str | None:
    if source and "://" not in source:
        return str(Path(source).resolve())
    return source
