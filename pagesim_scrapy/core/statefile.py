"""Files that carry state from one crawl to the next (learned wrappers, discovered page types).

A saved state file is input like any other: it can be truncated by a crash, edited by hand,
written by another version, or hostile. This module holds what every such file needs:

* :func:`parse_json`: JSON with bounded nesting and finite numbers only (``1e400`` and
  ``NaN`` are refused rather than becoming ``inf``/``nan`` deep inside the state);
* small type checks (:func:`check_int`, :func:`check_number`, :func:`check_str`, ...) for the
  hand-written validators of each format, which raise :class:`StateFormatError`;
* :func:`read_state`: read a file and parse it; any failure to parse or validate moves the file
  aside (``<name>.corrupt``, ``<name>.corrupt.1``, ... — an earlier one is never overwritten)
  and raises :class:`CorruptStateError` naming the file, the reason and where it went, so the
  caller logs once and goes on with fresh state;
* :func:`write_atomic` and :func:`remove_stale_temp_files`: saves go through a temporary file
  named ``.<name>.<pid>.<thread>.tmp`` beside the target; one left behind by a killed process
  is removed at the next start (only files of exactly that form, of a process that is gone or
  older than :data:`STALE_TEMP_AGE`).

Framework-free: no Scrapy import.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "MAX_NESTING",
    "STALE_TEMP_AGE",
    "CorruptStateError",
    "StateFormatError",
    "move_aside",
    "parse_json",
    "read_state",
    "remove_stale_temp_files",
    "temp_path",
    "write_atomic",
]

T = TypeVar("T")

#: Deepest nesting of arrays/objects accepted in a state file (the formats need under 10).
MAX_NESTING = 32
#: Largest integer accepted where a count or an index is expected.
MAX_COUNT = 2**53
#: A temporary file of a process that still runs is left alone unless it is older than this.
STALE_TEMP_AGE = 3600.0
#: How many ``.corrupt.N`` names are tried before giving up on moving a file aside.
MAX_CORRUPT_COPIES = 1000

_TEMP_RE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d{1,10})\.(?P<thread>\d{1,20})\.tmp$")


class StateFormatError(ValueError):
    """A state file's content does not match its format."""


class CorruptStateError(ValueError):
    """A state file that cannot be used; it was moved to ``moved_to`` (None if it could not be)."""

    def __init__(self, path: Path, reason: str, moved_to: Path | None) -> None:
        self.path = path
        self.reason = reason
        self.moved_to = moved_to
        where = f"moved to {moved_to.name}" if moved_to is not None else "could not be moved aside"
        super().__init__(f"{path}: {reason} ({where})")


# --- parsing and checking ----------------------------------------------------------------------


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StateFormatError(f"number out of range: {text[:40]}")
    return value


def _no_constant(text: str) -> Any:
    raise StateFormatError(f"{text} is not a number a state file may hold")


def parse_json(text: str, max_nesting: int = MAX_NESTING) -> Any:
    """Parse JSON text, refusing non-finite numbers and nesting deeper than ``max_nesting``.

    Very deep input raises RecursionError inside the JSON decoder itself; callers that must
    survive anything (:func:`read_state`) catch it with the rest.
    """
    value = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    check_nesting(value, max_nesting)
    return value


def check_nesting(value: Any, max_nesting: int = MAX_NESTING) -> None:
    """Raise StateFormatError when lists/dicts nest deeper than ``max_nesting`` (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            children: Any = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth > max_nesting:
            raise StateFormatError(f"nested deeper than {max_nesting} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:39] + "…"


def check_int(value: Any, what: str, low: int = 0, high: int = MAX_COUNT) -> int:
    if type(value) is not int or not low <= value <= high:
        raise StateFormatError(f"{what} must be an integer in [{low}, {high}], not {_show(value)}")
    return value


def check_number(value: Any, what: str, low: float, high: float) -> float:
    if type(value) not in (int, float) or not low <= value <= high:
        raise StateFormatError(f"{what} must be a number in [{low}, {high}], not {_show(value)}")
    return float(value)


def check_bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise StateFormatError(f"{what} must be true or false, not {_show(value)}")
    return value


def check_str(value: Any, what: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise StateFormatError(f"{what} must be a string, not {_show(value)}")
    return value


def check_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise StateFormatError(f"{what} must be a list, not {_show(value)}")
    return value


def check_dict(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StateFormatError(f"{what} must be an object, not {_show(value)}")
    return value


def check_str_list(value: Any, what: str) -> list[str]:
    for item in check_list(value, what):
        check_str(item, f"an item of {what}")
    return value


def check_int_list(value: Any, what: str, low: int = 0, high: int = MAX_COUNT) -> list[int]:
    for item in check_list(value, what):
        check_int(item, f"an item of {what}", low, high)
    return value


# --- reading -------------------------------------------------------------------------------------


def read_document(text: str, file_format: str, newest_version: int) -> dict[str, Any]:
    """A state file's JSON object after its ``format`` and ``version`` are checked: a file of
    another format, or written by a newer pagesim, raises :class:`StateFormatError`."""
    document = check_dict(parse_json(text), "the file")
    if document.get("format") != file_format:
        raise StateFormatError(f"not a {file_format} file")
    version = check_int(document.get("version"), "version", 1)
    if version > newest_version:
        raise StateFormatError(
            f"version {version} is newer than this pagesim reads ({newest_version})"
        )
    return document


def describe_error(exc: BaseException, limit: int = 300) -> str:
    """One line for a log: the exception type (unless a format error) and its message."""
    text = str(exc) if isinstance(exc, StateFormatError) else f"{type(exc).__name__}: {exc}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_state(path: str | Path, parse: Callable[[str], T]) -> T | None:
    """Read and parse a state file; None when there is none.

    An OSError while reading (permissions, a folder in the way) is raised as it is: the file
    may be fine. Anything else — not UTF-8, not JSON, too deep, wrong types or ranges, any
    exception from ``parse`` — moves the file aside and raises :class:`CorruptStateError`.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return parse(data.decode("utf-8"))
    except Exception as exc:  # any failure means the file cannot be used, whatever it was
        raise CorruptStateError(path, describe_error(exc), move_aside(path)) from exc


def move_aside(path: Path) -> Path | None:
    """Rename ``path`` to the first free ``<name>.corrupt[.N]``; None when that fails."""
    for number in range(MAX_CORRUPT_COPIES):
        suffix = ".corrupt" if number == 0 else f".corrupt.{number}"
        target = path.with_name(path.name + suffix)
        if target.exists():
            continue
        try:
            os.link(path, target)  # fails if the target appeared meanwhile: never clobbers
        except FileExistsError:
            continue
        except OSError:
            try:  # no hard links on this file system
                if target.exists():
                    continue
                os.rename(path, target)
            except OSError:
                return None
            return target
        try:
            path.unlink()
        except OSError:
            return None
        return target
    return None


# --- writing -------------------------------------------------------------------------------------


def temp_path(path: Path) -> Path:
    """The temporary name a save of ``path`` writes first (unique per process and thread)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def write_atomic(path: str | Path, text: str | Iterable[str]) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: readers see the old file
    or the new one, never half of one; the temporary file is removed when the write fails.

    ``text`` may come in pieces (an iterable of strings), so that a large file is never one
    string in memory."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            if isinstance(text, str):
                fh.write(text)
            else:
                for piece in text:
                    fh.write(piece)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _process_gone(pid: int) -> bool:
    if os.name != "posix" or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, OSError):
        return False
    return False


def remove_stale_temp_files(
    directory: str | Path,
    names: Callable[[str], bool],
    max_age: float = STALE_TEMP_AGE,
) -> list[Path]:
    """Remove the temporary files that saves of this module left in ``directory``.

    Only files named ``.<name>.<pid>.<thread>.tmp`` with ``names(name)`` true are considered,
    and only those whose process is gone or that are older than ``max_age`` seconds (a save in
    progress in another live crawl keeps its file). Returns the removed paths.
    """
    directory = Path(directory)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = _TEMP_RE.match(entry.name)
        if match is None or not names(match.group("name")):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            age = now - entry.stat(follow_symlinks=False).st_mtime
            if not (_process_gone(int(match.group("pid"))) or age > max_age):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed
