"""Fuzzing (issue 14, "Keep it so"): mutated real pages through every layer of pagesim.

Pages: a fixed sample of real pages from ../shared/data (every dataset), mutated by hypothesis:
truncation, byte flips, deleted and duplicated tag spans, deep nesting, huge attributes and
many attributes, bad or unknown charsets (and bytes re-encoded to them), control characters in
links, NUL bytes, and mixtures of these. On every mutated page:

* the compiled summary walk (``_walk.c``) gives exactly the Python walk's summary (both
  parsers, several summary options);
* every registered similarity measure, with each of its choices, is within [0, 1], symmetric,
  and 1.0 on a page against itself;
* template induction, extraction, content analysis and clustering raise nothing but their
  documented errors (``PageParseError`` and its subclasses, ``WrapperError``).

The default run is short (``PAGESIM_FUZZ_EXAMPLES``, default 60 examples per test, a few
hundred in all, well under a minute); set it higher for a campaign, e.g.
``PAGESIM_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz.py``. ``.ci/sanitize`` runs this
file against an ASan/UBSan build of both C extensions.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from lxml import html as lxml_html

from pagesim_scrapy.core import summary
from pagesim_scrapy.core.cluster import OnlineDiscovery, cluster_pages
from pagesim_scrapy.core.content import ContentInputError, analyze_content
from pagesim_scrapy.core.induce import PageParseError as InducePageParseError
from pagesim_scrapy.core.induce import Wrapper, WrapperError, induce
from pagesim_scrapy.core.pageio import iter_page_paths, read_page_bytes
from pagesim_scrapy.core.similarity import METHODS, similarity
from pagesim_scrapy.core.summary import PageParseError, SummaryOptions, parse_html, summarize
from tests.conftest import SHARED_DATA

EXAMPLES = int(os.environ.get("PAGESIM_FUZZ_EXAMPLES", "60"))
#: pages in the sample, at most this big (bigger pages make each example slow, not harder)
POOL = 48
MAX_BYTES = 120_000
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=os.environ.get("PAGESIM_FUZZ_RANDOM", "") == "",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: what the parsers may raise for input they cannot use (documented)
PARSE_ERRORS = (PageParseError, InducePageParseError, ContentInputError)

OPTIONS = [
    SummaryOptions(),
    SummaryOptions(max_nodes=300),
    SummaryOptions(max_depth=4, normalise_volatile=False),
    SummaryOptions(skip_tags=frozenset(), rpsa_attributes=("a.href", "li.class", "div.id")),
]


@cache
def pool() -> list[bytes]:
    """A fixed sample of real pages of every dataset in ../shared/data (sorted, then drawn with a
    fixed seed), at most MAX_BYTES each."""
    if not SHARED_DATA.is_dir():
        return []
    paths = sorted(iter_page_paths([SHARED_DATA]))
    random.Random(14).shuffle(paths)
    pages: list[bytes] = []
    for path in paths:
        data = read_page_bytes(path)
        if 2_000 <= len(data) <= MAX_BYTES:
            pages.append(data)
        if len(pages) == POOL:
            break
    return pages


def real_page(index: int) -> bytes:
    pages = pool()
    if not pages:
        pytest.skip(f"{SHARED_DATA} not available")
    return pages[index % len(pages)]


_TAG = re.compile(rb"<[^<>]{0,200}>")
_ATTR_NAME = re.compile(rb"(?<=\s)[a-z][a-z-]*(?==)")
CHARSETS = ["idna", "utf-7", "utf-16", "utf-32", "bogus-8", "latin-1", "shift_jis", "cp1252", ""]


def _tag_positions(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _TAG.finditer(data)]


def mutate(data: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    """Apply the drawn mutations in turn. ``a`` seeds where (spread over the page even for the
    small numbers hypothesis favours), ``b`` how much."""
    for kind, seed, b in ops:
        n = max(len(data), 1)
        a = random.Random(seed).randrange(2**31)
        if kind == "truncate":
            data = data[: a % n]  # (seed 0 still truncates at a random place)
        elif kind == "flip":
            rng = random.Random(a)
            buf = bytearray(data)
            for _ in range(1 + b % 64):
                if buf:
                    buf[rng.randrange(len(buf))] = rng.randrange(256)
            data = bytes(buf)
        elif kind in ("delete", "duplicate"):
            tags = _tag_positions(data)
            if len(tags) >= 2:
                i = a % len(tags)
                j = min(len(tags) - 1, i + 1 + b % 40)
                start, end = tags[i][0], tags[j][1]
                span = data[start:end]
                data = data[:start] + (span * 2 if kind == "duplicate" else b"") + data[end:]
        elif kind == "nest":
            depth = 1 + b % 3000
            tag = [b"div", b"span", b"table", b"li", b"a"][a % 5]
            at = a % n
            data = data[:at] + b"<" + tag + b">" * 1 + (b"<" + tag + b">") * depth + data[at:]
        elif kind == "attribute":
            at = a % n
            if b % 2:
                attr = b' class="' + b"c " * (1 + b % 60_000) + b'"'
            else:
                attr = b"".join(b" data-a%d='%d'" % (k, k) for k in range(1 + b % 3000))
            data = data[:at] + b"<div id='x'" + attr + b">huge</div>" + data[at:]
        elif kind == "charset":
            charset = CHARSETS[a % len(CHARSETS)].encode()
            meta = b'<meta charset="' + charset + b'">'
            data = data.replace(b"<head>", b"<head>" + meta, 1) if b % 2 else meta + data
            if b % 3 == 0 and charset:
                with contextlib.suppress(LookupError, UnicodeError):
                    data = data.decode("utf-8", "replace").encode(charset.decode(), "replace")
        elif kind == "control":
            char = bytes([a % 32])
            data = data.replace(b'href="', b'href="' + char, 1 + b % 5)
        elif kind == "nul":
            at = a % n
            data = data[:at] + b"\x00" * (1 + b % 64) + data[at:]
        elif kind == "case":  # attribute names in upper or mixed case (meaningful in XML)
            at = a % n
            head, tail = data[:at], data[at:]
            upper = b % 2 == 1

            def change(match: re.Match[bytes], upper: bool = upper) -> bytes:
                return match.group(0).upper() if upper else match.group(0).title()

            data = head + _ATTR_NAME.sub(change, tail, count=1 + b % 500)
        elif kind == "empty_class":
            at = a % n
            data = data[:at] + b'<div class=""><p class="">x</p></div>' + data[at:]
    return data


KINDS = [
    "truncate",
    "flip",
    "delete",
    "duplicate",
    "nest",
    "attribute",
    "charset",
    "control",
    "nul",
    "empty_class",
    "case",
]
operation = st.tuples(st.sampled_from(KINDS), st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1))
#: (index of a real page, mutations): small to print when a case fails; ``page()`` applies them
mutated_pages = st.tuples(st.integers(0, POOL - 1), st.lists(operation, min_size=1, max_size=4))
Drawn = tuple[int, list[tuple[str, int, int]]]


def page(drawn: Drawn) -> tuple[int, bytes]:
    index, ops = drawn
    return index, mutate(real_page(index), ops)


#: Known bugs in core/induce (outside this branch's files; the crawl's pipeline catches both,
#: issue 14 item 2), each kept as a strict-xfail reproducer at the end of this file:
#: ``decode_html`` catches LookupError but not the UnicodeError of a codec with no "replace"
#: handler (``<meta charset="idna">``), and ``absolutise_links`` sets link values that lxml
#: refuses (a control character in an href): ``induce``, ``Wrapper.add_page`` and
#: ``Wrapper.extract`` raise them instead of skipping the page or giving a reason.
def known_core_bug(exc: BaseException) -> bool:
    text = str(exc)
    if isinstance(exc, UnicodeError) and "Unsupported error handling" in text:
        return True
    return isinstance(exc, ValueError) and "All strings must be XML compatible" in text


@contextlib.contextmanager
def tolerating_known_core_bugs() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        if not known_core_bug(exc):
            raise


def parse_or_none(data: bytes) -> Any:
    try:
        return parse_html(data)
    except PageParseError:
        return None


# --- the compiled walk is the Python walk ----------------------------------------------------


def _fields(s: summary.PageSummary) -> tuple[Any, ...]:
    return (s.bfs, s.parent_bfs, s.level_starts, s.tags, s.classes, s.title)


@pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")
@FUZZ
@given(drawn=mutated_pages, option=st.sampled_from(range(len(OPTIONS))))
def test_compiled_walk_equals_python_walk(drawn: Drawn, option: int) -> None:
    _, data = page(drawn)
    options = OPTIONS[option]
    roots = []
    root = parse_or_none(data)
    if root is not None:
        roots.append(root)
    # lxml.html's own refusals are not pagesim's parser's
    with contextlib.suppress(ValueError, TypeError, lxml_html.etree.ParserError):
        roots.append(lxml_html.fromstring(data))
    # the page read as XML (attribute names keep their case)
    with contextlib.suppress(ValueError, TypeError, etree.XMLSyntaxError):
        xml_root = etree.fromstring(data, etree.XMLParser(recover=True, resolve_entities=False))
        if xml_root is not None:
            roots.append(xml_root)
    for tree in roots:
        start = summary._start_element(tree)
        compiled = summary._summarize_compiled(start, options, None)
        python = summary._summarize_python(start, options, None)
        assert _fields(compiled) == _fields(python)


# --- every measure: [0, 1], symmetric, 1.0 on identical pages --------------------------------


def _variants() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for name, measure in sorted(METHODS.items()):
        out.append((name, {}))
        for param, choices in measure.choices.items():
            for choice in choices:
                if choice != measure.defaults.get(param):
                    out.append((name, {param: choice}))
    return out


VARIANTS = _variants()
MEASURE_OPTIONS = SummaryOptions(max_nodes=300)  # the crawl's budget: TED stays fast


@FUZZ
@given(first=mutated_pages, second=mutated_pages, variant=st.sampled_from(range(len(VARIANTS))))
def test_every_measure_is_bounded_symmetric_and_one_on_itself(
    first: Drawn, second: Drawn, variant: int
) -> None:
    name, params = VARIANTS[variant]
    summaries = []
    for _, data in (page(first), page(second)):
        try:
            summaries.append(summarize(data, MEASURE_OPTIONS))
        except PageParseError:
            continue
    if not summaries:
        return
    # the real page each mutation came from, as a third page
    summaries.append(summarize(real_page(first[0]), MEASURE_OPTIONS))
    for a in summaries:
        assert similarity(a, a, name, **params) == 1.0, (name, params)
        for b in summaries:
            ab = similarity(a, b, name, **params)
            ba = similarity(b, a, name, **params)
            assert 0.0 <= ab <= 1.0 and math.isfinite(ab), (name, params, ab)
            assert abs(ab - ba) <= 1e-9, (name, params, ab, ba)


# --- induction, extraction, content, clustering: only documented errors ----------------------


@FUZZ
@given(drawn=st.lists(mutated_pages, min_size=1, max_size=3))
def test_induction_and_extraction_raise_only_documented_errors(drawn: list[Drawn]) -> None:
    pages = [page(d) for d in drawn]
    datas = [data for _, data in pages]
    originals = [real_page(index) for index, _ in pages]
    wrapper = induce(originals[:1], label="fuzz")
    with tolerating_known_core_bugs():
        wrapper = induce(datas + originals[:1], label="fuzz")  # unparseable pages are skipped
    incremental = Wrapper(label="fuzz")
    for data in datas:
        with contextlib.suppress(InducePageParseError), tolerating_known_core_bugs():
            incremental.add_page(data, url="http://example.test/a/b.html")
    for w in (wrapper, incremental):
        if w.pages:
            with contextlib.suppress(WrapperError):
                w.compiled()
            # a saved wrapper loads back
            assert Wrapper.from_json(w.to_json()).to_json() == w.to_json()
        for data in [*datas, *originals]:
            with tolerating_known_core_bugs():
                result = w.extract(data, url="http://example.test/")
                assert isinstance(result.record, dict)
                assert 0.0 <= result.fit <= 1.0
                assert result.ok or result.reason


@FUZZ
@given(drawn=st.lists(mutated_pages, min_size=1, max_size=4))
def test_the_induction_pipeline_never_raises_on_a_page(drawn: list[Drawn]) -> None:
    """The crawl's entry points (``_learn``, ``_extract`` of the real pipeline) never raise:
    every failure is an outcome with a reason, and the wrapper is only touched by pages that
    were learned."""
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    crawler = get_crawler(
        settings_dict={"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_MIN_PAGES": 2}
    )
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    state = pipeline._label("fuzz")
    pages = [page(d) for d in drawn]
    for k, (index, data) in enumerate(pages):
        for html in (data, data.decode("utf-8", "replace"), real_page(index)):
            url = f"http://example.test/{k}.html"
            outcome, reason, root = pipeline._learn(state, html, url)
            assert outcome in ("learned", "duplicate", "full", "error", "failed")
            assert (reason is not None) == (outcome in ("error", "failed"))
            before = state.wrapper.to_json() if state.pages else None
            extraction = pipeline._extract(state, html, url)
            assert extraction.ok or extraction.reason
            if root is not None and state.pages:
                # the tree learning parsed gives the same extraction as the HTML parsed again
                again = pipeline._extract(state, root, url)
                assert (again.record, again.records, again.fit, again.reason) == (
                    extraction.record,
                    extraction.records,
                    extraction.fit,
                    extraction.reason,
                )
            if before is not None:
                assert state.wrapper.to_json() == before
    pipeline._relearn_locked(state)
    assert state.failed is None


@FUZZ
@given(drawn=mutated_pages, query=st.sampled_from([None, "python release notes", "recipe"]))
def test_content_analysis_raises_only_documented_errors(drawn: Drawn, query: str | None) -> None:
    _, data = page(drawn)
    for source in (data, data.decode("utf-8", "replace")):
        try:
            result = analyze_content(source, query=query)
        except PARSE_ERRORS:
            continue
        assert isinstance(result.main_text, str)
        if query is not None and result.score is not None:
            assert 0.0 <= result.score <= 1.0


@FUZZ
@given(drawn=st.lists(mutated_pages, min_size=2, max_size=5))
def test_clustering_and_discovery_raise_only_documented_errors(drawn: list[Drawn]) -> None:
    pages = [page(d) for d in drawn]
    summaries = []
    for index, data in pages:
        summaries.append(summarize(real_page(index), MEASURE_OPTIONS))
        try:
            summaries.append(summarize(data, MEASURE_OPTIONS))
        except PageParseError:
            continue
    for algorithm in ("online", "agglomerative", "snn"):
        clustering = cluster_pages(summaries, algorithm=algorithm, method="lcs")
        assert len(clustering.assignments) == len(summaries)
        assert sum(cluster.size for cluster in clustering.clusters) == len(summaries)
    discovery = OnlineDiscovery(method="lcs")
    for k, (index, data) in enumerate(pages):
        for source in (data, real_page(index)):
            try:
                found = summarize(source, discovery.options)
            except PageParseError:
                continue
            _, score, _ = discovery.assign(found, source=f"http://example.test/{k}", html=data)
            assert 0.0 <= score <= 1.0


# --- once known bugs in core/induce, fixed: induction learns such pages ----------------------


def test_an_idna_charset_page_is_learned() -> None:
    data = b'<html><head><meta charset="idna"></head><body><p>caf\xc3\xa9</p></body></html>'
    wrapper = Wrapper(label="idna")
    wrapper.add_page(data)
    assert wrapper.extract(data).fit > 0.0


def test_a_control_character_in_a_link_is_left_as_it_was() -> None:
    data = b'<html><body><a href="p\x01.html">x</a><a href="q.html">y</a><p>t</p></body></html>'
    wrapper = Wrapper(label="control")
    wrapper.add_page(data, url="http://example.test/")
    assert wrapper.extract(data, url="http://example.test/").fit > 0.0


# --- item 8: layers with align="lcs" is symmetric ------------------------------------------


def test_layers_lcs_is_symmetric_on_real_and_mutated_pages() -> None:
    """Issue 14's reproducer: about a third of mutated real pages gave two values, one per
    argument order (editops picks one of several LCS alignments)."""
    pages = pool()
    if not pages:
        pytest.skip(f"{SHARED_DATA} not available")
    summaries = []
    for k, data in enumerate(pages[:16]):
        for ops in ([], [("delete", k, k)], [("duplicate", k + 100, k)]):
            with contextlib.suppress(PageParseError):
                summaries.append(summarize(mutate(data, ops), MEASURE_OPTIONS))
    asymmetric = 0
    for a, b in itertools.pairwise(summaries):
        ab = similarity(a, b, "layers", align="lcs")
        ba = similarity(b, a, "layers", align="lcs")
        asymmetric += abs(ab - ba) > 1e-9
    assert asymmetric == 0


# --- item 8: the Python walk's label cache keys; attribute-name case on XML trees ------------

CACHE_COLLISIONS = [
    # the reproducer: (tag, *names, *values) read the same for both
    (
        '<div type="data-a" class="class" id="data-b">x</div>',
        '<div id="class" data-a="q" class="type" data-b="r">y</div>',
    ),
    # a class/id-only key against one with other structural attributes
    ('<div class="type" id="role">x</div>', '<div type="class" role="id">y</div>'),
]


@pytest.mark.parametrize(("first", "second"), CACHE_COLLISIONS)
def test_the_python_walk_label_cache_keys_are_unambiguous(first: str, second: str) -> None:
    def csr(markup: str, options: SummaryOptions) -> str:
        start = summary._start_element(parse_html(f"<body>{markup}</body>"))
        return summary._summarize_python(start, options, None).bfs["csr"]

    fresh, warm = SummaryOptions(max_nodes=1001), SummaryOptions(max_nodes=1002)  # two caches
    alone = csr(second, fresh)
    csr(first, warm)  # the first element's key is cached
    assert csr(second, warm) == alone


XML_PAGES = [
    '<html><body><div CLASS="a b" ID="x1"><p Class="q">t</p><a HREF="u" Type="k">l</a>'
    '<div class="A">z</div></div></body></html>',
    '<html><body><div Class="a"><span ROLE="button" class="b">t</span></div></body></html>',
    '<html><body><div CLASS="a"/><div CLASS="b"/><div class=""/></body></html>',
]


@pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")
@pytest.mark.parametrize("markup", XML_PAGES)
@pytest.mark.parametrize("option", range(len(OPTIONS)))
def test_walks_agree_on_attribute_name_case_in_xml_trees(markup: str, option: int) -> None:
    start = summary._start_element(etree.fromstring(markup))
    options = OPTIONS[option]
    compiled = summary._summarize_compiled(start, options, None)
    python = summary._summarize_python(start, options, None)
    assert _fields(compiled) == _fields(python)
    if markup.startswith('<html><body><div CLASS="a"/>') and options.normalise_volatile:
        # CLASS counts as class: two different values, two different codes
        assert python.bfs["csr"][1] != python.bfs["csr"][2]


@pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")
def test_an_empty_first_class_value_is_walked() -> None:
    """UBSan reported memcpy(NULL, "", 0) in _walk.c for an empty first value (run by
    .ci/sanitize under -fsanitize=undefined)."""
    assert summary._walk_c.normalise("") == ""
    for markup in ('<body><div class=""><p class="">x</p></div></body>', '<p id="">y</p>'):
        start = summary._start_element(parse_html(markup))
        options = SummaryOptions(max_nodes=1003)
        compiled = summary._summarize_compiled(start, options, None)
        assert _fields(compiled) == _fields(summary._summarize_python(start, options, None))
