"""Template checks on real pages: Stack Overflow pages from tests/fixtures, broken and 404 saves."""

from __future__ import annotations

from pathlib import Path

from pagesim_scrapy.core.guard import (
    DUPLICATE,
    ERROR_PAGE,
    MIN_TEMPLATE_NODES,
    TINY,
    UNLIKE,
    UNLIKE_JACCARD,
    TemplateWarning,
    check_templates,
    format_warnings,
)
from pagesim_scrapy.core.site import structural_features
from pagesim_scrapy.core.summary import PageSummary, summarize

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SO = FIXTURES / "stackoverflow"
# A sciencealert.com news article (Zyte article extraction benchmark): a page of another site.
ARTICLE_SHA = "14cc2a0ca59c62a8c9f205a171e9ccf4ef4cf69b0c642f51c8c65c051b39024f"
ARTICLE = FIXTURES / "content" / f"{ARTICLE_SHA}.html.gz"

# A themed 404 page as sites serve it: the site's header, navigation and footer around the message.
NOT_FOUND_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>404 Not Found</title>
  <link rel="stylesheet" href="/static/site.css">
</head>
<body class="error-page">
  <header class="site-header">
    <a class="logo" href="/"><img src="/static/logo.svg" alt="Example Shop"></a>
    <nav class="main-nav">
      <ul>
        <li><a href="/new">New in</a></li>
        <li><a href="/women">Women</a></li>
        <li><a href="/men">Men</a></li>
        <li><a href="/sale">Sale</a></li>
      </ul>
    </nav>
    <form class="search" action="/search" method="get">
      <input type="search" name="q" placeholder="Search">
      <button type="submit">Search</button>
    </form>
  </header>
  <main id="content">
    <h1>Page not found</h1>
    <p>Sorry, the page you were looking for does not exist or has moved.</p>
    <p><a class="button" href="/">Back to the home page</a></p>
  </main>
  <footer class="site-footer">
    <ul class="footer-links">
      <li><a href="/help">Help</a></li>
      <li><a href="/delivery">Delivery</a></li>
      <li><a href="/returns">Returns</a></li>
      <li><a href="/contact">Contact us</a></li>
    </ul>
    <p class="copyright">&copy; 2024 Example Shop Ltd</p>
  </footer>
</body>
</html>
"""


def page(kind: str, number: int) -> PageSummary:
    return summarize(SO / kind / f"{number:02d}.html")


def kinds(warnings: list[TemplateWarning]) -> list[tuple[str, str]]:
    return [(warning.kind, warning.label) for warning in warnings]


def test_two_pages_of_one_type_raise_nothing() -> None:
    templates = {"question": [page("question", 1), page("question", 2)]}
    assert check_templates(templates) == []


def test_several_well_chosen_labels_raise_nothing() -> None:
    templates = {
        "question": [page("question", 1), page("question", 2)],
        "users": [page("users", 1), page("users", 2)],
        "tags": [page("tags", 1)],
    }
    assert check_templates(templates) == []


def test_one_page_under_two_labels_is_a_duplicate_naming_both() -> None:
    question = page("question", 1)
    again = page("question", 1)  # the same file loaded again for the second label
    templates = {
        "question": [question, page("question", 2)],
        "users": [page("users", 1)],
        "answer": [again],
    }
    warnings = check_templates(templates)
    assert kinds(warnings) == [(DUPLICATE, "question")]
    message = warnings[0].message
    assert "'question'" in message and "'answer'" in message
    assert "cannot be told apart" in message
    assert warnings[0].source == str(SO / "question" / "01.html")


def test_pages_of_two_sites_under_one_label_are_unlike() -> None:
    question = page("question", 1)
    article = summarize(ARTICLE)
    templates = {"question": [question, article]}
    warnings = check_templates(templates, sources={"question": ["q.html", "article.html"]})
    assert kinds(warnings) == [(UNLIKE, "question")]
    message = warnings[0].message
    assert "q.html" in message and "article.html" in message
    assert "two page types" in message and "nearest template" in message
    assert warnings[0].source == "q.html"


def test_sibling_types_of_one_site_stay_above_the_unlike_floor() -> None:
    """A question and a users page share Stack Overflow's chrome (Jaccard ~0.29): not flagged.

    Real same-type pairs go down to 0.094 (see UNLIKE_JACCARD), so a floor that flagged this
    pair would also flag real templates of one type; the check is for wholly unrelated pages.
    """
    question, users = page("question", 1), page("users", 1)
    jaccard_of = structural_features(question), structural_features(users)
    shared = len(jaccard_of[0] & jaccard_of[1]) / len(jaccard_of[0] | jaccard_of[1])
    assert UNLIKE_JACCARD < 0.2 < shared < 0.35
    assert check_templates({"question": [question, users]}) == []


def test_unclosed_title_makes_a_tiny_template(tmp_path: Path) -> None:
    # question 02: the page text that the title swallows says "error" (past the real title)
    raw = (SO / "question" / "02.html").read_bytes()
    assert raw.count(b"</title>") == 1
    broken = tmp_path / "question-broken.html"
    broken.write_bytes(raw.replace(b"</title>", b""))
    summary = summarize(broken)
    # lxml reads the rest of the document as title text: html, head, meta, title are left
    assert summary.n_nodes < MIN_TEMPLATE_NODES
    assert summary.tags[:4] == ["html", "head", "meta", "title"]

    assert "error" in (summary.title or "").split("<", 1)[1]
    templates = {"question": [summary, page("question", 1)], "users": [page("users", 1)]}
    warnings = check_templates(templates)
    # one warning, for the broken template only; it is not also reported as unlike its sibling,
    # and the page text swallowed by the title does not make it look like an error page
    assert kinds(warnings) == [(TINY, "question")]
    assert warnings[0].source == str(broken)
    assert f"only {summary.n_nodes} elements" in warnings[0].message
    assert "kept" in warnings[0].message


def test_saved_404_page_is_an_error_page(tmp_path: Path) -> None:
    saved = tmp_path / "product.html"
    saved.write_text(NOT_FOUND_PAGE, encoding="utf-8")
    summary = summarize(saved)
    assert summary.title == "404 Not Found"
    assert summary.n_nodes >= MIN_TEMPLATE_NODES  # a full themed page, not a tiny one

    warnings = check_templates({"product": [summary], "question": [page("question", 1)]})
    assert kinds(warnings) == [(ERROR_PAGE, "product")]
    assert "'404 Not Found'" in warnings[0].message
    assert "error pages will be classified as 'product'" in warnings[0].message


def test_bare_server_404_is_tiny_and_an_error_page(tmp_path: Path) -> None:
    saved = tmp_path / "item.html"
    saved.write_text(
        "<html><head><title>404 Not Found</title></head><body>"
        "<center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>",
        encoding="utf-8",
    )
    warnings = check_templates({"item": [summarize(saved)]})
    assert kinds(warnings) == [(TINY, "item"), (ERROR_PAGE, "item")]


def test_real_titles_with_error_words_in_names_are_not_error_pages() -> None:
    question = page("question", 1)
    for title in (
        "TypeError: x is undefined - Stack Overflow",
        "'system-error' Tag Synonyms - Android Enthusiasts Stack Exchange",
        "Questions tagged system-error - Android Enthusiasts Stack Exchange",
    ):
        renamed = PageSummary(
            bfs=question.bfs,
            parent_bfs=question.parent_bfs,
            level_starts=question.level_starts,
            tags=question.tags,
            classes=question.classes,
            title=title,
        )
        assert check_templates({"question": [renamed]}) == []


def test_format_warnings_gives_one_line_per_warning(tmp_path: Path) -> None:
    saved = tmp_path / "gone.html"
    saved.write_text(NOT_FOUND_PAGE, encoding="utf-8")
    question = page("question", 1)
    warnings = check_templates(
        {"question": [question, summarize(ARTICLE)], "gone": [summarize(saved)], "q": [question]}
    )
    assert sorted(kinds(warnings)) == [
        (DUPLICATE, "question"),
        (ERROR_PAGE, "gone"),
        (UNLIKE, "question"),
    ]
    lines = format_warnings(warnings)
    assert len(lines) == 3
    for line, warning in zip(lines, warnings):
        assert f"[{warning.kind}]" in line and warning.message in line
        assert "\n" not in line
