"""An anchored value is taken only where it looks like the values that agreed on the site's
pages (a list where the name is one, no style or script text, a size within theirs); and a
settled label, which reads only its learned keys, reads the elements near the anchors of the
keys a page lacks, and fills the page as the whole body would."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import anchor_fields, body_fields
from pagesim_scrapy.core.record.bodyvalues import looks_like_code
from pagesim_scrapy.core.record.model import CoreRecord
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions
from tests.anchor_recipes import URL, learned_naming, recipe_page


def _root(html: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(html)


def _page(name: str, summary: str, steps: list[str], wrap: bool = False) -> str:
    return recipe_page(name, summary, steps, wrap=wrap)


def _learned(options: NamingOptions) -> BodyNaming:
    return learned_naming(options, stop=True)


BARE = CoreRecord("page", {}, {})


def _filled(options: NamingOptions, summary: str, steps: list[str]) -> dict[str, object]:
    page = body_fields(_root(_page("Pasta", summary, steps, wrap=True)), URL)
    filled = _learned(options).fill(BARE, page)
    return {name: value.value for name, value in filled.fields.items()}


def test_css_and_script_text_reads_as_code():
    assert looks_like_code(".css-18pb4rg{border:0;border-bottom:thin solid black;}")
    assert looks_like_code("window.x = 1; var queue = [];")
    assert not looks_like_code("Whisk the batter: two eggs, a cup of milk {optional}")
    assert not looks_like_code("Bake at 350F for 20 minutes; let it cool.")


def test_an_anchored_value_must_look_like_those_that_agreed():
    steps = ["Boil the water", "Add the pasta"]
    summary = "Plain pasta for a weeknight dinner"
    anchored = NamingOptions(anchored=True, anchor_size_slack=0, anchor_no_code=False)
    assert _filled(anchored, summary, steps) == {
        "description": summary,
        "recipe_instructions": steps,
    }
    # a list-valued name only
    lists = NamingOptions(anchored=True, anchor_lists_only=True, anchor_size_slack=0)
    assert _filled(lists, summary, steps) == {"recipe_instructions": steps}
    # a text far longer than the site's summaries is a content block, not a summary
    block = " ".join([summary] * 8)
    sized = NamingOptions(anchored=True, anchor_size_slack=1.5, anchor_no_code=False)
    assert _filled(sized, block, steps) == {"recipe_instructions": steps}
    assert _filled(sized, summary, steps)["description"] == summary
    # a list of many more steps than the site's lists had
    assert "recipe_instructions" not in _filled(sized, summary, [f"Step {k}" for k in range(9)])
    # a style sheet left in the body is never a description
    css = ".css-1x{border:0;margin:1rem 0;} .css-2y{display:flex;}"
    code = NamingOptions(anchored=True, anchor_no_code=True, anchor_size_slack=0)
    assert "description" not in _filled(code, css, steps)
    assert "description" in _filled(anchored, css, steps)
    # the leave-one-site-out choice, for when ``anchored`` is switched on
    chosen = NamingOptions()
    assert (chosen.anchor_depth, chosen.anchor_size_slack, chosen.anchor_no_code) == (1, 2.0, True)
    assert not chosen.anchored and not chosen.anchor_lists_only


def test_a_settled_read_finds_the_anchored_elements_the_whole_body_has():
    options = NamingOptions(anchored=True, anchor_size_slack=1.5, anchor_no_code=True)
    naming = _learned(options)
    wanted = naming.wanted()
    assert wanted is not None
    steps = ["Boil the water", "Add the pasta", "Drain"]
    root = _root(_page("Pasta", "Plain pasta for a weeknight dinner", steps, wrap=True))
    whole = body_fields(root, URL)
    part = body_fields(root, URL, wanted)
    steps_needed = naming.missing_anchors(BARE, part)
    assert steps_needed == {"li#instruction-step", "div.recipe-summary"}
    near = anchor_fields(root, URL, steps_needed, options.anchor_depth)
    assert set(near) <= set(whole) and all(whole[key] == near[key] for key in near)
    assert naming.fill(BARE, {**part, **near}) == naming.fill(BARE, whole)
    assert naming.fill(BARE, {**part, **near}).fields["recipe_instructions"].value == steps
    # a page with its learned keys needs no more reading; nor does a naming without anchors
    plain = body_fields(_root(_page("Pasta", "Plain pasta", steps)), URL, wanted)
    assert naming.missing_anchors(BARE, plain) == frozenset()
    assert _learned(NamingOptions()).missing_anchors(BARE, part) == frozenset()
