"""``content [--query Q] PATH…``: the main text of pages, and their relevance to a query."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from pagesim_scrapy.cli._common import (
    CommandError,
    add_output_argument,
    output_stream,
    page_paths,
    write_jsonl,
)
from pagesim_scrapy.cli._progress import add_progress_argument, track
from pagesim_scrapy.core.content import (
    SCOPES,
    ContentInputError,
    DocumentFrequencies,
    analyze_content,
    build_tree,
    tokenize,
)
from pagesim_scrapy.core.content.relevance import block_term_counts, page_terms
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes

logger = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "content",
        help="main text of pages and their relevance to a query",
        description="Write one JSON object per page: {path, score, main_text}. score is the "
        "page's relevance to --query in [0, 1] (TF-IDF cosine of the best content block, seed "
        "001), or null without a query. With a query, document frequencies are first learned "
        "over all the given pages. A page that cannot be read gets null fields and an 'error'.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="pages or folders of pages")
    parser.add_argument("-q", "--query", help="score each page's relevance to this text")
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        default="main",
        help="blocks that may carry the relevance: the main content and headline (main, "
        "default) or every block of the page (page)",
    )
    parser.add_argument(
        "--df",
        metavar="FILE.json",
        help="start from these document frequencies (written by --save-df)",
    )
    parser.add_argument(
        "--save-df",
        metavar="FILE.json",
        help="write the document frequencies learned over the pages here",
    )
    add_output_argument(parser, "one JSON object per page")
    add_progress_argument(parser)
    parser.set_defaults(handler=run)


def _load_df(path: str | None) -> DocumentFrequencies:
    if path is None:
        return DocumentFrequencies()
    try:
        return DocumentFrequencies.load(path)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def _learn(df: DocumentFrequencies, paths: list[Path], args: argparse.Namespace) -> dict[Path, str]:
    """First pass: add every readable page to ``df``; return the errors of the others."""
    errors: dict[Path, str] = {}
    for path in track(paths, args, "learning document frequencies"):
        try:
            tree = build_tree(read_page_bytes(path))
        except (PageReadError, ContentInputError) as exc:
            errors[path] = str(exc)
            continue
        df.add_page(page_terms(block_term_counts(tree)))
    logger.info("document frequencies: %d pages, %d terms", df.documents, len(df))
    return errors


def run(args: argparse.Namespace) -> int:
    query: str | None = args.query
    if query is not None and not tokenize(query):
        raise CommandError(f"--query {query!r} has no searchable words")
    paths = page_paths(args.paths)
    df = _load_df(args.df)
    errors: dict[Path, str] = {}
    if query is not None or args.save_df:
        errors = _learn(df, paths, args)
    if args.save_df:
        try:
            df.save(args.save_df)
        except OSError as exc:
            raise CommandError(f"cannot write {args.save_df}: {exc}") from exc
    failed = 0
    with output_stream(args.output) as stream:
        for path in track(paths, args, "analysing"):
            record: dict[str, Any] = {"path": str(path)}
            error = errors.get(path)
            if error is None:
                try:
                    result = analyze_content(
                        read_page_bytes(path), query=query, df=df, scope=args.scope
                    )
                except (PageReadError, ContentInputError) as exc:
                    error = str(exc)
                else:
                    record.update(score=result.score, main_text=result.main_text)
            if error is not None:
                failed += 1
                logger.warning("skipping %s: %s", path, error)
                record.update(score=None, main_text=None, error=error)
            write_jsonl(stream, record)
    if failed:
        logger.warning("%d of %d pages could not be read", failed, len(paths))
    return 0
