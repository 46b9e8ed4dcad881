from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pagesim_scrapy.cli import main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pagesim_scrapy", *args], capture_output=True, text=True, timeout=300
    )


def test_compare(stackoverflow: Path):
    a, b = stackoverflow / "jobs" / "01.html", stackoverflow / "tags" / "01.html"
    same = run_cli("compare", str(a), str(a))
    assert same.returncode == 0 and same.stdout.strip() == "1.0000"
    diff = run_cli("compare", str(a), str(b), "--method", "lcs", "--param", "relation=rsn")
    assert diff.returncode == 0
    assert 0.0 < float(diff.stdout) < 1.0


def test_compare_errors(stackoverflow: Path, tmp_path: Path):
    a = stackoverflow / "jobs" / "01.html"
    missing = run_cli("compare", str(a), str(tmp_path / "nope.html"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = run_cli("compare", str(a), str(a), "--param", "relation=xyz")
    assert bad.returncode == 2 and "relation" in bad.stderr
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    out = run_cli("compare", str(a), str(empty))
    assert out.returncode == 2 and "empty document" in out.stderr


def test_classify_writes_jsonl(stackoverflow: Path, tmp_path: Path, capsys):
    out = tmp_path / "out.jsonl"
    code = main(
        [
            "classify",
            "--template", f"jobs={stackoverflow / 'jobs' / '01.html'}",
            "--template", f"jobs={stackoverflow / 'jobs' / '02.html'}",
            "--template", f"tags={stackoverflow / 'tags' / '01.html'}",
            str(stackoverflow / "jobs"),
            str(stackoverflow / "tags"),
            str(stackoverflow / "users"),
            "--output", str(out),
            "--method", "lcs",
        ]
    )  # fmt: skip
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 30 + len(list((stackoverflow / "users").glob("*.html")))
    for row in rows:
        assert set(row) >= {"path", "label", "score", "scores"}
        # users pages are nearest the tags template but far below the tags pages: the score
        # distribution of the pages nearest "tags" puts the threshold between them
        expected = next((t for t in ("jobs", "tags") if f"/{t}/" in row["path"]), None)
        assert row["label"] == expected, row


def test_classify_bad_template_argument(stackoverflow: Path):
    out = run_cli("classify", "--template", "nolabel", str(stackoverflow / "jobs"))
    assert out.returncode == 2 and "LABEL=PATH" in out.stderr


def test_evaluate_prints_per_label_scores(stackoverflow: Path):
    out = run_cli("evaluate", str(stackoverflow), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {row["label"] for row in data["labels"]} == {
        "jobs", "newest_questions", "question", "tags", "users"
    }  # fmt: skip
    for row in data["labels"]:
        assert row["f1"] >= 0.98, row
    text = run_cli("evaluate", str(stackoverflow), "--labels", "question", "-m", "combined")
    assert text.returncode == 0 and "question" in text.stdout and "precision" in text.stdout


def test_help_lists_commands():
    out = run_cli("--help")
    assert out.returncode == 0
    for command in ("compare", "classify", "evaluate"):
        assert command in out.stdout
