"""The ``induce``, ``extract`` and ``wrapper`` commands, run as a user would."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pagesim_scrapy.cli import main
from tests.test_induce_core import pages, recipe_page


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for k, page in enumerate(pages(4)):
        (folder / f"r{k}.html").write_text(page, encoding="utf-8")
    return folder


def test_induce_extract_and_show(site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    wrapper_path = tmp_path / "w.json"
    assert main(["induce", str(site), "--label", "recipe", "-o", str(wrapper_path)]) == 0
    data = json.loads(wrapper_path.read_text())
    assert data["version"] == 1 and data["label"] == "recipe" and data["pages"] == 4
    assert "learned from 4 page(s)" in capsys.readouterr().err

    unseen = tmp_path / "new.html"
    unseen.write_text(recipe_page(random.Random(3), "Onion Soup", 6), encoding="utf-8")
    other = tmp_path / "other.html"
    other.write_text("<html><body><form><input name='q'></form></body></html>")
    out = tmp_path / "records.jsonl"
    assert main(["extract", "-w", str(wrapper_path), str(unseen), str(other), "-o", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [Path(x["path"]).name for x in lines] == ["new.html", "other.html"]
    # the core record leads: the title under its standard name (og:title), once
    assert lines[0]["record"]["name"] == "Onion Soup"
    assert lines[0]["sources"]["name"] == "opengraph"
    assert "recipe_title" not in lines[0]["record"]
    assert len(lines[0]["record"]["ingredients"]) == 6
    assert "records" not in lines[0]
    assert lines[1]["record"] == {} and "does not fit" in lines[1]["reason"]

    assert main(["extract", "-w", str(wrapper_path), str(unseen), "--records"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert len(line["records"]) == 6 and line["records"][0]["text"].startswith("1 ")

    assert main(["wrapper", "show", str(wrapper_path)]) == 0
    shown = capsys.readouterr().out
    assert "recipe_title" in shown and "fields (" in shown and "optional nodes" in shown


def test_wrapper_merge(site: Path, tmp_path: Path):
    paths = sorted(site.iterdir())
    a, b, merged = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "m.json"
    assert main(["induce", *map(str, paths[:2]), "-o", str(a), "--label", "recipe"]) == 0
    assert main(["induce", *map(str, paths[2:]), "-o", str(b), "--label", "recipe"]) == 0
    assert main(["wrapper", "merge", str(a), str(b), "-o", str(merged)]) == 0
    assert json.loads(merged.read_text())["pages"] == 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["induce", "{missing}"], "no such file"),
        (["induce", "{site}", "--lambda", "1.5"], "--lambda"),
        (["extract", "-w", "{bad}", "{site}"], "not valid JSON"),
        (["wrapper", "show", "{nowhere}"], "cannot read wrapper"),
    ],
)
def test_bad_input_is_a_clear_error_with_status_2(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    values = {
        "site": str(site),
        "missing": str(tmp_path / "missing"),
        "bad": str(bad),
        "nowhere": str(tmp_path / "nowhere.json"),
    }
    assert main([a.format(**values) for a in argv]) == 2
    assert message in capsys.readouterr().err


def test_unreadable_pages_are_skipped_when_learning(site: Path, tmp_path: Path):
    (site / "empty.html").write_bytes(b"")
    out = tmp_path / "w.json"
    assert main(["induce", str(site), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["pages"] == 4


def test_python_dash_m_entry_point(site: Path, tmp_path: Path):
    out = tmp_path / "w.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pagesim_scrapy", "induce", str(site), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    shown = subprocess.run(
        [sys.executable, "-m", "pagesim_scrapy", "wrapper", "show", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0 and "ingredients" in shown.stdout


def test_jsonld_fields_by_default_and_not_with_no_jsonld(tmp_path: Path):
    from tests.test_induce_structured import _spa_recipe

    rng = random.Random(8)
    folder = tmp_path / "spa"
    folder.mkdir()
    for k, title in enumerate(["Tomato Soup", "Lemon Cake", "Rice Salad", "Onion Tart"]):
        (folder / f"p{k}.html").write_text(_spa_recipe(rng, title, 3 + k), encoding="utf-8")
    pages_ = sorted(folder.iterdir())
    with_ld, without = tmp_path / "with.json", tmp_path / "without.json"
    assert main(["induce", *map(str, pages_[:3]), "-o", str(with_ld)]) == 0
    assert main(["induce", *map(str, pages_[:3]), "--no-jsonld", "-o", str(without)]) == 0
    assert json.loads(without.read_text())["structured"] is False
    for wrapper_path, expect in ((with_ld, "Onion Tart"), (without, None)):
        out = tmp_path / "out.jsonl"
        command = ["extract", "-w", str(wrapper_path), str(pages_[3]), "-o", str(out)]
        assert main([*command, "--induced-only"]) == 0
        record = json.loads(out.read_text())["record"]
        assert record.get("jsonld_recipe_name") == expect
        # with the core record first, the JSON-LD name is there once, under its standard name
        assert main(command) == 0
        record = json.loads(out.read_text())["record"]
        assert record["name"] == "Onion Tart" and "jsonld_recipe_name" not in record
