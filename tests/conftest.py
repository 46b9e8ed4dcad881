"""Shared test helpers: where ../shared/data is, and skipping when it is absent."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

#: One hash seed for every process of a run (pytest-xdist's workers, the crawls tests start):
#: some test ids show a frozenset, whose order follows the seed, and the workers must collect
#: the same ids. A new seed each run, unless PYTHONHASHSEED is set; shown in the header.
os.environ.setdefault("PYTHONHASHSEED", str(random.randint(1, 2**32 - 1)))

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load_benchmark(name: str) -> ModuleType:
    """A benchmark script loaded as a module, so a test checks the very code that prints the
    figures (its own helpers, ``_data`` and the other scripts, import from ``benchmarks/``)."""
    if name in sys.modules:
        return sys.modules[name]
    folder = str(REPO / "benchmarks")
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look themselves up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    return module


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, skipping the test when it is not there."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


_BODY_CLASS = re.compile(rb"(<body\b[^>]*?)\sclass=(\"[^\"]*\"|'[^']*')", re.IGNORECASE)


def last_json_line(script: str, *args: str) -> object:
    """Run ``script`` in a fresh interpreter on this checkout: the JSON of its last output
    line (what a test learns from a process whose imports nothing before it has made)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def imported(modules: set[str] | list[str], name: str) -> bool:
    """Whether ``name`` or one of its submodules is among ``modules``."""
    return any(m == name or m.startswith(name + ".") for m in modules)


def without_body_class(data: bytes) -> bytes:
    """A page with its <body> class removed: the wiki's names the page type (``ns-10``,
    ``mw-special-...``), so its pages test structure only without it."""
    return _BODY_CLASS.sub(rb"\1", data, count=1)


@pytest.fixture
def stackoverflow() -> Path:
    return shared_data("stackoverflow_page_types")


@pytest.fixture(autouse=True)
def _own_working_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test runs in a folder of its own: a crawl outside a Scrapy project keeps its state
    (wrappers, discovered types, site models) under ``.scrapy`` in the working directory, and
    one test's saved state must not reach the next test, nor the repository."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


#: The slowest tests (whole crawls of real sites, crawl fleets, Spark jobs, the longest fuzz
#: runs: tens of seconds to minutes each on a 2-core machine), named in one place: marked
#: ``slow``, so the README's test command leaves them out and ``-m slow`` (and ``.ci/run``,
#: which runs every test) runs them. A file's path marks all of its tests; a test's name
#: without ``[...]`` every parametrisation of it.
SLOW_TESTS = frozenset(
    {
        "tests/test_spark.py",
        "tests/test_drift_spark.py",
        "tests/test_fleet.py",
        "tests/test_drift_fleet.py::test_a_fleet_crawl_warns_of_a_changed_layout_from_the_looks_in_redis",
        "tests/test_fuzz.py::test_the_induction_pipeline_never_raises_on_a_page",
        "tests/test_fuzz.py::test_induction_and_extraction_raise_only_documented_errors",
        "tests/test_summary_walk.py::test_every_shared_page_identical",
        "tests/test_demo_site.py::test_crawl_with_only_the_two_product_templates_keeps_the_products",
        "tests/test_second_look.py::test_a_crawl_over_two_sites_learns_each_site_apart",
        "tests/test_second_look.py::"
        "test_tag_mode_gives_every_page_to_the_spider_once_with_a_settled_verdict",
        "tests/test_second_look.py::"
        "test_a_site_past_its_young_pages_gets_its_second_look_before_the_crawl_runs_dry",
        "tests/test_second_look.py::"
        "test_pages_that_pass_on_a_young_site_s_unsettled_cut_wait_for_the_second_look",
        "tests/test_second_look.py::"
        "test_pages_turned_away_early_are_requested_again_once_the_cut_has_settled",
        "tests/test_stable_records.py",
    }
)


def is_slow(nodeid: str) -> bool:
    test = nodeid.split("[", 1)[0]
    return test in SLOW_TESTS or test.split("::", 1)[0] in SLOW_TESTS


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW_TESTS` before ``-m`` selects."""
    for item in items:
        if is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)


def pytest_report_header() -> str:
    return f"PYTHONHASHSEED={os.environ['PYTHONHASHSEED']}"
