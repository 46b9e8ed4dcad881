"""Template induction and extraction on generated pages (no shared data needed)."""

from __future__ import annotations

import json
import random

import pytest
from lxml import etree

from pagesim_scrapy.core.induce import (
    FORMAT_VERSION,
    PageParseError,
    Wrapper,
    WrapperError,
    induce,
    parse_html,
)
from pagesim_scrapy.core.induce.align import align_tiers, merge_order
from pagesim_scrapy.core.induce.compiled import min_count
from pagesim_scrapy.core.induce.describe import describe
from pagesim_scrapy.core.induce.dom import (
    Run,
    decode_html,
    find_runs,
    normalise_classes,
    page_items,
)
from pagesim_scrapy.core.induce.naming import snake

WORDS = [
    "salt",
    "pepper",
    "onion",
    "garlic",
    "butter",
    "flour",
    "sugar",
    "lemon",
    "cream",
    "cheese",
    "tomato",
    "basil",
    "rice",
]


def recipe_page(
    rng: random.Random,
    title: str,
    ingredients: int,
    notes: bool = False,
    rating: int | None = 3,
) -> str:
    """A recipe page of one fixed template with varying text, list lengths and options."""
    lines = "".join(
        f"<li class='ingredient'><span class='amount'>{k + 1}</span> "
        f"{' '.join(rng.choice(WORDS) for _ in range(3))}</li>"
        for k in range(ingredients)
    )
    notes_html = (
        f"<div class='notes'><h3>Notes</h3><p>{' '.join(rng.choice(WORDS) for _ in range(9))}</p>"
        "</div>"
        if notes
        else ""
    )
    rating_html = f"<div class='rating'>{rating} stars</div>" if rating is not None else ""
    return f"""<!DOCTYPE html><html><head><title>{title} | Cook Site</title>
<meta property="og:title" content="{title}"><script>var x = "<div>not html</div>";</script>
<style>.a {{ color: red }}</style></head>
<body class="recipe-page">
<header class="site-header"><a class="logo" href="/">Cook Site</a>
<nav class="menu"><ul><li><a href="/a">Soups</a></li><li><a href="/b">Cakes</a></li>
<li><a href="/c">Salads</a></li></ul></nav></header>
<main class="content"><article class="recipe">
<h1 class="recipe-title">{title}</h1>{rating_html}
<p class="byline">By <a class="author" href="/u/{rng.randrange(99)}">{rng.choice(WORDS)} smith</a>
</p>
<table class="facts"><tr><th>Prep time:</th><td>{rng.randrange(5, 60)} min</td></tr>
<tr><th>Serves:</th><td>{rng.randrange(2, 9)}</td></tr></table>
<h2>Ingredients</h2><ul class="ingredients">{lines}</ul>{notes_html}
<div class="price-box"><span class="label">Price:</span> <b>£{rng.randrange(2, 40)}.00</b></div>
</article></main>
<!-- a comment <p>ignored</p> -->
<footer class="site-footer"><p>Copyright Cook Site</p></footer></body></html>"""


def pages(n: int = 4, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    titles = ["Tomato Soup", "Lemon Cake", "Rice Salad", "Garlic Bread", "Onion Tart", "Flan"]
    return [
        recipe_page(rng, titles[k % len(titles)], 3 + 2 * k, notes=(k == 1), rating=k + 1)
        for k in range(n)
    ]


def field_of(wrapper: Wrapper, value: str) -> str:
    """The name of the first field with ``value`` among its samples (else one containing it)."""
    for f in wrapper.fields:
        if value in f.samples:
            return f.name
    for f in wrapper.fields:
        if any(value in s for s in f.samples):
            return f.name
    raise AssertionError(f"no field holds {value!r}: {[f.name for f in wrapper.fields]}")


# --- parsing and page items ----------------------------------------------------------------


def test_parse_removes_scripts_styles_comments_and_keeps_text():
    root = parse_html(pages(1)[0].encode())
    assert not root.xpath("//script|//style")
    text = " ".join(root.itertext())
    assert "not html" not in text and "ignored" not in text and "color: red" not in text
    assert "Tomato Soup" in text


@pytest.mark.parametrize("bad", [b"", b"   \n", b"\x00\x01\x02binary", ""])
def test_parse_rejects_empty_and_binary_input(bad: bytes | str):
    with pytest.raises(PageParseError):
        parse_html(bad)


def test_decode_uses_the_declared_charset_and_falls_back():
    page = '<html><head><meta charset="windows-1252"></head><body>caf\xe9</body></html>'
    assert "café" in decode_html(page.encode("cp1252"))
    assert "café" in decode_html("<p>café</p>".encode())
    assert "caf" in decode_html(b"<p>caf\xe9 \xff</p>")  # not UTF-8, no declaration


def test_page_items_fold_inline_formatting_into_text():
    root = parse_html("<html><body><p>Price: <b>£3</b> <i>now</i><a href='/x'>buy</a> end</p>")
    p = root.find(".//p")
    items, sigs = page_items(p)
    assert items[0] == "Price: £3 now"
    assert sigs == ["#text", "a", "#text"]
    assert items[2] == "end"


def test_volatile_class_tokens_are_normalised():
    assert normalise_classes("post-1622 entry css-1w0kyr1 col-md-8") == "col-md.css.entry.post"
    assert normalise_classes("Layout_main__4gfJz css-bhostb") == "Layout_main.css"
    assert normalise_classes("card__title") == "card__title"


def test_find_runs_groups_lists_and_sibling_patterns():
    html = """<html><body><div id='a'><h2>x</h2><ul><li>1</li></ul>
      <li>a</li><li>b</li><li>c</li><p>tail</p></div>
      <dl id='b'><dt>k1</dt><dd>v1</dd><dt>k2</dt><dd>v2</dd><dt>k3</dt><dd>v3</dd></dl>
      <div id='c'><div><h3>A</h3><p>x</p></div><hr><div><h3>B</h3><p>y</p></div><hr>
      <div><h3>C</h3><p>z</p></div></div></body></html>"""
    root = parse_html(html)
    items, sigs = page_items(root.xpath("//*[@id='a']")[0])
    out = find_runs(items, sigs)
    runs = [x for x in out if isinstance(x, Run)]
    assert len(runs) == 1 and runs[0].pattern == ("li",) and len(runs[0].groups) == 3
    items, sigs = page_items(root.xpath("//*[@id='b']")[0])
    (run,) = find_runs(items, sigs)
    assert isinstance(run, Run) and run.pattern == ("dt", "dd") and len(run.groups) == 3
    # empty separators (<hr>) do not break a run and travel with the record before them
    items, sigs = page_items(root.xpath("//*[@id='c']")[0])
    (run,) = find_runs(items, sigs)
    assert isinstance(run, Run) and run.pattern == ("div",) and len(run.groups) == 3
    assert [x.tag for x in run.groups[0]] == ["div", "hr"]


def test_find_runs_keeps_dissimilar_siblings_apart():
    html = """<html><body><div><div><header><h1>t</h1><nav><a>1</a><a>2</a></nav></header></div>
      <div><table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table><form><input></form>
      </div></div></body></html>"""
    root = parse_html(html)
    items, sigs = page_items(root.find("body")[0])
    assert not any(isinstance(x, Run) for x in find_runs(items, sigs))


# --- alignment -------------------------------------------------------------------------------


def test_alignment_handles_insertions_deletions_and_loose_matches():
    t = [1, 2, 3, 4, 5]
    p = [1, 3, 9, 4, 5, 6]
    pairs = align_tiers(5, 6, [lambda: t], [lambda: p])
    assert pairs == [(0, 0), (2, 1), (3, 3), (4, 4)]
    # the loose predicate pairs what the tokens could not, inside the gaps only
    pairs = align_tiers(5, 6, [lambda: t], [lambda: p], lambda i, j: (i, j) == (1, 2))
    assert pairs == [(0, 0), (1, 2), (2, 1), (3, 3), (4, 4)] or (1, 2) not in pairs
    order = merge_order(5, 6, align_tiers(5, 6, [lambda: t], [lambda: p]))
    assert [x for x, _ in order if x is not None] == list(range(5))
    assert [y for _, y in order if y is not None] == list(range(6))


def test_min_count_follows_seed_003():
    assert min_count(2, 0.25) == 1
    assert min_count(5, 0.25) == 2
    assert min_count(50, 0.25) == 13
    assert min_count(3, 0.5) == 2
    assert min_count(4, 0.0) == 1


# --- induction and extraction -----------------------------------------------------------------


def test_induction_finds_data_fields_template_text_and_a_repeated_region():
    wrapper = induce([p.encode() for p in pages(4)], label="recipe")
    names = {f.name: f for f in wrapper.fields}
    assert "Lemon Cake" in names["recipe_title"].samples or "Lemon Cake" in [
        wrapper.extract(p).record["recipe_title"] for p in pages(4)
    ]
    assert names["recipe_title"].path.endswith("h1.recipe-title > text()")
    # constant text (site name, menu, footer, headings) is template, not data
    for constant in ("Cook Site", "Soups", "Copyright Cook Site", "Ingredients"):
        assert not any(
            constant == s for f in wrapper.fields if f.scope is None for s in f.samples
        ), constant
    ingredients = names["ingredients"]
    assert ingredients.kind == "list" and not ingredients.optional
    # the ingredient lines are one region, not one optional node per line
    assert sum(1 for f in wrapper.fields if f.kind == "list" and f.scope is None) <= 2
    # a label before a value names it ("Price:", "By")
    assert names["price"].samples[0].startswith("£")
    assert names["by"].path.endswith("a.author > text()")
    # key/value table rows become fields named by their labels
    assert "prep_time" in names and "serves" in names


def test_extraction_gives_one_record_with_the_list_as_sub_records():
    train = pages(4)
    wrapper = induce([p.encode() for p in train])
    unseen = recipe_page(random.Random(9), "Basil Pesto", 7, notes=True)
    result = wrapper.extract(unseen)
    assert result.ok and result.fit > 0.9
    record = result.record
    assert record["recipe_title"] == "Basil Pesto"
    assert record["og_title"] == "Basil Pesto"
    assert record["price"].startswith("£") and record["price"].endswith(".00")
    assert record["prep_time"].endswith("min")
    lines = record["ingredients"]
    assert len(lines) == 7
    assert all(set(line) >= {"text"} for line in lines)
    assert [line["text"].split()[0] for line in lines] == [str(k) for k in range(1, 8)]
    assert record["by_url"].startswith("/u/")


def test_optional_nodes_and_the_discard_rule():
    # the notes block is on 1 page of 5: with lambda 0.25 ceil(6 * 0.25) = 2 drops it
    five = pages(5)
    wrapper = induce([p.encode() for p in five], lam=0.25)
    comp = wrapper.compiled()
    assert comp.min_count == 2 and comp.discarded > 0
    assert not any("notes" in c.path for c in comp.optional_nodes)
    # with lambda 0 it stays, as an optional node
    keep = induce([p.encode() for p in five], lam=0.0)
    assert any("notes" in c.path for c in keep.compiled().optional_nodes)
    # the rating block is missing on some pages: optional, and its value None there
    mixed = [
        recipe_page(random.Random(k), f"T{k}", 4, rating=k + 1 if k % 2 == 0 else None)
        for k in range(4)
    ]
    wrapper = induce([p.encode() for p in mixed])
    rating = field_of(wrapper, "stars")
    assert any(f.name == rating and f.optional for f in wrapper.fields)
    assert wrapper.extract(mixed[1]).record[rating] is None
    assert wrapper.extract(mixed[0]).record[rating].endswith("stars")


def test_incremental_learning_matches_pages_added_one_at_a_time():
    wrapper = Wrapper(label="recipe")
    for page in pages(4):
        wrapper.add_page(page)
        assert wrapper.extract(page).record != {} or wrapper.pages == 1
    assert wrapper.pages == 4
    batch = induce([p.encode() for p in pages(4)])
    assert {f.name for f in wrapper.fields} >= {"recipe_title", "ingredients", "price"}
    assert {f.name for f in batch.fields} >= {"recipe_title", "ingredients", "price"}


def test_a_page_of_another_type_does_not_fit():
    wrapper = induce([p.encode() for p in pages(3)])
    other = (
        "<html><head><title>Login</title></head><body><form class='login'><input name='u'>"
        "<input name='p' type='password'><button>Go</button></form></body></html>"
    )
    result = wrapper.extract(other)
    assert not result.ok and result.record == {} and result.fit < 0.5
    assert "does not fit" in (result.reason or "")
    bad = wrapper.extract(b"")
    assert bad.record == {} and "empty" in (bad.reason or "")


def test_field_names_are_stable_when_more_pages_are_learned():
    wrapper = Wrapper()
    for page in pages(3):
        wrapper.add_page(page)
    first = {f.path: f.name for f in wrapper.fields}
    for page in pages(3, seed=7):
        wrapper.add_page(page)
    later = {f.path: f.name for f in wrapper.fields}
    common = first.keys() & later.keys()
    assert len(common) >= 8
    assert all(first[path] == later[path] for path in common)


def test_one_page_list_detection_gives_records():
    rows = "".join(
        f"<div class='result'><h3><a href='/p/{k}'>Product {k}</a></h3>"
        f"<p class='desc'>{' '.join(WORDS[k : k + 6])}</p><span class='price'>€{k}.99</span></div>"
        for k in range(8)
    )
    page = (
        "<html><body><header><a href='/'>Shop</a></header><div class='results'>"
        f"{rows}</div><footer>© Shop</footer></body></html>"
    )
    wrapper = induce([page])
    assert wrapper.kind == "list" and wrapper.main_region
    result = wrapper.extract(page)
    assert len(result.records) == 8
    assert result.records[3]["text"].startswith("Product 3")
    assert any(v == "/p/3" for v in result.records[3].values())


# --- the wrapper file -------------------------------------------------------------------------


def test_json_round_trip_keeps_everything(tmp_path):
    wrapper = induce([p.encode() for p in pages(4)], label="recipe", lam=0.3, min_fit=0.4)
    path = tmp_path / "w.json"
    wrapper.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "pagesim-wrapper" and data["version"] == FORMAT_VERSION
    assert data["label"] == "recipe" and data["pages"] == 4
    loaded = Wrapper.load(path)
    assert (loaded.lam, loaded.min_fit, loaded.pages) == (0.3, 0.4, 4)
    assert [f.name for f in loaded.fields] == [f.name for f in wrapper.fields]
    unseen = recipe_page(random.Random(5), "Rice Pudding", 5)
    assert loaded.extract(unseen).record == wrapper.extract(unseen).record
    # a loaded wrapper keeps learning
    loaded.add_page(unseen)
    assert loaded.pages == 5


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "not valid JSON"),
        ('{"format": "other"}', "not a pagesim wrapper"),
        ('{"format": "pagesim-wrapper", "version": 99}', "unsupported"),
        ('{"format": "pagesim-wrapper", "version": 1, "pages": 2, "nodes": []}', "corrupt"),
        (
            '{"format": "pagesim-wrapper", "version": 1, "pages": 1, '
            '"nodes": [{"k": "e", "s": "html", "n": 1, "c": 3}]}',
            "corrupt",
        ),
    ],
)
def test_bad_wrapper_files_raise_a_clear_error(text: str, message: str):
    with pytest.raises(WrapperError, match=message):
        Wrapper.from_json(text)


def test_merging_wrappers_pools_pages(tmp_path):
    all_pages = pages(6)
    a = induce([p.encode() for p in all_pages[:3]], label="recipe")
    b = induce([p.encode() for p in all_pages[3:]], label="recipe")
    names_a = [f.name for f in a.fields if f.scope is None and not f.optional]
    merged = Wrapper.from_json(a.to_json()).merge(b)
    assert merged.pages == 6
    assert set(names_a) <= {f.name for f in merged.fields}
    unseen = recipe_page(random.Random(11), "Cream Tart", 9)
    record = merged.extract(unseen).record
    assert record["recipe_title"] == "Cream Tart" and len(record["ingredients"]) == 9
    # the other wrapper is untouched
    assert b.pages == 3
    with pytest.raises(WrapperError):
        merged.merge(Wrapper(label="product"))


def test_deeply_nested_pages_need_no_recursion():
    depth = 5000
    page = (
        "<html><body>"
        + "<div class='x'>" * depth
        + "<span>{}</span>"
        + "</div>" * depth
        + "<p>end</p></body></html>"
    )
    roots = []
    for k in range(2):
        root = etree.Element("html")
        body = etree.SubElement(root, "body")
        node = body
        for _ in range(depth):
            node = etree.SubElement(node, "div", {"class": "x"})
        etree.SubElement(node, "span").text = f"value {k}"
        roots.append(root)
    wrapper = Wrapper()
    wrapper.add_pages(roots)
    assert wrapper.extract(roots[1]).record
    assert Wrapper.from_json(wrapper.to_json()).pages == 2
    assert page  # the text form parses too
    assert parse_html(page.format("v")) is not None


def test_describe_lists_fields_optional_nodes_and_examples():
    wrapper = induce([p.encode() for p in pages(4)], label="recipe")
    text = describe(wrapper)
    assert "wrapper recipe" in text and "learned from 4 page(s)" in text
    assert "recipe_title" in text and "h1.recipe-title" in text
    titles = ("Tomato Soup", "Lemon Cake", "Rice Salad", "Garlic Bread")
    assert any(f'"{t}"' in text for t in titles)
    assert "optional nodes" in text
    assert "nothing learned" in describe(Wrapper())


def test_snake_names():
    assert snake("restaurantReviewTable") == "restaurant_review_table"
    assert snake("Price:") == "price"
    assert snake("og:title") == "og_title"
    assert snake("2 cups") == "f_2_cups"
    assert snake("Préparation") == "préparation"
