"""Content structure tree, main text, TF-IDF relevance (seed 001), and the ``content`` command."""

from __future__ import annotations

import gzip
import json
import logging
import math
import subprocess
import sys
import threading
from pathlib import Path

import lxml.html
import parsel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from pagesim_scrapy.core.content import (
    ContentInputError,
    ContentScorer,
    DocumentFrequencies,
    analyze_content,
    build_tree,
    cosine,
    extract_main,
    parse_html,
    query_weights,
    relevance,
    score_blocks,
    score_page,
    tokenize,
)
from pagesim_scrapy.core.content.evaluation import corpus_scores, match_page, shingles
from pagesim_scrapy.core.content.relevance import block_term_counts, page_terms
from tests.conftest import FIXTURES, shared_data

CONTENT_FIXTURES = FIXTURES / "content"
FIXTURE_TRUTH = json.loads((CONTENT_FIXTURES / "ground-truth.json").read_text(encoding="utf-8"))
ENGLISH = "14cc2a0ca59c62a8c9f205a171e9ccf4ef4cf69b0c642f51c8c65c051b39024f"
JAPANESE = "85439e26c41c75901820d01a13e8cea7836abb58635ea3986f71a163ab0311d3"
KOREAN = "0ec95c7261d122f304728e90c983450ef1ce1e0b423546835c397d50aaf0d0f2"


def fixture_html(key: str) -> bytes:
    return gzip.decompress((CONTENT_FIXTURES / f"{key}.html.gz").read_bytes())


P1 = (
    "Battery prices fell again this year, and electric cars now cost about as much as "
    "petrol cars in several European markets, according to the report."
)
P2 = (
    "Analysts expect the trend to continue as new factories open, although supply of "
    "lithium remains a risk for carmakers over the next decade."
)
P3 = "Charging networks are growing too, with a thousand new stations, the agency said."

ARTICLE_PAGE = f"""<!DOCTYPE html>
<html><head><title>Electric cars get cheaper | Car News</title>
<style>p {{ color: red }}</style><script>var tracking = "not text";</script></head>
<body>
<header class="site-header"><nav><ul>
  <li><a href="/">Home</a></li><li><a href="/cars">Cars</a></li>
  <li><a href="/bikes">Bikes</a></li><li><a href="/about">About us</a></li>
</ul></nav></header>
<div class="layout">
  <div class="article-body">
    <h1>Electric cars get cheaper</h1>
    <p>{P1}</p>
    <figure><img src="a.jpg" alt="A charging car"><figcaption>A car at a charger.
      Photo: agency</figcaption></figure>
    <p>{P2}</p>
    <noscript>Please enable JavaScript to read the comments.</noscript>
    <ul class="related-links">
      <li><a href="/1">Ten best family cars of the year</a></li>
      <li><a href="/2">How to charge at home</a></li>
      <li><a href="/3">Petrol prices explained</a></li>
    </ul>
    <p>Charging networks are growing too, with <a href="/n">a thousand new stations</a>,
    the <!-- editor note -->agency said.</p>
  </div>
  <aside class="sidebar"><p>Subscribe to our newsletter to get the best car stories of the
    week straight to your inbox, every Friday morning, for free.</p></aside>
</div>
<footer><p>Copyright 2024 Car News. All rights reserved. Terms of use and privacy policy.</p>
</footer>
</body></html>"""


# --- the content structure tree ---------------------------------------------------------------


def test_tree_blocks_and_content_nodes():
    tree = build_tree(ARTICLE_PAGE)
    tags = [b.tag for b in tree.blocks]
    assert tags[0] == "body"
    assert {"header", "nav", "ul", "div", "figure", "aside", "footer"} <= set(tags)
    texts = [n.text for n in tree.texts]
    assert P1 in texts and P2 in texts
    # script, style and noscript are dropped; the text after a comment is kept
    assert not any("tracking" in t or "JavaScript" in t or "color" in t for t in texts)
    assert P3 in texts
    third = next(n for n in tree.texts if n.text == P3)
    assert third.tag == "p" and third.link_chars == len("a thousand new stations")
    assert [i.text for i in tree.images] == ["A charging car"]
    assert "How to charge at home" in [link.text for link in tree.links]
    assert tree.title == "Electric cars get cheaper | Car News"
    # every block's text range covers exactly its subtree's text nodes
    for block in tree.blocks:
        inside = tree.texts[block.first_text : block.end_text]
        assert all(tree.is_ancestor(block.index, n.block) for n in inside)
        for child in block.children:
            assert tree.blocks[child].parent == block.index
            assert tree.blocks[child].depth == block.depth + 1


def test_tree_from_every_kind_of_root():
    """lxml.etree and lxml.html roots, an ElementTree, a parsel Selector, bytes and str."""
    expected = [n.text for n in build_tree(ARTICLE_PAGE).texts]
    etree_root = etree.fromstring(ARTICLE_PAGE.encode(), etree.HTMLParser())
    html_root = lxml.html.fromstring(ARTICLE_PAGE)
    sources = [
        ARTICLE_PAGE.encode("utf-8"),
        etree_root,
        etree_root.getroottree(),
        html_root,
        parsel.Selector(text=ARTICLE_PAGE),
        etree_root.find("body"),
    ]
    for source in sources:
        assert [n.text for n in build_tree(source).texts] == expected, type(source)


def test_tree_leaves_the_dom_untouched():
    root = lxml.html.fromstring(ARTICLE_PAGE)
    before = etree.tostring(root)
    analyze_content(root, query="electric cars")
    assert etree.tostring(root) == before


def test_deeply_nested_page_is_walked_without_recursion():
    root = etree.Element("html")
    node = etree.SubElement(root, "body")
    for i in range(10_000):
        node = etree.SubElement(node, "div" if i % 2 else "span")
    node.text = "deep text about rivers and mountains"
    result = analyze_content(root, query="rivers")
    assert result.main_text == "deep text about rivers and mountains"
    assert result.score == pytest.approx(1 / math.sqrt(6))  # 1 of 6 terms, idf 1
    assert max(b.depth for b in result.tree.blocks) == 5_000
    assert result.main_block == result.best_block == len(result.tree.blocks) - 1


def test_hidden_blocks_and_invisible_characters_are_dropped():
    page = (
        "<body><div>visible\u200b text</div><div style='display: none'>secret one</div>"
        "<div hidden>secret two</div><div>soft\u00adhyphen</div></body>"
    )
    texts = [n.text for n in build_tree(page).texts]
    assert texts == ["visible text", "softhyphen"]


@pytest.mark.parametrize("bad", [b"", b"   \n ", "", b"\x00\x01\x02\x03 binary"])
def test_empty_and_binary_input_is_refused(bad):
    with pytest.raises(ContentInputError):
        build_tree(bad)
    with pytest.raises(ContentInputError):
        parse_html(bad)


def test_wrong_input_type_is_refused():
    with pytest.raises(ContentInputError, match="int"):
        build_tree(42)


_TAGS = ["div", "p", "span", "a", "table", "td", "ul", "li", "section", "nav", "h1", "br", "b"]


@st.composite
def random_pages(draw: st.DrawFn) -> str:
    """Random, often malformed, markup: unbalanced tags, comments, scripts, CJK text."""
    parts = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 5))
        tag = draw(st.sampled_from(_TAGS))
        if kind == 0:
            parts.append(f"<{tag} class='{draw(st.sampled_from(['nav', 'post', 'x']))}'>")
        elif kind == 1:
            parts.append(f"</{tag}>")
        elif kind == 2:
            parts.append(draw(st.sampled_from(["<!-- c -->", "<script>x()</script>", "&amp;"])))
        else:
            parts.append(draw(st.text(alphabet="abc xyz東京都\u200b.,", max_size=30)))
    return "<html><body>" + "".join(parts)


@settings(max_examples=80, deadline=None)
@given(random_pages(), st.sampled_from(["abc", "東京", "xyz abc"]))
def test_random_markup_never_crashes(page, query):
    try:
        result = analyze_content(page, query=query)
    except ContentInputError:
        return
    assert result.score is not None and 0.0 <= result.score <= 1.0
    texts = {n.text for n in result.tree.texts}
    assert all(line in texts for line in result.main_text.splitlines() if line)
    assert 0 <= result.main_block < len(result.tree.blocks)


def test_text_without_markup_and_a_body_without_text():
    assert analyze_content(b"just some words").main_text == "just some words"
    empty = analyze_content("<html><body><div><img src=x></div></body></html>", query="words")
    assert empty.main_text == "" and empty.score == 0.0


def test_non_utf8_page_uses_its_declared_charset():
    page = '<html><head><meta charset="windows-1251"></head><body><p>Привет мир</p></body></html>'
    tree = build_tree(page.encode("windows-1251"))
    assert [n.text for n in tree.texts] == ["Привет мир"]


# --- main content -----------------------------------------------------------------------------


def test_main_text_of_a_hand_made_article():
    tree = build_tree(ARTICLE_PAGE)
    main = extract_main(tree)
    assert tree.blocks[main.block].hint == "article-body"
    # headline, caption, related links, sidebar, navigation and footer are left out
    assert main.text == "\n".join([P1, P2, P3])


def test_main_block_of_a_table_layout_page():
    rows = "".join(f"<tr><td><a href='/{i}'>Section {i}</a></td></tr>" for i in range(12))
    story = " ".join(["The river flooded the old town after three days of rain."] * 6)
    page = (
        f"<body><table><tr><td class='menu'><table>{rows}</table></td>"
        f"<td><p>{story}</p><p>{story}</p></td></tr></table></body>"
    )
    tree = build_tree(page)
    main = extract_main(tree)
    assert tree.blocks[main.block].tag == "td"
    assert main.text == f"{story}\n{story}"


def test_main_block_is_not_inside_a_cookie_dialog():
    legal = " ".join(["We use cookies to improve your experience on our site."] * 8)
    story = " ".join(["The council approved the new bridge on Tuesday evening."] * 3)
    page = (
        f"<body><div class='post-content'><p>{story}</p></div>"
        f"<div class='cookie-modal'><div class='modal-body'><p>{legal}</p></div></div></body>"
    )
    assert extract_main(build_tree(page)).text == story


@pytest.mark.parametrize("key", [ENGLISH, JAPANESE, KOREAN])
def test_main_text_of_real_fixture_pages(key):
    main = analyze_content(fixture_html(key)).main_text
    match = match_page(FIXTURE_TRUTH[key]["articleBody"], main)
    assert match.f1 >= 0.9, (key, match)


def test_main_text_on_the_zyte_article_benchmark():
    """Regression guard on 181 real pages (the figure itself is in benchmarks/bench_content.py)."""
    folder = shared_data("zyte_article_extraction_benchmark")
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    matches = []
    for key, item in truth.items():
        page = gzip.decompress((folder / "html" / f"{key}.html.gz").read_bytes())
        matches.append(match_page(item["articleBody"], analyze_content(page).main_text))
    scores = corpus_scores(matches)
    assert scores.pages == 181
    assert scores.f1 >= 0.92, scores


# --- terms, document frequencies, cosine --------------------------------------------------------


def test_tokenize_words_and_cjk_bigrams():
    assert tokenize("Hello, World! a 42 café_au") == ["hello", "world", "42", "café", "au"]
    assert tokenize("東京都") == ["東京", "京都"]
    assert tokenize("雨") == ["雨"]
    assert tokenize("商標法違反に") == ["商標", "標法", "法違", "違反", "反に"]
    assert tokenize("한국어 문장") == ["한국어", "문장"]  # Hangul separates words with spaces
    assert tokenize("iPhone发布会") == ["iphone", "发布", "布会"]
    assert tokenize("") == [] and tokenize(" ,.!? ") == []


def test_document_frequencies_and_idf():
    df = DocumentFrequencies()
    df.add_page(["apple", "apple", "pear"])
    df.add_page(["apple"])
    df.add_page(["plum"])
    assert df.documents == 3 and len(df) == 3
    assert df.frequency("apple") == 2 and df.frequency("kiwi") == 0
    assert df.idf("apple") == pytest.approx(math.log(4 / 3) + 1)
    assert df.idf("kiwi") == pytest.approx(math.log(4) + 1)
    assert df.idf("kiwi") > df.idf("plum") > df.idf("apple")
    assert DocumentFrequencies.from_texts(["a pear", "pear plum"]).frequency("pear") == 2


def test_document_frequencies_round_trip_and_bad_data(tmp_path: Path):
    df = DocumentFrequencies.from_texts(["red apple", "green apple", "red plum"])
    path = tmp_path / "df.json"
    df.save(path)
    back = DocumentFrequencies.load(path)
    assert back.to_dict() == df.to_dict() and back.documents == 3
    for bad in ({}, {"format": 99}, {"format": 1, "documents": "x", "df": {}},
                {"format": 1, "documents": 1, "df": {"a": -1}}):  # fmt: skip
        with pytest.raises(ValueError):
            DocumentFrequencies.from_dict(bad)
    path.write_text("not json")
    with pytest.raises(ValueError, match="cannot read"):
        DocumentFrequencies.load(path)


def test_document_frequencies_forget_rare_terms_past_max_terms():
    df = DocumentFrequencies(max_terms=10)
    for _ in range(3):
        df.add_page(["common"])
    for i in range(20):
        df.add_page([f"rare{i}", "common"])
    assert len(df) <= 10
    assert df.frequency("common") == 23 and df.documents == 23


def test_document_frequencies_merge_and_thread_safety():
    df = DocumentFrequencies()

    def feed(offset: int) -> None:
        for i in range(500):
            df.add_page(["shared", f"t{offset}-{i % 7}"])

    threads = [threading.Thread(target=feed, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert df.documents == 2000 and df.frequency("shared") == 2000
    other = DocumentFrequencies.from_texts(["shared word"])
    df.merge(other)
    assert df.documents == 2001 and df.frequency("shared") == 2001 and df.frequency("word") == 1


def test_cosine_by_hand():
    assert cosine({"a": 1.0, "b": 1.0}, {"a": 1.0}) == pytest.approx(1 / math.sqrt(2))
    assert cosine({"a": 3.0}, {"a": 1.0}) == pytest.approx(1.0)
    assert cosine({}, {"a": 1.0}) == 0.0 and cosine({"a": 1.0}, {"b": 1.0}) == 0.0


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abcdef"), st.floats(0.01, 50), max_size=6),
    st.dictionaries(st.sampled_from("abcdef"), st.floats(0.01, 50), max_size=6),
)
def test_cosine_is_symmetric_and_bounded(a, b):
    assert cosine(a, b) == pytest.approx(cosine(b, a))
    assert 0.0 <= cosine(a, b) <= 1.0


# --- relevance: sibling elimination and ranking ------------------------------------------------

SIBLINGS = """<body>
  <div id="a">
    <div id="a1"><p>solar panels solar</p></div>
    <div id="a2"><p>football</p></div>
    <p>energy</p>
  </div>
  <div id="b"><p>cooking</p></div>
</body>"""


def test_sibling_elimination_worked_example():
    tree = build_tree(SIBLINGS)
    assert [b.hint for b in tree.blocks] == ["", "a", "a1", "a2", "b"]
    # idf = 1 without document frequencies: plain term-frequency cosine
    rel = score_blocks(tree, "solar energy", df=None, excluded=None)
    assert rel.scores[2] == pytest.approx(2 / math.sqrt(5 * 2))  # a1 = {solar: 2, panels: 1}
    assert rel.scores[3] == 0.0 and rel.scores[4] == 0.0
    # a keeps a1 and drops a2: V(a) = {energy: 1} + V(a1)
    assert rel.surviving_child[1] == 2
    assert rel.scores[1] == pytest.approx(3 / math.sqrt(6 * 2))
    assert rel.scores[0] == rel.scores[1] and rel.path() == [0, 1, 2]
    assert rel.best_block == 1 and rel.score == pytest.approx(3 / math.sqrt(12))


def test_sibling_elimination_drops_the_weaker_sibling():
    tree = build_tree(SIBLINGS)
    rel = score_blocks(tree, "solar football")
    # a1: 2 / sqrt(5 * 2) = 0.632 < a2: 1 / sqrt(2) = 0.707, so a2 survives alone
    assert rel.surviving_child[1] == 3
    # V(a) = {energy: 1, football: 1}: 1 / (sqrt(2) sqrt(2)) = 0.5 (with both children: 0.80)
    assert rel.scores[1] == pytest.approx(0.5)


def test_scope_main_ignores_furniture_blocks():
    page = f"""<body><nav><a href=/x>Volcano news</a> <a href=/y>Volcano photos</a></nav>
    <div class="story"><h1>Local elections</h1><p>{P1}</p><p>{P2}</p></div></body>"""
    assert relevance(page, "volcano", scope="page") > 0.5
    assert relevance(page, "volcano", scope="main") == 0.0
    assert relevance(page, "local elections") > 0.0  # the headline block counts
    with pytest.raises(ValueError, match="scope"):
        relevance(page, "volcano", scope="everything")


def test_query_ranks_the_matching_page_first():
    pages = {
        "cars": ARTICLE_PAGE,
        "bread": f"<body><div><h1>Sourdough at home</h1><p>Flour, water and salt make "
        f"bread; the starter needs a week.</p><p>{P3}</p></div></body>",
        "rivers": "<body><div><p>The river flooded the valley and farmers lost their "
        "crops after heavy rain.</p></div></body>",
    }
    df = DocumentFrequencies()
    for html in pages.values():
        analyze_content(html, df=df, learn=True)
    assert df.documents == 3
    for query, expected in [
        ("cheaper electric cars", "cars"),
        ("sourdough bread starter", "bread"),
        ("flooded river", "rivers"),
    ]:
        scores = {name: relevance(html, query, df) for name, html in pages.items()}
        assert max(scores, key=scores.__getitem__) == expected, (query, scores)
        assert all(0.0 <= s <= 1.0 for s in scores.values())


def test_real_pages_rank_first_for_their_own_topic_including_cjk():
    keys = [ENGLISH, JAPANESE, KOREAN]
    roots = {k: parse_html(fixture_html(k)) for k in keys}
    df = DocumentFrequencies()
    for root in roots.values():
        analyze_content(root, df=df, learn=True)
    for query, expected in [
        ("water plumes Europa", ENGLISH),
        ("商標法違反", JAPANESE),
        ("엘제이 류화영", KOREAN),
    ]:
        scores = {k: relevance(root, query, df) for k, root in roots.items()}
        assert max(scores, key=scores.__getitem__) == expected, (query, scores)
        assert scores[expected] > 0.1
        assert all(scores[k] == 0.0 for k in keys if k != expected), scores


def test_query_weights_follow_idf():
    df = DocumentFrequencies.from_texts(["common rare", "common", "common"])
    weights = query_weights("common rare rare", df)
    assert weights["rare"] == pytest.approx(2 * df.idf("rare"))
    assert weights["common"] == pytest.approx(df.idf("common"))


# --- crawl entry points -------------------------------------------------------------------------


def test_score_page_and_content_scorer():
    root = parsel.Selector(text=ARTICLE_PAGE).root
    score, text = score_page(root, "electric cars")
    assert score is not None and 0.0 < score <= 1.0 and text.startswith("Battery prices")
    assert score_page(root, None) == (None, text)

    scorer = ContentScorer("electric cars")
    assert scorer.df.documents == 0
    assert scorer.score(root)[0] == pytest.approx(score, abs=0.5)
    assert scorer.df.documents == 1  # learning as it goes
    assert scorer.analyze(root).main_text == text
    with pytest.raises(ValueError, match="no searchable"):
        ContentScorer("?!")


def test_bad_pages_are_logged_not_raised(caplog):
    scorer = ContentScorer("rivers", learn=False)
    with caplog.at_level(logging.WARNING, logger="pagesim_scrapy.core.content"):
        assert scorer.score(b"") == (0.0, "")
        assert score_page(b"\x00\x01\x02", None) == (None, "")
    assert "cannot analyse page" in caplog.text


def test_content_scorer_from_several_threads():
    scorer = ContentScorer("river valley")
    page = "<body><div><p>The river flooded the valley after the rain.</p></div></body>"
    results: list[tuple[float | None, str]] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(25):
            out = scorer.score(page)
            with lock:
                results.append(out)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert scorer.df.documents == 100 and len(results) == 100
    # identical pages: every idf is 1; V = {the: 3, river, flooded, valley, after, rain}
    assert all(s == pytest.approx(2 / (math.sqrt(14) * math.sqrt(2))) for s, _ in results)


def test_page_terms_include_image_alt():
    tree = build_tree(ARTICLE_PAGE)
    terms = page_terms(block_term_counts(tree))
    assert {"charging", "battery", "cheaper"} <= terms
    without_links = page_terms(block_term_counts(tree, link_weight=0.0))
    assert "bikes" in terms and "bikes" not in without_links


# --- the benchmark's metric ---------------------------------------------------------------------


def test_shingle_metric_by_hand():
    truth = "one two three four five"  # shingles: (1 2 3 4), (2 3 4 5)
    assert shingles(truth) == {("one", "two", "three", "four"): 1,
                               ("two", "three", "four", "five"): 1}  # fmt: skip
    assert shingles("a b") == {("a", "b"): 1} and shingles("") == {}
    m = match_page(truth, "one two three four six")  # tp 1, fp 1, fn 1, normalised by 3
    assert (m.tp, m.fp, m.fn) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert m.precision == pytest.approx(0.5) and m.recall == pytest.approx(0.5)
    perfect, empty = match_page(truth, truth), match_page(truth, "")
    assert perfect.f1 == 1.0 and empty.recall == 0.0 and empty.tp + empty.fp == 0.0
    scores = corpus_scores([m, perfect, empty])
    # precision averages the 2 pages that predicted something; recall all 3
    assert scores.precision == pytest.approx(0.75) and scores.recall == pytest.approx(0.5)
    assert scores.f1 == pytest.approx(2 * 0.75 * 0.5 / 1.25)


# --- the command line ---------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pagesim_scrapy", "content", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_with_a_query_learns_over_all_pages(tmp_path: Path):
    out = tmp_path / "out.jsonl"
    df_file = tmp_path / "df.json"
    proc = run_cli(
        "--query", "water plumes Europa", str(CONTENT_FIXTURES),
        "--output", str(out), "--save-df", str(df_file),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [set(r) for r in rows] == [{"path", "score", "main_text"}] * 3
    by_key = {Path(r["path"]).name.split(".")[0]: r for r in rows}
    assert max(by_key, key=lambda k: by_key[k]["score"]) == ENGLISH
    assert by_key[JAPANESE]["main_text"].startswith("先日、不正に改造したiPhone")
    saved = json.loads(df_file.read_text(encoding="utf-8"))
    assert saved["format"] == 1 and saved["documents"] == 3
    # the saved frequencies can seed a later run: 3 + 1 pages
    again = run_cli("--query", "Europa", "--df", str(df_file), "--save-df", str(df_file),
                    str(CONTENT_FIXTURES / f"{ENGLISH}.html.gz"))  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert json.loads(df_file.read_text(encoding="utf-8"))["documents"] == 4


def test_cli_without_query_and_with_bad_pages(tmp_path: Path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    broken = tmp_path / "broken.html.gz"
    broken.write_bytes(b"not gzip at all")
    page = tmp_path / "page.html"
    page.write_text(ARTICLE_PAGE, encoding="utf-8")
    proc = run_cli(str(page), str(empty), str(broken))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0] == {"path": str(page), "score": None, "main_text": "\n".join([P1, P2, P3])}
    assert rows[1]["main_text"] is None and "empty document" in rows[1]["error"]
    assert rows[2]["main_text"] is None and "cannot read" in rows[2]["error"]
    assert "skipping" in proc.stderr


def test_cli_usage_errors(tmp_path: Path):
    missing = run_cli(str(tmp_path / "nope.html"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    page = tmp_path / "page.html"
    page.write_text(ARTICLE_PAGE, encoding="utf-8")
    no_words = run_cli("--query", "?!", str(page))
    assert no_words.returncode == 2 and "no searchable words" in no_words.stderr
    bad_df = tmp_path / "df.json"
    bad_df.write_text("{}")
    assert run_cli("--df", str(bad_df), str(page)).returncode == 2
