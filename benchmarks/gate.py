"""The pinned baseline: a small run of the accuracy benchmarks, compared with its figures.

    python benchmarks/gate.py            # compute, print a comparison table, exit 1 on drift
    python benchmarks/gate.py --write    # compute and rewrite benchmarks/baseline.json

A change that moves a verdict or a record moves one of these figures, so pinning them as data
(checked by tests/test_baseline.py) makes such a change visible and deliberate: rewrite the
baseline in the same commit and say why. The run is a small slice of the benchmarks, not
their figures (those are in docs/benchmarks.md):

* site_accuracy.py: one-class F1 per site of ``site_page_types`` with method ``site``, as a
  batch (the first 2 pages of each type as its templates) and decided page by page in link
  order (one order);
* eval_induction.py: titles and ingredient lines on the first recipe sites (leave one page
  out), the scrapely fields and the pydepta records;
* eval_fields.py: recipe times and yields from label fields on the same recipe sites.

Needs ``../shared/data`` beside the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import eval_fields  # noqa: E402
import eval_induction  # noqa: E402
import site_accuracy  # noqa: E402
from _data import SHARED_DATA  # noqa: E402

BASELINE = HERE / "baseline.json"
#: How far a figure may move, either way, before the gate fails: the figures are exact
#: counts on fixed pages, so any real change of a verdict or a record moves one by more.
TOLERANCE = 0.005
#: Recipe sites (alphabetical, >= 3 pages each) in the small induction run.
RECIPE_SITES = 8
#: The seed of the link order (site_accuracy's ``link_order``).
LINK_SEED = 1

Figures = dict[str, float]


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """The benchmarks print as they go; the gate prints its own table."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def site_figures() -> Figures:
    figures: Figures = {}
    root = SHARED_DATA / "site_page_types"
    for folder in sorted(p for p in root.iterdir() if (p / "labels.csv").is_file()):
        pages = site_accuracy.load_site(folder)
        batch, _ = site_accuracy.drawn_templates(pages, 0)
        figures[f"site/{folder.name}/batch_f1"] = batch.f1
        figures[f"site/{folder.name}/batch_precision"] = batch.precision
        figures[f"site/{folder.name}/batch_recall"] = batch.recall
        online, _, _ = site_accuracy.one_class_link_order(pages, LINK_SEED)
        figures[f"site/{folder.name}/link_order_f1"] = online.f1
    return figures


def _first_sites(find: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    return lambda *args, **kwargs: find(*args, **kwargs)[:RECIPE_SITES]


def induction_figures() -> Figures:
    recipe_sites = _first_sites(eval_induction.recipe_sites)
    with quiet(), mock.patch.object(eval_induction, "recipe_sites", recipe_sites):
        recipes = eval_induction.eval_recipes(verbose=False)
        found = eval_induction.eval_scrapely()
        depta = eval_induction.eval_depta(verbose=False)
    return {
        "induction/recipes/title_accuracy": recipes["title_accuracy_over_pages"],
        "induction/recipes/ingredients_precision": recipes["ingredients_precision_lines"],
        "induction/recipes/ingredients_recall": recipes["ingredients_recall_lines"],
        "induction/recipes/held_out_fit": recipes["held_out_fit"] / recipes["folds"],
        "induction/scrapely/fields_found": sum(bool(names) for names in found.values()) / 3,
        "induction/pydepta/pooled_f1": depta["pooled_f1"],
    }


def fields_figures() -> Figures:
    recipe_sites = _first_sites(eval_fields.recipe_sites)
    with quiet(), mock.patch.object(eval_fields, "recipe_sites", recipe_sites):
        result = eval_fields.eval_recipes(verbose=False)
    figures: Figures = {}
    for attr in eval_fields.RECIPE_ATTRS:
        judged = result["judged"][attr]
        figures[f"fields/recipes/{attr}_accuracy"] = (
            result["hits"][attr] / judged if judged else 0.0
        )
        figures[f"fields/recipes/{attr}_judged"] = float(judged)
    return figures


def compute() -> Figures:
    figures = {**site_figures(), **induction_figures(), **fields_figures()}
    return {name: round(value, 4) for name, value in figures.items()}


def compare(baseline: Figures, current: Figures, tolerance: float) -> list[str]:
    """The names of the figures that moved, appeared or disappeared."""
    moved = [
        name
        for name in baseline.keys() & current.keys()
        if abs(baseline[name] - current[name]) > tolerance
    ]
    return sorted(moved + list(baseline.keys() ^ current.keys()))


def table(baseline: Figures, current: Figures, moved: list[str]) -> str:
    rows = [f"{'figure':48} {'baseline':>9} {'now':>9}"]
    for name in sorted(baseline.keys() | current.keys()):
        pinned = f"{baseline[name]:.4f}" if name in baseline else "-"
        now = f"{current[name]:.4f}" if name in current else "-"
        rows.append(f"{name:48} {pinned:>9} {now:>9}{'  MOVED' if name in moved else ''}")
    return "\n".join(rows)


def read_baseline(path: Path = BASELINE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def write_baseline(figures: Figures, path: Path = BASELINE) -> None:
    document = {
        "command": "python benchmarks/gate.py --write",
        "tolerance": TOLERANCE,
        "figures": figures,
    }
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite benchmarks/baseline.json")
    args = parser.parse_args(argv)
    if not SHARED_DATA.is_dir():
        print(f"{SHARED_DATA} not found: the gate reads the pages in ../shared/data")
        return 2
    current = compute()
    if args.write:
        write_baseline(current)
        print(f"wrote {len(current)} figures to {BASELINE.name}")
        return 0
    pinned = read_baseline()
    moved = compare(pinned["figures"], current, pinned["tolerance"])
    print(table(pinned["figures"], current, moved))
    if moved:
        print(f"\n{len(moved)} figure(s) moved by more than {pinned['tolerance']}: {moved}")
        print("If the change is intended, run `python benchmarks/gate.py --write` and say why.")
        return 1
    print(f"\nall {len(current)} figures within {pinned['tolerance']} of the baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
