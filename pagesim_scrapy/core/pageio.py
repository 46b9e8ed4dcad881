"""Finding and reading saved pages on disk (files or folders; plain or gzip-compressed; WARC).

A WARC file (``.warc``, ``.warc.gz``: how crawls are archived) stands for the HTML pages it
holds: every ``response`` or ``resource`` record with an HTML content type (and, for responses,
HTTP status 200) is one page, named ``<file>#<offset>`` after the byte offset of its record, so
the commands read and report it like a file (warcio reads the records).

Framework-free: used by the command line, the benchmarks and template loading.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

#: File endings recognised as saved HTML pages when a folder is given. Other files in a folder
#: (test fixtures such as recipe-scrapers' ``.testhtml``, JSON, images) are left out; a file
#: named on its own is read whatever its ending.
PAGE_SUFFIXES: tuple[str, ...] = (".html", ".htm", ".html.gz", ".htm.gz")

#: File endings read as WARC files: every HTML record in them is a page.
WARC_SUFFIXES: tuple[str, ...] = (".warc", ".warc.gz")

_HTML_TYPES = ("text/html", "application/xhtml+xml")

#: Refuse to read more than this many bytes of one (decompressed) page: a guard against gzip bombs.
MAX_PAGE_BYTES = 64 * 1024 * 1024


class PageReadError(ValueError):
    """A page file could not be read (missing, unreadable, corrupt gzip, too large)."""


def is_page_file(path: Path, suffixes: tuple[str, ...] = PAGE_SUFFIXES) -> bool:
    name = path.name.lower()
    return any(name.endswith(suffix) for suffix in suffixes)


def iter_input_files(
    paths: Iterable[str | Path], suffixes: tuple[str, ...] = PAGE_SUFFIXES
) -> Iterator[tuple[Path, str]]:
    """(file, the argument it came from) for every page or WARC file the arguments name: a
    file as given, or the page and WARC files below a folder, sorted. WARC files are not
    opened here (a batch job hands each to a worker)."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and (is_page_file(p, suffixes) or is_page_file(p, WARC_SUFFIXES))
            ):
                yield found, str(raw)
        elif path.is_file():
            yield path, str(raw)
        else:
            raise PageReadError(f"no such file or folder: {path}")


def iter_page_paths(
    paths: Iterable[str | Path], suffixes: tuple[str, ...] = PAGE_SUFFIXES
) -> Iterator[Path]:
    """Yield page files: a file as given, or the pages below a folder (those whose name ends
    with one of ``suffixes``), sorted; a WARC file stands for its HTML records."""
    for path, _ in iter_input_files(paths, suffixes):
        if is_page_file(path, WARC_SUFFIXES):
            yield from warc_pages(path)
        else:
            yield path


def _is_html_record(record: Any) -> bool:
    if record.rec_type == "response":
        http = record.http_headers
        if http is None or http.get_statuscode() != "200":
            return False
        content_type = http.get_header("Content-Type") or ""
    elif record.rec_type == "resource":
        content_type = record.rec_headers.get_header("Content-Type") or ""
    else:
        return False
    return content_type.split(";", 1)[0].strip().lower() in _HTML_TYPES


def _html_records(
    path: Path, read: int | None = None
) -> Iterator[tuple[Path, str | None, bytes | None]]:
    """(``<file>#<offset>``, target URL, the first ``read`` bytes of the content or None) for
    every HTML page record of a WARC file."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    try:
        with path.open("rb") as fh:
            records = ArchiveIterator(fh)
            for record in records:
                if not str(record.format).startswith("warc"):
                    # warcio also reads the older ARC format, and takes a stray text line for it
                    raise PageReadError(f"{path} is not a WARC file (found {record.format!r})")
                if _is_html_record(record):
                    url = record.rec_headers.get_header("WARC-Target-URI")
                    # before the offset: warcio finds it by reading the record to its end
                    data = None if read is None else record.content_stream().read(read)
                    name = path.with_name(f"{path.name}#{records.get_record_offset()}")
                    yield name, url, data
    except (OSError, EOFError, ArchiveLoadFailed, ValueError, AttributeError, TypeError) as exc:
        # warcio meets malformed headers with AttributeError/TypeError as well
        raise PageReadError(f"cannot read the WARC file {path}: {exc}") from exc


def warc_pages(path: Path) -> Iterator[Path]:
    """``<file>#<offset>`` for every HTML page record of a WARC file."""
    for name, _, _ in _html_records(path):
        yield name


def warc_page_contents(
    path: Path, max_bytes: int = MAX_PAGE_BYTES
) -> Iterator[tuple[Path, str | None, bytes | None, str | None]]:
    """Every HTML page of a WARC file in one pass: (``<file>#<offset>``, target URL, content,
    error). A batch job reads a whole file this way instead of seeking to each record; a page
    over ``max_bytes`` gets the error :func:`read_page_bytes` would raise, not its content."""
    for name, url, data in _html_records(path, max_bytes + 1):
        if data is not None and len(data) > max_bytes:
            yield name, url, None, f"{name} is larger than {max_bytes} bytes"
        else:
            yield name, url, data, None


def _warc_record(path: Path) -> tuple[Path, int] | None:
    """(WARC file, record offset) when ``path`` names a record as :func:`warc_pages` does."""
    name, sep, offset = path.name.rpartition("#")
    if not sep or not offset.isdigit() or not is_page_file(Path(name), WARC_SUFFIXES):
        return None
    return path.with_name(name), int(offset)


def _read_warc_record(warc: Path, offset: int, max_bytes: int) -> bytes:
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    try:
        with warc.open("rb") as fh:
            fh.seek(offset)
            record = next(iter(ArchiveIterator(fh)), None)
            if record is None or not _is_html_record(record):
                raise PageReadError(f"no HTML record at offset {offset} of {warc}")
            data: bytes = record.content_stream().read(max_bytes + 1)
    except (OSError, EOFError, ArchiveLoadFailed, ValueError, AttributeError, TypeError) as exc:
        raise PageReadError(f"cannot read record {offset} of {warc}: {exc}") from exc
    return data


def read_page_bytes(path: str | Path, max_bytes: int = MAX_PAGE_BYTES) -> bytes:
    """Read a page's raw bytes, decompressing ``.gz`` files, with a size limit (a
    ``<file>#<offset>`` name reads that WARC record's content)."""
    path = Path(path)
    record = None if path.exists() else _warc_record(path)
    if record is not None:
        data = _read_warc_record(*record, max_bytes)
        if len(data) > max_bytes:
            raise PageReadError(f"{path} is larger than {max_bytes} bytes")
        return data
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
        else:
            with path.open("rb") as fh:
                data = fh.read(max_bytes + 1)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise PageReadError(f"cannot read {path}: {exc}") from exc
    if len(data) > max_bytes:
        raise PageReadError(f"{path} is larger than {max_bytes} bytes")
    return data
