"""``scrapy pagesim <command>``: the pagesim command line through Scrapy's own ``scrapy`` tool.

Each test runs ``python -m scrapy`` in a subprocess, inside the project (the repository root,
which has scrapy.cfg) and outside any project, and compares with ``python -m pagesim_scrapy``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stackoverflow"
A = str(FIXTURES / "jobs" / "01.html")
B = str(FIXTURES / "tags" / "02.html")


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.fixture(params=["inside_project", "outside_project"])
def cwd(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "inside_project":
        if not (REPO / "scrapy.cfg").is_file():
            pytest.skip("no scrapy.cfg at the repository root")
        return REPO
    return tmp_path


def test_compare_gives_the_same_result_as_the_pagesim_command_line(cwd: Path):
    options = ["--method", "lcs", "-p", "relation=rsn"]
    scrapy = run(cwd, "-m", "scrapy", "pagesim", "compare", A, B, *options)
    direct = run(cwd, "-m", "pagesim_scrapy", "compare", A, B, *options)
    assert scrapy.returncode == 0, scrapy.stderr
    assert scrapy.stdout == direct.stdout
    assert 0.0 < float(scrapy.stdout) < 1.0
    # options before the operands and --opt=value forms reach the sub-command too
    again = run(cwd, "-m", "scrapy", "pagesim", "compare", "--param=relation=rsn", A, B)
    assert again.stdout == direct.stdout


def test_compare_with_tree_edit_distance(cwd: Path):
    out = run(cwd, "-m", "scrapy", "pagesim", "compare", A, A, "--method", "ted")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1.0000"


def test_help_is_the_pagesim_help(cwd: Path):
    top = run(cwd, "-m", "scrapy", "pagesim", "--help")
    assert top.returncode == 0
    assert top.stdout.startswith("usage: scrapy pagesim") and "compare" in top.stdout
    sub = run(cwd, "-m", "scrapy", "pagesim", "compare", "--help")
    assert sub.returncode == 0 and sub.stdout.startswith("usage: scrapy pagesim compare")
    assert "--method" in sub.stdout
    listing = run(cwd, "-m", "scrapy", "-h")
    assert "pagesim" in listing.stdout


def test_usage_errors_exit_with_status_2(cwd: Path):
    missing = run(cwd, "-m", "scrapy", "pagesim", "compare", A)
    assert missing.returncode == 2 and "required: B" in missing.stderr
    bad = run(cwd, "-m", "scrapy", "pagesim", "compare", A, B, "-p", "relation=xyz")
    assert bad.returncode == 2 and "relation" in bad.stderr
    none = run(cwd, "-m", "scrapy", "pagesim")
    assert none.returncode == 2 and "usage: scrapy pagesim" in none.stderr
