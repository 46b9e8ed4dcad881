"""``extract --wrapper wrapper.json PATH...``: one JSON line per page with its record.

With the core record, the pages are read twice: first every page teaches one
:class:`~pagesim_scrapy.core.record.naming.BodyNaming` which body fields its metadata names,
then each page's core record takes what its metadata lacks from those fields, so a page's
record does not depend on where it comes in the list."""

from __future__ import annotations

import argparse
from typing import Any

from pagesim_scrapy.cli._common import (
    CommandError,
    add_output_argument,
    output_stream,
    page_paths,
    write_jsonl,
)
from pagesim_scrapy.cli._progress import add_progress_argument, track
from pagesim_scrapy.core.induce import Wrapper, WrapperError
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes
from pagesim_scrapy.core.record import item_record
from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.build import fill_from_body, read_page
from pagesim_scrapy.core.record.naming import BodyNaming


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "extract",
        help="extract records from pages with a learned wrapper",
        description=(
            'Apply a wrapper (from `induce`) to saved pages: one line {"path", "record", "fit"} '
            'per page, plus "records" (the main region\'s groups, the records of a list page) '
            'with --records, and "reason" when a page does not fit. The record leads with the '
            "page's core record (standard names from its structured data; their sources in "
            '"sources", the page type in "page_type"), then the induced fields that add to it.'
        ),
    )
    parser.add_argument(
        "--induced-only",
        action="store_true",
        help="the wrapper's record as it is: no core record, no field dropped or renamed",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="saved pages or folders")
    parser.add_argument("-w", "--wrapper", required=True, metavar="WRAPPER.json")
    parser.add_argument(
        "--records",
        action="store_true",
        help="also emit the main region's groups as separate records",
    )
    parser.add_argument(
        "--rows",
        action="store_true",
        help='also emit "rows": the whole text of each label field\'s row ("ISBN-13: 978…")',
    )
    add_output_argument(parser, "records")
    add_progress_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        wrapper = Wrapper.load(args.wrapper)
    except WrapperError as exc:
        raise CommandError(str(exc)) from exc
    if wrapper.pages == 0:
        raise CommandError(f"{args.wrapper}: the wrapper has not learned any page")
    paths = page_paths(args.paths)
    naming = None if args.induced_only else learned_naming(paths)
    with output_stream(args.output) as out:
        for path in track(paths, args, "extracting"):
            try:
                page, error = read_page_bytes(path), None
            except PageReadError as exc:
                page, error = None, str(exc)
            line = extract_record(
                wrapper,
                str(path),
                page,
                error,
                records=args.records,
                rows=args.rows,
                core=not args.induced_only,
                naming=naming,
            )
            write_jsonl(out, line)
    return 0


def learned_naming(paths: list[Any]) -> BodyNaming:
    """The body naming the pages' metadata teaches (unreadable pages are skipped here; the
    extraction pass reports them)."""
    naming = BodyNaming()
    for path in paths:
        try:
            core, root = read_page(read_page_bytes(path))
        except PageReadError:
            continue
        naming.observe(core, body_fields(root))
    return naming


def _core_record(page: bytes, naming: BodyNaming | None) -> Any:
    core, root = read_page(page)
    if naming is None:
        return core
    return fill_from_body(naming, core, body_fields(root, "", naming.wanted()), root)


def extract_record(
    wrapper: Wrapper,
    path: str,
    page: bytes | None,
    error: str | None,
    *,
    records: bool = False,
    rows: bool = False,
    core: bool = False,
    naming: BodyNaming | None = None,
) -> dict[str, Any]:
    """One output line: the page's record and fit, or why it could not be read (shared with
    the Spark job). With ``core`` the record of a page that fits leads with the page's core
    record (its gaps filled from the body fields ``naming`` names)."""
    line: dict[str, Any] = {"path": path}
    if page is None:
        line.update(record={}, fit=0.0, reason=error)
        return line
    result = wrapper.extract(page)
    line.update(record=result.record, fit=round(result.fit, 4))
    # a page the wrapper does not fit is not taken for a page of its type: no record at all
    if core and not result.reason:
        composed = item_record(_core_record(page, naming), result.record)
        line["record"] = composed.record
        if composed.page_type:
            line.update(page_type=composed.page_type, sources=composed.sources)
    if records:
        line["records"] = result.records
    if rows:
        line["rows"] = result.rows
    if result.reason:
        line["reason"] = result.reason
    return line
