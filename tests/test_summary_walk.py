"""The compiled summary walk (``_walk.c``) gives exactly the Python walk's summaries."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree, html

from pagesim_scrapy.core import summary
from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, iter_page_paths, read_page_bytes
from pagesim_scrapy.core.summary import PageSummary, SummaryOptions, parse_html

from .conftest import FIXTURES, shared_data

needs_walk = pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")

OPTIONS = [
    SummaryOptions(),
    SummaryOptions(max_nodes=300),
    SummaryOptions(max_nodes=7),
    SummaryOptions(max_depth=3),
    SummaryOptions(normalise_volatile=False),
    SummaryOptions(skip_tags=frozenset(), rpsa_attributes=("a.href", "li.class")),
]


def option_id(options: SummaryOptions) -> str:
    """A stable test id (a frozenset's repr changes with the hash seed: xdist workers differ)."""
    return ",".join(
        f"{name}={sorted(value) if isinstance(value, frozenset) else value}"
        for name, value in vars(options).items()
    )


def fields(s: PageSummary) -> tuple:
    return (s.bfs, s.parent_bfs, s.level_starts, s.tags, s.classes, s.title)


def both_walks(root, options: SummaryOptions) -> tuple[PageSummary, PageSummary]:
    start = summary._start_element(root)
    return (
        summary._summarize_compiled(start, options, None),
        summary._summarize_python(start, options, None),
    )


@needs_walk
@pytest.mark.parametrize("options", OPTIONS, ids=option_id)
def test_real_pages_identical_under_both_parsers(options: SummaryOptions):
    pages = list(iter_page_paths([FIXTURES]))
    assert pages
    for path in pages:
        raw = read_page_bytes(path)
        for root in (parse_html(raw), html.fromstring(raw)):
            compiled, python = both_walks(root, options)
            assert fields(compiled) == fields(python), path


@needs_walk
def test_every_shared_page_identical():
    # recipe-scrapers' pages end in .testhtml, which folder walking leaves out: name it here
    pages = list(iter_page_paths([shared_data()], (*PAGE_SUFFIXES, ".testhtml")))
    for path in pages:
        root = parse_html(read_page_bytes(path))
        compiled, python = both_walks(root, SummaryOptions(max_nodes=300))
        assert fields(compiled) == fields(python), path
        compiled, python = both_walks(root, summary.DEFAULT_OPTIONS)
        assert fields(compiled) == fields(python), path


def _fresh_walkers(options: SummaryOptions) -> tuple[object, object, list[int]]:
    """A walker computing codes itself and one asking Python for every new descriptor."""
    cache = summary._LabelCache(options)
    calls = [0]

    def counted(tag, items):
        calls[0] += 1
        return cache.resolve(tag, items)

    names = sorted(cache.value_names | {"class", "id"}) if options.normalise_volatile else None
    skip = tuple(options.skip_tags)
    native = summary._walk_c.Walker(skip, names, counted, 10**7, **cache.native_labels())
    python = summary._walk_c.Walker(skip, names, cache.resolve, 10**7)
    return native, python, calls


@needs_walk
@pytest.mark.parametrize("options", OPTIONS, ids=option_id)
def test_native_codes_are_the_resolved_codes_on_shared_pages(options: SummaryOptions):
    native, python, calls = _fresh_walkers(options)
    pages = list(iter_page_paths([shared_data()], (*PAGE_SUFFIXES, ".testhtml")))
    for path in pages:
        start = summary._start_element(parse_html(read_page_bytes(path)))
        assert native.walk(start, -1, -1) == python.walk(start, -1, -1), path
    assert native.size() == python.size() > 0
    assert calls[0] < native.size() / 10  # the Python callback only for non-ASCII descriptors


ODD = b"""<html><body class="x"><div id="post-123" class="a  b\tc css-1x9f3a"><input disabled
class="q&amp;r" xml:lang="en"><svg xmlns="http://www.w3.org/2000/svg"><path d="1"/></svg>
<!-- comment --><?pi x?>&nbsp;<p a="" data-id="77">x</p><script>s</script>
<span id="\xc3\xa9l\xc3\xa9ment-\xd9\xa3\xd9\xa4">unicode digits</span>
<div class="grid-1 grid-22 row_12ab34 \x1cx">separators</div></div></body></html>"""


@needs_walk
@pytest.mark.parametrize("options", OPTIONS, ids=option_id)
def test_odd_markup_identical(options: SummaryOptions):
    for root in (parse_html(ODD), html.fromstring(ODD), etree.fromstring(ODD, etree.HTMLParser())):
        compiled, python = both_walks(root, options)
        assert fields(compiled) == fields(python)


@needs_walk
def test_namespaced_xml_tree_identical():
    root = etree.fromstring(
        b'<r xmlns:x="urn:x"><x:a x:k="v" class="c"><b id="i-1"/></x:a><c x:class="z"/></r>'
    )
    compiled, python = both_walks(root, summary.DEFAULT_OPTIONS)
    assert fields(compiled) == fields(python)
    assert compiled.tags == ["r", "{urn:x}a", "c", "b"]


@needs_walk
def test_deep_nesting_is_walked_without_recursion():
    depth = 20_000
    root = parse_html(b"<div>" * depth + b"x" + b"</div>" * depth)
    compiled, python = both_walks(root, summary.DEFAULT_OPTIONS)
    assert fields(compiled) == fields(python)
    assert compiled.depth == len(compiled.tags)


@needs_walk
def test_entity_references_in_attributes_fall_back_to_the_python_walk():
    parser = etree.XMLParser(resolve_entities=False)
    root = etree.fromstring(b'<!DOCTYPE r [<!ENTITY e "v">]><r><a class="x&e;y"/></r>', parser)
    start = summary._start_element(root)
    with pytest.raises(summary._walk_c.Unsupported):
        summary._summarize_compiled(start, summary.DEFAULT_OPTIONS, None)
    result = summary.summarize_tree(root)  # falls back instead of failing
    assert result.tags == ["r", "a"]


@needs_walk
def test_non_element_start_is_refused():
    with pytest.raises(TypeError):
        summary._label_cache(summary.DEFAULT_OPTIONS).walker.walk("body", -1, -1)


@needs_walk
@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from([*"ab_Z09 5-~.\t\n\x0b\x0c\r\x1c\x1f", "\u00e9", "\u0663"]),
        max_size=40,
    )
)
def test_compiled_normalisation_matches_python(value: str):
    expected = summary.normalise_value(" ".join(value.split()))
    compiled = summary._walk_c.normalise(value)
    # non-ASCII values are left for Python to normalise (normalising twice changes nothing)
    assert summary.normalise_value(" ".join(compiled.split())) == expected
    if value.isascii():
        assert compiled == expected


@needs_walk
def test_descriptor_memory_is_bounded():
    def resolve(tag: str, items: tuple) -> str:
        return "abc"

    # raw values (no normalisation): every id makes a new descriptor
    walker = summary._walk_c.Walker(("script",), None, resolve, 50)
    sizes = []
    for page in range(20):
        ids = "".join(f'<p id="x{page}y{i}z"></p><i class="c{i} d"></i>' for i in range(10))
        rsn, *_ = walker.walk(summary._start_element(parse_html(f"<body>{ids}</body>")), -1, -1)
        assert rsn == "a" * 21
        sizes.append(walker.size())
    assert max(sizes) <= 50 + 21
    assert any(later < earlier for earlier, later in itertools.pairwise(sizes))  # started afresh


@needs_walk
def test_walks_from_many_threads_match_one_thread():
    from concurrent.futures import ThreadPoolExecutor

    pages = [read_page_bytes(p) for p in iter_page_paths([FIXTURES])]
    options = SummaryOptions(max_nodes=500)  # its own walker, fresh descriptor memory
    roots = [parse_html(raw) for raw in pages] * 4
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(lambda root: summary.summarize_tree(root, options), roots))
    for root, result in zip(roots, threaded):
        start = summary._start_element(root)
        assert fields(result) == fields(summary._summarize_python(start, options, None))


def test_c_walk_usable_only_with_the_versions_it_was_built_against() -> None:
    running = ("6.1.3.0", "2.14.6")
    assert summary.c_walk_usable(running, running) is None
    assert "lxml 6.0.0.0" in summary.c_walk_usable(("6.0.0.0", "2.14.6"), running)
    assert "libxml2 2.13.0" in summary.c_walk_usable(("6.1.3.0", "2.13.0"), running)
    assert "does not record" in summary.c_walk_usable((None, None), running)


@needs_walk
def test_compiled_walk_matches_the_running_lxml() -> None:
    built = (summary._walk_c.BUILT_LXML, summary._walk_c.BUILT_LIBXML)
    assert summary.c_walk_usable(built, summary.running_versions()) is None


@needs_walk
def test_a_version_mismatch_falls_back_to_the_python_walk(monkeypatch, caplog) -> None:
    monkeypatch.setattr(summary._walk_c, "BUILT_LXML", "0.0.0.0")
    with caplog.at_level("INFO", logger=summary.__name__):
        assert summary._load_compiled_walk() is None
    lines = [r for r in caplog.records if r.name == summary.__name__]
    assert len(lines) == 1
    assert lines[0].levelname == "INFO"
    assert "lxml 0.0.0.0" in lines[0].getMessage()
