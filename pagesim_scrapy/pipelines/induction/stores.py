"""Where wrappers live between crawls: the store protocol, the JSON files, and the pipeline's
load/open/save steps that never let a store's failure stop the crawl."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.project import data_path

from pagesim_scrapy.core.induce import Wrapper, WrapperError
from pagesim_scrapy.core.record.signatures import SignatureMemory, memory_text, parse_memory
from pagesim_scrapy.core.statefile import (
    CorruptStateError,
    describe_error,
    read_state,
    remove_stale_temp_files,
    write_atomic,
)
from pagesim_scrapy.settings import DEFAULTS, InductionConfig, read_setting, shared_state_url

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

    from pagesim_scrapy.pipelines.induction.learning import LabelState

#: One logger for the whole induction pipeline (its log lines name the package).
logger = logging.getLogger(__package__)

STATS_PREFIX = "pagesim/induction"
#: Stats of the files kept between crawls (shared with the discovery file).
STATE_STATS_PREFIX = "pagesim/state"


class WrapperStore(Protocol):
    """Where wrappers live between crawls. A store class is built with
    ``build_from_crawler`` (so it may define ``from_crawler``).

    ``load`` may raise anything: the pipeline logs it and learns the label afresh (it counts a
    :class:`~pagesim_scrapy.core.statefile.CorruptStateError` as a corrupt file). A store may
    also define ``open()``, called when the spider opens, returning the stale temporary files
    it removed."""

    def load(self, label: str) -> Wrapper | None: ...

    def save(self, label: str, wrapper: Wrapper) -> None: ...


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class JsonFileWrapperStore:
    """One JSON file per label in a folder (default: ``.scrapy/pagesim/wrappers``)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        directory = read_setting(crawler.settings, "PAGESIM_INDUCTION_DIR") or data_path(
            "pagesim/wrappers"
        )
        return cls(directory)

    def path_for(self, label: str) -> Path:
        """A file name from the label that cannot leave the folder."""
        name = _UNSAFE.sub("_", label).strip("._") or "label"
        return self.directory / f"{name}.json"

    def open(self) -> list[Path]:
        """Remove the temporary files that a killed crawl's saves left in the folder (see
        :func:`~pagesim_scrapy.core.statefile.remove_stale_temp_files`); returns them."""
        return remove_stale_temp_files(
            self.directory, lambda name: name.endswith(".json") or name == SIGNATURES_FILE
        )

    def load(self, label: str) -> Wrapper | None:
        """The stored wrapper of ``label`` (None if there is none). Raises OSError when the
        file cannot be read, and :class:`~pagesim_scrapy.core.statefile.CorruptStateError`,
        after moving the file aside to ``<name>.corrupt``, when it cannot be used."""
        return read_state(self.path_for(label), _wrapper_from_json)

    def save(self, label: str, wrapper: Wrapper) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        wrapper.save(self.path_for(label))

    @property
    def signatures_path(self) -> Path:
        """The signature memory's file: a name no label's file can have."""
        return self.directory / SIGNATURES_FILE

    def load_signatures(self) -> SignatureMemory | None:
        """The signature memory an earlier crawl saved (None if there is none); raises as
        :meth:`load` does."""
        return read_state(self.signatures_path, parse_memory)

    def save_signatures(self, memory: SignatureMemory) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomic(self.signatures_path, memory_text(memory))


#: the file of the signature memory in a :class:`JsonFileWrapperStore`'s folder (JSON, but
#: not named ``*.json``: a user's ``wrapper merge wrappers/*.json`` must not take it for one)
SIGNATURES_FILE = "_signatures.memory"


def _wrapper_from_json(text: str) -> Wrapper:
    """A stored wrapper, compiled once here so that a file that passes the format checks but
    cannot be used fails now, at load, and not on every page."""
    wrapper = Wrapper.from_json(text)
    if wrapper.tree.root is not None:
        wrapper.compiled()
    return wrapper


# --- the pipeline's steps with its store -------------------------------------------------------


def build_store(crawler: Crawler, config: InductionConfig) -> WrapperStore:
    """``PAGESIM_INDUCTION_STORE``; in a crawl fleet, the default store is the shared one."""
    if (
        config.store == DEFAULTS["PAGESIM_INDUCTION_STORE"]
        and shared_state_url(crawler.settings) is not None
    ):
        # a crawl fleet: the wrappers live in the shared state with the rest
        return _shared_store(crawler)
    store: WrapperStore = build_from_crawler(load_object(config.store), crawler)
    return store


def _shared_store(crawler: Crawler) -> WrapperStore:
    """The fleet's wrapper store; the JSON files, after one ERROR, when it cannot be used
    (the redis package missing, a URL that is not redis://…)."""
    from pagesim_scrapy.fleet import SharedWrapperStore

    try:
        return build_from_crawler(SharedWrapperStore, crawler)
    except ImportError:
        logger.error(
            "pagesim: PAGESIM_STATE_URL/REDIS_URL is set but the redis package is missing "
            '(pip install "pagesim-scrapy[redis]"); wrappers are not shared'
        )
    except ValueError as exc:
        logger.error("pagesim: cannot share wrappers: %s", exc)
    return build_from_crawler(JsonFileWrapperStore, crawler)


def open_store(store: WrapperStore | None, stats: StatsCollector) -> None:
    """Call the store's optional ``open()``; its failure is logged, never raised."""
    opener = getattr(store, "open", None)
    if not callable(opener):
        return
    try:
        removed = list(opener() or ())
    except Exception as exc:  # a custom store's failure must not stop the crawl
        logger.error("pagesim: the wrapper store failed to open: %s", describe_error(exc))
        return
    if removed:
        logger.info(
            "pagesim: removed %d stale temporary wrapper file(s) left by an interrupted save in %s",
            len(removed),
            removed[0].parent,
        )
        stats.inc_value(f"{STATE_STATS_PREFIX}/stale_temp_removed", len(removed))


def load_wrapper(store: WrapperStore, label: str, stats: StatsCollector) -> Wrapper | None:
    """The stored wrapper of ``label``, or None (none stored, or unusable: logged, counted)."""
    try:
        wrapper = store.load(label)
    except CorruptStateError as exc:
        logger.error(
            "pagesim: the stored wrapper of %r is unusable, learning it afresh: %s",
            label,
            exc,
        )
        stats.inc_value(f"{STATE_STATS_PREFIX}/corrupt")
        stats.inc_value(f"{STATS_PREFIX}/errors/load")
        return None
    except Exception as exc:  # any store, any failure: the crawl goes on
        logger.error(
            "pagesim: cannot load the stored wrapper of %r, learning it afresh: %s",
            label,
            describe_error(exc),
        )
        stats.inc_value(f"{STATS_PREFIX}/errors/load")
        return None
    if wrapper is not None and not isinstance(wrapper, Wrapper):
        logger.error(
            "pagesim: the wrapper store gave a %s for %r, not a Wrapper; learning afresh",
            type(wrapper).__name__,
            label,
        )
        stats.inc_value(f"{STATS_PREFIX}/errors/load")
        return None
    return wrapper


def save_wrappers(store: WrapperStore, labels: Iterable[LabelState], stats: StatsCollector) -> None:
    """Save the wrapper of every label that learned pages in this crawl (not a failed one)."""
    for state in labels:
        if state.learned == 0 or state.pages == 0:
            continue
        if state.failed is not None:
            logger.warning(
                "pagesim: the wrapper of %r is not saved: learning failed in this crawl (%s)",
                state.label,
                state.failed,
            )
            stats.inc_value(f"{STATS_PREFIX}/errors/save")
            continue
        try:
            store.save(state.label, state.wrapper)
        except (OSError, WrapperError) as exc:
            logger.error("cannot save the wrapper of %r: %s", state.label, exc)
            stats.inc_value(f"{STATS_PREFIX}/errors/save")
        else:
            stats.inc_value(f"{STATS_PREFIX}/wrappers_saved")
            logger.info(
                "saved the wrapper of %r (%d pages, %d fields)",
                state.label,
                state.pages,
                len(state.wrapper.fields),
            )


def load_signatures(store: WrapperStore | None, stats: StatsCollector) -> SignatureMemory | None:
    """The signature memory the store keeps, or None: a store without one (its optional
    ``load_signatures``), none saved yet, or an unusable one (logged, counted, learned
    afresh)."""
    loader = getattr(store, "load_signatures", None)
    if not callable(loader):
        return None
    try:
        memory = loader()
    except CorruptStateError as exc:
        logger.error("pagesim: the saved signature memory is unusable, starting afresh: %s", exc)
        stats.inc_value(f"{STATE_STATS_PREFIX}/corrupt")
        stats.inc_value(f"{STATS_PREFIX}/errors/load")
        return None
    except Exception as exc:  # any store, any failure: the crawl goes on
        logger.error("pagesim: cannot load the signature memory: %s", describe_error(exc))
        stats.inc_value(f"{STATS_PREFIX}/errors/load")
        return None
    if not isinstance(memory, SignatureMemory):
        return None
    stats.set_value(f"{STATS_PREFIX}/signatures/loaded", len(memory))
    return memory


def save_signatures(
    store: WrapperStore | None, memory: SignatureMemory, stats: StatsCollector
) -> None:
    """Save what the crawl's sites agreed on for the next crawl (nothing to save: no file)."""
    saver = getattr(store, "save_signatures", None)
    if not callable(saver) or not len(memory):
        return
    try:
        saver(memory)
    except Exception as exc:  # a full disk or a custom store's failure: logged, counted
        logger.error("pagesim: cannot save the signature memory: %s", describe_error(exc))
        stats.inc_value(f"{STATS_PREFIX}/errors/save")
        return
    stats.set_value(f"{STATS_PREFIX}/signatures/saved", len(memory))
