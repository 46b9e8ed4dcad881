"""Finding and reading saved pages on disk (files or folders; plain or gzip-compressed).

Framework-free: used by the command line, the benchmarks and template loading.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator
from pathlib import Path

#: File endings recognised as saved HTML pages when a folder is given. Other files in a folder
#: (test fixtures such as recipe-scrapers' ``.testhtml``, JSON, images) are left out; a file
#: named on its own is read whatever its ending.
PAGE_SUFFIXES: tuple[str, ...] = (".html", ".htm", ".html.gz", ".htm.gz")

#: Refuse to read more than this many bytes of one (decompressed) page: a guard against gzip bombs.
MAX_PAGE_BYTES = 64 * 1024 * 1024


class PageReadError(ValueError):
    """A page file could not be read (missing, unreadable, corrupt gzip, too large)."""


def is_page_file(path: Path, suffixes: tuple[str, ...] = PAGE_SUFFIXES) -> bool:
    name = path.name.lower()
    return any(name.endswith(suffix) for suffix in suffixes)


def iter_page_paths(
    paths: Iterable[str | Path], suffixes: tuple[str, ...] = PAGE_SUFFIXES
) -> Iterator[Path]:
    """Yield page files: a file as given, or the pages below a folder (those whose name ends
    with one of ``suffixes``), sorted."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(
                p for p in path.rglob("*") if p.is_file() and is_page_file(p, suffixes)
            )
        elif path.is_file():
            yield path
        else:
            raise PageReadError(f"no such file or folder: {path}")


def read_page_bytes(path: str | Path, max_bytes: int = MAX_PAGE_BYTES) -> bytes:
    """Read a page's raw bytes, decompressing ``.gz`` files, with a size limit."""
    path = Path(path)
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
