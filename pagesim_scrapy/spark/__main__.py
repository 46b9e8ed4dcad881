"""``python -m pagesim_scrapy.spark classify|cluster|extract|drift …``, or this file given to
``spark-submit``: the local commands' jobs on Spark, writing a folder of JSON Lines or Parquet.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pagesim_scrapy.cli._common import CommandError, jsonl_line
from pagesim_scrapy.cli._method import (
    SITE_METHOD,
    add_method_arguments,
    method_params,
    parse_max_nodes,
    summary_options,
)
from pagesim_scrapy.cli.classify import (
    add_template_argument,
    add_threshold_argument,
    parse_templates,
    parse_threshold,
)
from pagesim_scrapy.cli.cluster import add_cluster_arguments, cluster_options
from pagesim_scrapy.cli.drift import EXIT_CHANGED, example_names, example_pages
from pagesim_scrapy.core.induce import Wrapper, WrapperError
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes
from pagesim_scrapy.settings import DEFAULT_MAX_NODES
from pagesim_scrapy.spark.cluster_sites import cluster_sites_job
from pagesim_scrapy.spark.jobs import (
    SITE_KEYS,
    ClassifierSpec,
    JobInput,
    classify_job,
    cluster_job,
    drift_job,
    extract_job,
    list_inputs,
    write_records,
)

logger = logging.getLogger("pagesim_scrapy.spark")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pagesim_scrapy.spark",
        description="Run classify, cluster or extract on Spark over WARC files or folders of "
        "saved pages; the output folder holds the local command's lines (JSON Lines, in input "
        "order) or the same fields as Parquet.",
    )
    parser.add_argument(
        "--master",
        help="Spark master URL (default: spark-submit's, else local[*])",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    classify = commands.add_parser("classify", help="label pages by their nearest templates")
    _common(classify)
    add_template_argument(classify)
    add_method_arguments(classify, default=SITE_METHOD, site=True)
    add_threshold_argument(classify)
    classify.add_argument(
        "--site",
        choices=SITE_KEYS,
        default="host",
        help="method 'site': what one site is (default host: the host of a WARC record's URL, "
        "or for a page file the argument it came from; input: the argument; all: every page, "
        "as the local command treats the pages it is given)",
    )

    cluster = commands.add_parser("cluster", help="discover page types by clustering")
    _common(cluster)
    add_cluster_arguments(cluster)
    cluster.add_argument(
        "--site",
        choices=SITE_KEYS,
        default="all",
        help="what one site is: all (default) clusters every page as one set, as the local "
        "command clusters the pages it is given; host (the host of a WARC record's URL, or for a "
        "page file the argument it came from) or input (the argument) clusters each site in one "
        "task, as the local command clusters one site's pages (cluster names under the site)",
    )

    extract = commands.add_parser("extract", help="extract records with a learned wrapper")
    _common(extract)
    extract.add_argument("-w", "--wrapper", required=True, metavar="WRAPPER.json")
    extract.add_argument("--records", action="store_true", help="also emit the region's groups")
    extract.add_argument("--rows", action="store_true", help='also emit "rows"')
    extract.add_argument(
        "--induced-only",
        action="store_true",
        help="the wrapper's record as it is: no core record, no field dropped or renamed",
    )
    drift = commands.add_parser(
        "drift", help="did a site's page types change their look between two sets of pages?"
    )
    drift.add_argument("old", metavar="OLD", help="the baseline: WARC files or pages, or a folder")
    drift.add_argument("new", metavar="NEW", help="the pages to check, as OLD")
    drift.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="output folder (must not exist)"
    )
    drift.add_argument(
        "--site-name",
        default="",
        metavar="NAME",
        help="the site of page files (WARC records are grouped by the host of their URL)",
    )
    drift.add_argument(
        "--max-nodes",
        type=parse_max_nodes,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help="summarise at most N elements per page, as the crawl does ('none': whole trees)",
    )
    return parser


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="WARC files, pages, or folders of them"
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="output folder (must not exist)"
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default="jsonl",
        help="JSON Lines text parts (default) or Parquet",
    )


def spark_session(master: str | None, command: str) -> Any:
    """The session: spark-submit's when it launched us, else a local one."""
    try:
        from pyspark import SparkConf
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise CommandError('PySpark is not installed: pip install "pagesim-scrapy[spark]"') from exc
    # workers run the same Python as the driver unless told otherwise
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(f"pagesim {command}").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if master:
        builder = builder.master(master)
    elif not SparkConf().contains("spark.master"):
        builder = builder.master("local[*]")
    return builder.getOrCreate()


def run(args: argparse.Namespace, spark: Any) -> dict[str, Any]:
    """Run the job ``args`` asks for on ``spark``; returns the job's figures."""
    if os.path.exists(args.output):
        raise CommandError(f"{args.output} exists: give a new output folder")
    try:
        inputs = list_inputs([args.old] if args.command == "drift" else args.paths)
    except PageReadError as exc:
        raise CommandError(str(exc)) from exc
    started = time.perf_counter()
    stats: dict[str, Any] = {"files": len(inputs)}
    if args.command == "drift":
        stats.update(_drift(args, spark, inputs))
        stats["seconds"] = round(time.perf_counter() - started, 3)
        return stats
    if args.command == "classify":
        lines = classify_job(spark, inputs, _classifier_spec(args), args.site)
    elif args.command == "cluster":
        try:
            lines, stats_cluster = _cluster(args, spark, inputs)
        except ValueError as exc:
            raise CommandError(f"nothing clustered: {exc}") from exc
        stats.update(stats_cluster)
    else:
        lines = extract_job(
            spark,
            inputs,
            _wrapper(args.wrapper),
            records=args.records,
            rows=args.rows,
            core=not args.induced_only,
        )
    write_records(spark, lines, args.output, args.format, args.command, inputs)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    return stats


def _cluster(
    args: argparse.Namespace, spark: Any, inputs: list[JobInput]
) -> tuple[Any, dict[str, Any]]:
    """The cluster job the ``--site`` grouping asks for."""
    options, summaries = cluster_options(args), summary_options(args)
    if args.site == "all":
        return cluster_job(spark, inputs, options, summaries)
    return cluster_sites_job(spark, inputs, options, summaries, args.site)


def _drift(args: argparse.Namespace, spark: Any, old: list[JobInput]) -> dict[str, Any]:
    """Run the drift job, write one JSON line per (site, label) as the local ``drift --json``
    prints them; the figures say how many changed (the exit status then says so)."""
    try:
        new = list_inputs([args.new])
    except PageReadError as exc:
        raise CommandError(str(exc)) from exc
    options = summary_options(args)
    reports = drift_job(spark, old, new, options, args.site_name)
    if not reports:
        raise CommandError(f"no pages in {args.new}")
    names = example_names([page for report in reports for page in example_pages(report)], options)
    lines = []
    for report in reports:
        report.name_features(names)
        lines.append(jsonl_line(report.as_dict()))
    spark.sparkContext.parallelize(lines, 1).saveAsTextFile(args.output)
    return {
        "new_files": len(new),
        "labels": len(reports),
        "changed": sum(report.drifted for report in reports),
    }


def _classifier_spec(args: argparse.Namespace) -> ClassifierSpec:
    templates = parse_templates(args.template)
    try:
        pages = {
            label: [(str(path), read_page_bytes(path)) for path in paths]
            for label, paths in templates.items()
        }
    except PageReadError as exc:
        raise CommandError(f"templates: {exc}") from exc
    spec = ClassifierSpec(
        pages,
        args.method,
        method_params(args),
        parse_threshold(args.threshold),
        summary_options(args),
    )
    try:
        spec.build()  # a bad template or parameter is the user's error, found before the job
    except ValueError as exc:
        raise CommandError(f"templates: {exc}") from exc
    return spec


def _wrapper(path: str) -> Wrapper:
    try:
        wrapper = Wrapper.load(path)
    except WrapperError as exc:
        raise CommandError(str(exc)) from exc
    if wrapper.pages == 0:
        raise CommandError(f"{path}: the wrapper has not learned any page")
    return wrapper


def main(argv: Sequence[str] | None = None, spark: Any = None) -> int:
    """Exit status: 0 done, 2 a user error (reported on stderr), 3 ``drift`` found a (site,
    label) changed, as the local command. ``spark``: a session to use
    (kept open) instead of starting one."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    own = spark is None
    try:
        if own:
            spark = spark_session(args.master, args.command)
        stats = run(args, spark)
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if own and spark is not None:
            spark.stop()
    logger.info("%s: %s -> %s", args.command, stats, Path(args.output))
    return EXIT_CHANGED if stats.get("changed") else 0


if __name__ == "__main__":
    sys.exit(main())
