"""The pinned baseline (benchmarks/baseline.json) still holds: a small run of the accuracy
benchmarks gives the same figures, so a change that moves a verdict or a record says so."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import REPO, shared_data

GATE = REPO / "benchmarks" / "gate.py"
BASELINE = REPO / "benchmarks" / "baseline.json"


def test_the_baseline_is_well_formed() -> None:
    document = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert 0 < document["tolerance"] <= 0.01
    figures = document["figures"]
    assert any(name.startswith("site/") for name in figures)
    assert any(name.startswith("induction/") for name in figures)
    assert any(name.startswith("fields/") for name in figures)
    assert all(isinstance(value, (int, float)) for value in figures.values())


def test_the_benchmark_figures_have_not_moved() -> None:
    for data in (
        "site_page_types",
        "recipe_scrapers_testdata",
        "scrapely_samples",
        "pydepta_records",
    ):
        shared_data(data)
    result = subprocess.run(
        [sys.executable, str(GATE)], capture_output=True, text=True, timeout=600, cwd=REPO
    )
    assert result.returncode == 0, result.stdout + result.stderr
