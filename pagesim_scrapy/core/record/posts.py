"""A thread's posts read from the page body: one ``{author, date, body}`` per post.

Forums without schema.org markup (a Drupal forum), and question pages whose microdata has
no author or date, still show every post the same way: a date (a ``<time>``, a date-like
``title``/``datetime`` attribute, or a short text holding a date), an author (a link to a
user's profile, an author/user class, or "by NAME" next to the date) and a block of text.
A post is the smallest ancestor of a date that also holds such a block; one that holds
another post is no post of its own. Posts repeat their signature line: once two posts are
found, a date shaped unlike theirs (a log line or a version string in a post's text) is
text, not a signature. The checks look at shapes (dates, profile links, text blocks, how
posts repeat), not at particular sites.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from lxml import etree

from pagesim_scrapy.core.induce.dom import body_elements, page_memo, subtree_end

from .fields import FIELDS
from .model import CoreRecord, Value

__all__ = ["BODY", "body_posts", "posts_may_change", "with_body_posts"]

#: The source of a core value read from the page body.
BODY = "body"
#: Page types whose posts in the body are reviews of the page's item.
REVIEWED = frozenset({"product", "recipe"})
#: A page with no thread markup is taken for a thread when its body shows this many posts.
MIN_THREAD_POSTS = 2
#: Two posts are the same when their texts begin with the same this many characters.
START_CHARS = 60

#: How many ancestors of a date are tried to find the post that holds it.
MAX_CLIMB = 8
#: A date element's whole text is at most this long (a paragraph naming a date is no date).
MAX_DATE_TEXT = 120
#: Posts read per page at most.
MAX_POSTS = 500

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_TEXT = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|"
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:\d{{4}}|'\d{{2}})|"
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}",
    re.I,
)
_DATE_ATTR = re.compile(r"^\d{4}-\d{2}-\d{2}")
#: Every date text holds a digit: a text without one is no date, whatever its words.
_DIGIT = re.compile(r"\d")
_PROFILE_URL = re.compile(
    r"/(?:user|users|member|members|profile|profiles|author|authors|people|u)/[^/?#]+", re.I
)
_AUTHOR_CLASS = re.compile(r"(?:^|[-_\s])(?:author|username|user-?name|poster|user)(?:$|[-_\s])")
_BY_NAME = re.compile(r"\bby\s+(.{1,60}?)\s+(?:on|at|»|\||-|—)\s", re.I)
_BLOCKS = frozenset(
    {"p", "div", "td", "blockquote", "pre", "article", "section", "dd", "ul", "ol", "span"}
)
_SKIP = frozenset({"script", "style", "noscript", "template", "form", "nav", "header", "footer"})
_SPACE = re.compile(r"\s+")
#: A body holds this many words of letters at least: a vote count, a reputation score or a
#: badge ("16.9k", "♦") is no post text.
MIN_BODY_WORDS = 1
#: A block inside a post with this many links and no word outside them is a menu, not text.
MIN_MENU_LINKS = 2
#: A block whose text is more than this share link text is a menu or a signature, not a body.
MAX_LINK_SHARE = 0.5
#: A text that shows a URL (``http://…``, ``www.…``, ``host.tld/…``).
_URL_TEXT = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.|[\w-]+(?:\.[\w-]+)+/)\S*$", re.I)
_WORD = re.compile(r"[^\W\d_]{2,}")
#: The words that mark a date as an edit's, not the post's (an editor's signature).
_EDITED = re.compile(r"\b(?:edited|modified|updated|revised)\b", re.I)

Element = etree._Element


#: Each element's text and prose check, read once per page while :func:`body_posts` runs: the
#: climb from every date re-reads the same blocks, which made the reading quadratic.
_READ: ContextVar[dict[tuple[str, Element], Any] | None] = ContextVar("_READ", default=None)


def _once(kind: str, el: Element, read_it: Callable[[Element], Any]) -> Any:
    """``read_it(el)``, remembered for the page while :func:`body_posts` runs."""
    read = _READ.get()
    if read is None:
        return read_it(el)
    key = (kind, el)
    if key not in read:
        read[key] = read_it(el)
    return read[key]


def _text(el: Element) -> str:
    return str(_once("text", el, _read_text))


def _read_text(el: Element) -> str:
    return _SPACE.sub(" ", " ".join(el.itertext())).strip()


def _is_date(el: Element) -> bool:
    if el.tag == "time":
        return True
    get = el.get
    for name in ("datetime", "title"):
        value = get(name)
        if value and _DATE_ATTR.match(value):
            return True
    if not _own_digit(el):  # most elements: their own text shows no digit
        return False
    own = _own_text(el)
    # a date inside a URL ("…/2014-01-20-image.zip") names a file, it dates no post
    if not _DATE_TEXT.search(" ".join(p for p in own.split() if not _is_url_text(p))):
        return False
    # checked last: the element's whole text is read only for an element showing a date
    return len(_text(el)) <= MAX_DATE_TEXT


def _own_digit(el: Element) -> bool:
    """Whether the element's own text pieces (:func:`_own_text`) show a digit."""
    text = el.text
    if text and _DIGIT.search(text):
        return True
    for child in el:  # (a loop, not ``any``: most elements have a child or two)
        tail = child.tail
        if tail and _DIGIT.search(tail):
            return True
    return False


def _own_text(el: Element) -> str:
    """The element's own text pieces (its text and its children's tails), joined."""
    if not len(el):  # most elements: no children, the text alone
        return el.text or ""
    return " ".join(t for t in (el.text, *(c.tail for c in el)) if t)


def _text_before(el: Element) -> str:
    """The text of ``el``'s parent that comes before ``el`` (its own words)."""
    parent = el.getparent()
    if parent is None:
        return ""
    parts = [parent.text or ""]
    for sibling in parent:
        if sibling is el:
            break
        parts.append(sibling.tail or "")
    return " ".join(parts)


def _is_edit(date: Element) -> bool:
    """A date introduced as an edit's ("edited 2 hours ago", also through a link around it):
    it signs the editor, not the post's author."""
    node: Element | None = date
    for _ in range(2):
        if node is None:
            break
        if _EDITED.search((node.text or "") + " " + _text_before(node)):
            return True
        node = node.getparent()
    return False


def _is_url_text(text: str) -> bool:
    return bool(_URL_TEXT.match(text.strip()))


def _is_prose(el: Element) -> bool:
    """Text a post could hold: words of its own beside its links, and not mostly the text
    of links (a menu, a signature with a score). A link that shows a URL is post text."""
    return bool(_once("prose", el, _reads_as_prose))


def _reads_as_prose(el: Element) -> bool:
    text = _text(el)
    linked = [t for t in (_text(a) for a in el.iter("a")) if not _is_url_text(t)]
    link_chars = sum(len(t) for t in linked)
    words = len(_WORD.findall(text)) - sum(len(_WORD.findall(t)) for t in linked)
    return words >= MIN_BODY_WORDS and link_chars <= MAX_LINK_SHARE * len(text)


def _co_signed(author: Element | None) -> bool:
    """An author link among other people's links ("closed by A, B, C"): an action several
    people took, a notice, not one person's post."""
    parent = author.getparent() if author is not None else None
    if parent is None:
        return False
    names = {_text(a) for a in parent.iter("a") if _PROFILE_URL.search(a.get("href") or "")}
    return len(names) > 1


def _dates(body: Element, elements: list[Element] | None = None) -> list[Element]:
    """The outermost dates of the body in page order, outside skipped parts: one pass over
    the body's elements (``elements``, in page order, as the page's shared walk lists them)
    that skips the inside of a skipped element and of a date (nothing there dates a post)."""
    if elements is None:
        elements = list(body.iter(etree.Element))
    out: list[Element] = []
    index, count = 0, len(elements)
    while index < count:
        el = elements[index]
        if el.tag in _SKIP:
            index = subtree_end(elements, index)
        elif _is_date(el):
            out.append(el)
            index = subtree_end(elements, index)
        else:
            index += 1
    return out


def _block_beside(
    container: Element, author: Element | None, date: Element, dated: set[Element]
) -> Element | None:
    """The block of the container with the most text (the first in page order among equals)
    that holds no date (``dated``: the page's dates and their ancestors) and not the author:
    a signature, this post's or an editor's, is no body. The blocks come longest first, so
    the first that qualifies is the one."""
    # the elements that hold the author: the author and its ancestors, looked up once
    holders = set() if author is None else {author, *author.iterancestors()}
    undated = _once("undated blocks", container, lambda c: _undated(_blocks(c), dated))
    for el, size in undated:
        if not size:
            return None
        if el in holders or _on_date_line(el, date):
            continue
        if _is_prose(el):  # checked last: only a block that would be the one is read so
            return el
    return None


def _undated(blocks: list[tuple[Element, int]], dated: set[Element]) -> list[tuple[Element, int]]:
    """The blocks that hold no date (``dated`` is the same for every container of a page)."""
    return [block for block in blocks if block[0] not in dated]


def _blocks(container: Element) -> list[tuple[Element, int]]:
    """The container's blocks below it with their text's length, longest first, in page
    order among equals (read once per container: the climbs from a page's dates pass the
    same containers)."""
    # lxml picks the block tags while it walks (in C): page order, the container left out
    blocks = [(el, len(_text(el))) for el in container.iter(*_BLOCKS) if el is not container]
    blocks.sort(key=lambda block: -block[1])  # stable: page order among equals
    return blocks


def _on_date_line(el: Element, date: Element) -> bool:
    """An inline element beside the date ("Verified purchase" after the reviewer's name and
    date): part of the signature line, not the post's text."""
    return el.tag == "span" and el.getparent() is date.getparent()


def _holds(el: Element, other: Element) -> bool:
    return el is other or any(a is el for a in other.iterancestors())


def _depth_shared(a: Element, b: Element) -> int:
    """How deep the closest common ancestor of two elements is (deeper is nearer)."""
    mine = {id(x) for x in a.iterancestors()}
    return sum(1 for x in b.iterancestors() if id(x) in mine)


def _author_element(container: Element, date: Element) -> Element | None:
    """The author's element nearest to the date: a link to a profile, else an element of an
    author/user class."""
    links = list(_once("profile links", container, _profile_links))
    if not links:
        named = _once("author classes", container, _author_classes)
        links = [el for el in named if not _holds(el, date)]
    return max(links, key=lambda el: _depth_shared(el, date), default=None)


def _author_classes(container: Element) -> list[Element]:
    """The container's elements of an author/user class that show a short text (read once
    per container, as :func:`_profile_links`)."""
    root = container.getroottree().getroot()
    classed = _once("author class set", root, _author_class_set)
    return [el for el in container.iter() if el in classed and 0 < len(_text(el)) <= 60]


def _author_class_set(root: Element) -> set[Element]:
    """The page's elements of an author/user class, looked for once per page: the climbs
    from its dates pass the same elements in container after container."""
    found = set()
    for el in root.iter(etree.Element):
        names = el.get("class") or ""
        # every match of the pattern holds one of these words: most classes are told
        # apart by a substring test, without the pattern
        words = "user" in names or "author" in names or "poster" in names
        if words and _AUTHOR_CLASS.search(names):
            found.add(el)
    return found


def _profile_links(container: Element) -> list[Element]:
    """The container's links to a profile that show a text (read once per container: the
    climbs from a post's dates pass the same containers)."""
    return [
        el for el in container.iter("a") if _PROFILE_URL.search(el.get("href") or "") and _text(el)
    ]


def _by_name(date: Element) -> str | None:
    parent = date.getparent()
    found = _BY_NAME.search(_text(parent if parent is not None else date) + " ")
    return found.group(1).strip() if found else None


def _date_value(date: Element) -> str:
    for attr in ("datetime", "title"):
        value = date.get(attr) or ""
        if _DATE_ATTR.match(value):
            return value
    own = _SPACE.sub(" ", " ".join(t for t in (date.text, *(c.tail for c in date)) if t))
    found = _DATE_TEXT.search(own)
    if found is None:
        return _text(date)
    return own[found.start() :].strip(" .,;|")[:MAX_DATE_TEXT]


def _body_text(block: Element, author: str | None, dated: set[Element]) -> str:
    """The text of the body block and of its sibling blocks of the same tag (a body of
    several paragraphs), leaving out the date line, the author's name and what is not
    prose."""
    parent = block.getparent()
    if parent is None:
        return _text(block)
    parts = [
        _post_text(el)
        for el in parent
        if el is block or (el.tag == block.tag and el not in dated and _beside(el, author))
    ]
    return " ".join(p for p in parts if p)


def _post_text(block: Element) -> str:
    """The block's text without a link menu that ends it (a topic's previous/next links, share
    links): the page's navigation, not what the author wrote. A list of links inside the text
    is the author's."""
    menus = {el for el in _trailing(block) if _is_menu(el)}
    if not menus:
        return _text(block)
    return _SPACE.sub(" ", " ".join(_texts_outside(block, menus))).strip()


def _trailing(block: Element) -> list[Element]:
    """The block's last child element when no text follows it."""
    children = [el for el in block if isinstance(el.tag, str)]
    if not children or (children[-1].tail or "").strip():
        return []
    last = children[-1]
    return [last] if last.tag in _BLOCKS else []


def _is_menu(el: Element) -> bool:
    """Several links and no word outside them (a link showing a URL is post text)."""
    links = [_text(a) for a in el.iter("a")]
    if len(links) < MIN_MENU_LINKS or any(_is_url_text(t) for t in links):
        return False
    words = len(_WORD.findall(_text(el)))
    return words == sum(len(_WORD.findall(t)) for t in links)


def _texts_outside(el: Element, menus: set[Element]) -> Iterator[str]:
    """The text pieces of ``el`` in page order, the inside of ``menus`` left out."""
    if el.text and isinstance(el.tag, str):
        yield el.text
    for child in el:
        if child not in menus:
            yield from _texts_outside(child, menus)
        if child.tail:
            yield child.tail


def _beside(el: Element, author: str | None) -> bool:
    return _text(el) != author and _is_prose(el)


def _post_of(date: Element, dated: set[Element]) -> tuple[Element, Element, str | None] | None:
    """The post holding a date: its element, its body block and its author."""
    node = date.getparent()
    for _ in range(MAX_CLIMB):
        if node is None or node.tag in ("body", "html"):
            return None
        author = _author_element(node, date)
        if _co_signed(author):
            return None
        block = _block_beside(node, author, date, dated)
        if block is not None:
            name = _text(author) if author is not None else _by_name(date)
            return node, block, name
        node = node.getparent()
    return None


def body_posts(root: Element | None) -> list[dict[str, Any]]:
    """The posts the page body shows, in page order: ``[{author, date, body}]`` (all three
    keys; ``None`` where the post does not say). A post needs a date, an author and a body;
    one date per post (the first). A container that holds another post's container grew
    past its own post (a comment's climb reached the post it comments on): left out."""
    if root is None:
        return []
    # a plain page is read for posts, then again once its label says it is a thread
    # (:func:`.build.typed_by_label`): the page's posts are read once
    return page_memo(root, "body posts", _read_body_posts)


def _read_body_posts(root: Element) -> list[dict[str, Any]]:
    body = root.find("body")
    if body is None:
        return []
    token = _READ.set({})
    try:
        return _posts_of(body, body_elements(root)[1])
    finally:
        _READ.reset(token)


def _posts_of(body: Element, elements: list[Element]) -> list[dict[str, Any]]:
    dates = _dates(body, elements)
    posts = _read_posts(dates)
    signing = _signing_dates(dates, posts)
    if len(signing) < len(dates):  # some dates are the posts' text: read again without them
        _forget_blocks()
        posts = _read_posts(signing)
    return [
        {"author": author, "date": _date_value(date), "body": text}
        for author, date, text in posts[:MAX_POSTS]
    ]


def _read_posts(dates: list[Element]) -> list[tuple[str, Element, str]]:
    """The posts signed by ``dates``, in page order: ``(author, date, body text)``."""
    found: list[tuple[Element, Element, str | None, Element]] = []
    dated = {el for date in dates for el in (date, *date.iterancestors())}
    for date in dates:
        if _is_edit(date):
            continue
        post = _post_of(date, dated)
        if post is None or any(post[0] is have[0] for have in found):
            continue
        found.append((*post, date))
    # the elements that hold a post's container (each container is found once)
    holders = {el for other in found for el in other[0].iterancestors()}
    posts = []
    for container, block, author, date in found:
        if container in holders:
            continue
        text = _body_text(block, author, dated)
        if author and text:
            posts.append((author, date, text))
        if len(posts) >= MAX_POSTS:
            break
    return posts


def _shape(el: Element) -> frozenset[str]:
    """What a repeated element keeps from page to post: its class names, or its tag."""
    names = (el.get("class") or "").split()
    return frozenset(names) if names else frozenset({"<" + str(el.tag)})


def _signing_dates(dates: list[Element], posts: list[tuple[str, Element, str]]) -> list[Element]:
    """The dates shaped as the dates of the posts found (at least :data:`MIN_THREAD_POSTS`):
    posts repeat their signature line, so a date of another shape inside a post (a log line,
    a quoted date, a version string) is the post's text, and it signs no post of its own."""
    if len(posts) < MIN_THREAD_POSTS:
        return dates
    shapes = {_shape(date) for _, date, _ in posts}
    return [date for date in dates if any(_shape(date) & shape for shape in shapes)]


def _forget_blocks() -> None:
    """Drop the remembered undated blocks: they depend on which dates sign posts."""
    read = _READ.get()
    if read is not None:
        for key in [key for key in read if key[0] == "undated blocks"]:
            del read[key]


def _lacks_signatures(posts: Any) -> bool:
    return not posts or not any(p.get("author") or p.get("date") for p in posts)


def posts_may_change(record: CoreRecord, forced: bool) -> bool:
    """Whether :func:`with_body_posts` can change ``record`` with some posts: where it
    cannot (an article; a product whose structured data has its reviews; a thread whose
    posts are signed), the body's posts need not be looked for."""
    if record.page_type == "thread":
        return _lacks_signatures(record.get("posts"))
    if record.page_type in REVIEWED:
        return "reviews" not in record.fields
    return record.page_type == "page" and not forced


def with_body_posts(
    record: CoreRecord,
    posts: list[dict[str, Any]],
    forced: bool,
    min_posts: int = MIN_THREAD_POSTS,
) -> CoreRecord:
    """``record`` with the body's posts where its structured data gives none (their author
    and date where it gives posts without them); a plain ``page`` (type not
    ``forced`` by the caller) whose body shows ``min_posts`` posts becomes a thread (title
    from its name); a product's or recipe's are its reviews. Their source is :data:`BODY`.
    ``min_posts`` is lower only where the site says the page is a thread (its label's
    other pages are: :func:`.build.typed_by_label`)."""
    if not posts:
        return record
    if record.page_type == "thread":
        return _signed(record, posts)
    if record.page_type in REVIEWED:
        return _reviewed(record, posts)
    if record.page_type != "page" or forced or len(posts) < min_posts:
        return record
    fields = {"title": record.fields["name"]} if "name" in record.fields else {}
    fields["posts"] = Value(posts, BODY)
    if "url" in record.fields:
        fields["url"] = record.fields["url"]
    return CoreRecord("thread", fields, dict(record.extra))


def _reviewed(record: CoreRecord, posts: list[dict[str, Any]]) -> CoreRecord:
    """A product or recipe whose structured data has no reviews takes the body's posts as
    its reviews (no rating: the body's stars are not read)."""
    if "reviews" in record.fields:
        return record
    reviews = [{**post, "rating": None} for post in posts]
    fields = dict(record.fields)
    fields["reviews"] = Value(reviews, BODY)
    order = [spec.name for spec in FIELDS[record.page_type]]
    ordered = {name: fields[name] for name in sorted(fields, key=order.index)}
    return CoreRecord(record.page_type, ordered, dict(record.extra))


def _signed(record: CoreRecord, posts: list[dict[str, Any]]) -> CoreRecord:
    """A thread record whose posts have no author nor date takes them from the body post
    whose text begins the same way; a thread with no posts takes the body's."""
    have = record.get("posts")
    if have and not _lacks_signatures(have):
        return record
    fields = dict(record.fields)
    if not have:
        fields["posts"] = Value(posts, BODY)
        return CoreRecord("thread", _thread_order(fields), dict(record.extra))
    starts = {_start(p["body"]): p for p in posts}
    signed = []
    for post in have:
        match = starts.get(_start(post.get("body") or ""))
        signed.append({**post, **{k: match[k] for k in ("author", "date")}} if match else post)
    fields["posts"] = Value(signed, record.fields["posts"].source)
    return CoreRecord("thread", fields, dict(record.extra))


def _start(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()[:START_CHARS]


def _thread_order(fields: dict[str, Value]) -> dict[str, Value]:
    order = ("title", "posts", "url")
    return {k: fields[k] for k in sorted(fields, key=lambda k: (*order, k).index(k))}
