"""The Content Structure Tree (CST) of seed 001 (Nyein), built in one iterative pass over a DOM.

A CST has two kinds of nodes (seed 001, section V): *blocks* ("HtmlItem" nodes) and *content
nodes* (text, link, image) attached to the innermost block that holds them.

Block tags. The seed makes blocks of ``body``, ``div`` and ``table`` only. Pages written since
HTML5 put the article in ``<article>``/``<main>``/``<section>`` and the furniture in
``<nav>``/``<aside>``/``<footer>``, which then only a block can isolate (and recognise by its
tag), so we also open a block at those, at ``header``, forms, lists (ul, ol, dl, menu), table
cells (td, th: the real containers of table-layout pages), blockquote, figure, details, fieldset,
center and dialog: on the Zyte article benchmark this set finds the main text better than
body/div/table alone. ``li`` and ``p`` are *not* blocks: they are the paragraphs of a block;
making them blocks gains nothing and multiplies the blocks to score.

Content nodes.

* text node: a paragraph, i.e. the text between two block-level boundaries (``p``, headings,
  ``li``, ``br``, a block start or end, ...), whitespace-collapsed, with the number of its
  characters that are anchor text (for link density);
* link node: the anchor text of an ``<a>`` element, attached to the block where the link starts
  (its text is also part of the surrounding text node);
* image node: the ``alt`` text of an ``<img>``.

``script``, ``style``, ``noscript``, ``template``, ``head``, embedded media, form controls and
comments are dropped (the text that *follows* a comment is kept: a comment may sit inside a
sentence). Blocks the browser does not show (``hidden`` attribute, inline ``display: none`` or
``visibility: hidden``) are dropped too: pages keep hidden copies of the article for schema.org.

The walk keeps an explicit stack (no recursion), so a 10,000-deep tree costs no Python stack,
and it never modifies the tree it is given (a Scrapy response's cached tree can be passed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from pagesim_scrapy.core.summary import PageParseError
from pagesim_scrapy.core.summary import parse_html as summary_parse_html

#: Elements that open a CST block (see the module docstring for why these).
BLOCK_TAGS: frozenset[str] = frozenset(
    {
        "body",
        "div",
        "table",
        "td",
        "th",
        "section",
        "article",
        "main",
        "aside",
        "header",
        "footer",
        "nav",
        "form",
        "ul",
        "ol",
        "dl",
        "menu",
        "blockquote",
        "figure",
        "details",
        "fieldset",
        "center",
        "dialog",
    }
)

#: Elements that end the current paragraph when they start and when they end (no block).
BREAK_TAGS: frozenset[str] = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "dt",
        "dd",
        "pre",
        "tr",
        "caption",
        "figcaption",
        "address",
        "summary",
        "legend",
        "hgroup",
        "option",
        "br",
        "hr",
        "tbody",
        "thead",
        "tfoot",
    }
)

#: Elements dropped with their whole subtree (their tail text is kept).
SKIP_TAGS: frozenset[str] = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "title",
        "meta",
        "link",
        "svg",
        "math",
        "iframe",
        "object",
        "embed",
        "canvas",
        "video",
        "audio",
        "picture",
        "source",
        "select",
        "textarea",
        "input",
        "button",
    }
)

TEXT = "text"
LINK = "link"
IMAGE = "image"


class ContentInputError(PageParseError):
    """The input is not something a CST can be built from (empty, not HTML, wrong type)."""


@dataclass(slots=True)
class ContentNode:
    """A leaf of the CST: a paragraph of text, a link's anchor text or an image's alt text.

    ``tag`` is the element that opened the paragraph (``p``, ``h2``, ``li``, or the block's own
    tag for loose text); ``link_chars`` counts the paragraph's characters inside ``<a>``.
    """

    kind: str
    text: str
    block: int
    tag: str
    link_chars: int = 0


@dataclass(slots=True)
class Block:
    """An ``HtmlItem`` node of the CST.

    Blocks are numbered in document (pre-)order, so a block's descendants follow it and every
    text node of its subtree lies in ``texts[first_text:end_text]`` of the tree.
    """

    index: int
    tag: str
    parent: int
    depth: int
    hint: str
    children: list[int] = field(default_factory=list)
    first_text: int = 0
    end_text: int = 0


@dataclass(slots=True)
class ContentTree:
    """A page's CST: ``blocks[0]`` is the root block (``<body>`` or the element given)."""

    blocks: list[Block]
    texts: list[ContentNode]
    links: list[ContentNode]
    images: list[ContentNode]
    title: str | None = None

    def own_texts(self, block: int) -> list[ContentNode]:
        """Text nodes held directly by ``block`` (not by its descendant blocks)."""
        b = self.blocks[block]
        return [t for t in self.texts[b.first_text : b.end_text] if t.block == block]

    def subtree_text(self, block: int, sep: str = "\n") -> str:
        """All text of a block's subtree, one paragraph per line."""
        b = self.blocks[block]
        return sep.join(t.text for t in self.texts[b.first_text : b.end_text])

    def is_ancestor(self, ancestor: int, block: int) -> bool:
        """True when ``block`` is ``ancestor`` or lies inside it."""
        while block > ancestor:
            block = self.blocks[block].parent
        return block == ancestor


def parse_html(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse HTML into a plain ``lxml.etree`` root (faster to walk than ``lxml.html`` trees).

    The page summary's parser (:func:`pagesim_scrapy.core.summary.parse_html`), with its
    errors raised as :class:`ContentInputError`.
    """
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        raise ContentInputError(f"expected HTML bytes or str, got {type(data).__name__}")
    try:
        return summary_parse_html(data)
    except PageParseError as exc:
        raise ContentInputError(str(exc)) from exc


def _root_element(source: Any) -> Any:
    """An element from an element, an ElementTree, a parsel Selector, or HTML bytes/str."""
    if isinstance(source, (bytes, bytearray, memoryview, str)):
        return parse_html(source)
    if hasattr(source, "getroot") and not hasattr(source, "tag"):
        root = source.getroot()
        if root is None:
            raise ContentInputError("empty element tree")
        return root
    root = getattr(source, "root", None)  # a parsel Selector holds its lxml element here
    if root is not None and hasattr(root, "tag"):
        return root
    if hasattr(source, "tag") and hasattr(source, "iterchildren"):
        return source
    raise ContentInputError(f"expected an lxml element or HTML, got {type(source).__name__}")


def _start_element(root: Any) -> Any:
    """``<body>`` when there is one, else the element itself (a fragment, a body-less page)."""
    tag = root.tag
    if not isinstance(tag, str):
        raise ContentInputError("not an element")
    if tag == "body":
        return root
    body = root.find("body") if tag == "html" else None
    if body is None and tag == "html":
        body = root.find(".//body")
    return root if body is None else body


def _document_title(element: Any) -> str | None:
    """The text of the document's ``<head><title>``, whitespace-collapsed."""
    try:
        top = element.getroottree().getroot()
    except (AttributeError, ValueError):
        return None
    if top is None or not isinstance(top.tag, str):
        return None
    title = top.find("head/title")
    if title is None:
        title = top.find(".//title")
    if title is None:
        return None
    text = " ".join("".join(title.itertext()).split())
    return text or None


def build_tree(source: Any) -> ContentTree:
    """Build the CST of a page: an lxml root (``etree`` or ``lxml.html``), or HTML bytes/str.

    Raises :class:`ContentInputError` for input that is not HTML at all.
    """
    root = _root_element(source)
    start = _start_element(root)
    builder = _Builder()
    builder.walk(start)
    return ContentTree(
        blocks=builder.blocks,
        texts=builder.texts,
        links=builder.links,
        images=builder.images,
        title=_document_title(start),
    )


# zero-width and soft-hyphen characters: not whitespace for str.split(), invisible on screen
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]+")

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


# Element categories of the walk.
_INLINE, _BLOCK, _BREAK, _SKIP, _SKIP_BREAK, _LINK, _IMAGE = range(7)

_CATEGORIES: dict[Any, int] = {
    **dict.fromkeys(BLOCK_TAGS, _BLOCK),
    **dict.fromkeys(BREAK_TAGS, _BREAK),
    **dict.fromkeys(SKIP_TAGS, _SKIP),
    **dict.fromkeys(("button", "select", "textarea", "input"), _SKIP_BREAK),
    "a": _LINK,
    "img": _IMAGE,
    # comments, processing instructions, entities: their ``tag`` is the factory function
    etree.Comment: _SKIP,
    etree.ProcessingInstruction: _SKIP,
    etree.Entity: _SKIP,
}


class _Builder:
    """The state of one walk: blocks, content nodes, and the paragraph being collected."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.texts: list[ContentNode] = []
        self.links: list[ContentNode] = []
        self.images: list[ContentNode] = []
        self.buf: list[str] = []  # pieces of the current paragraph
        self.link_buf: list[str] = []  # pieces of the current paragraph inside <a>
        self.block_stack: list[int] = []
        # the walk's position: the open block, the kind of the open paragraph, open links
        self.cur_block = 0
        self.cur_kind = ""
        self.kind_stack: list[str] = []
        self.link_depth = 0
        self.link_block = 0
        self.anchor: list[str] = []  # pieces of the current <a>

    def flush(self, block: int, kind: str) -> None:
        """End the current paragraph: a text node of ``block`` opened by ``kind``."""
        buf = self.buf
        raw = "".join(buf)
        buf.clear()
        link_buf = self.link_buf
        if raw.isspace():  # most pieces are the indentation between tags
            link_buf.clear()
            return
        if not raw.isascii():
            raw = _INVISIBLE.sub("", raw)
        text = " ".join(raw.split())
        if link_buf:
            linked = len(" ".join("".join(link_buf).split()))
            link_buf.clear()
        else:
            linked = 0
        if text:
            size = len(text)
            self.texts.append(
                ContentNode(TEXT, text, block, kind, linked if linked < size else size)
            )

    def open_block(self, el: Any, tag: str) -> int:
        blocks = self.blocks
        stack = self.block_stack
        index = len(blocks)
        parent = stack[-1] if stack else -1
        attrib = el.attrib
        if attrib:
            get = attrib.get
            hint = " ".join([v for v in (get("class"), get("id"), get("role")) if v]).lower()
        else:
            hint = ""
        blocks.append(Block(index, tag, parent, len(stack), hint, first_text=len(self.texts)))
        if parent >= 0:
            blocks[parent].children.append(index)
        stack.append(index)
        return index

    def walk(self, start: Any) -> None:
        """Walk ``start``'s subtree depth-first with an explicit stack (no recursion).

        Inline elements (most of a page) cost no call: only the other categories open and
        close through :meth:`_open` and :meth:`_close`.
        """
        buf = self.buf
        link_buf = self.link_buf
        anchor = self.anchor
        categories = _CATEGORIES
        open_ = self._open
        close = self._close
        self._start(start)
        iter_stack: list[Any] = [iter(start)]
        el_stack: list[Any] = []
        while True:
            descended = False
            for el in iter_stack[-1]:
                cat = categories.get(el.tag, _INLINE)
                if cat != _INLINE:
                    cat = open_(el, cat)
                if cat != _SKIP:
                    text = el.text
                    if text:
                        buf.append(text)
                        if self.link_depth:
                            link_buf.append(text)
                            anchor.append(text)
                    if len(el):
                        iter_stack.append(iter(el))
                        el_stack.append(el)
                        descended = True
                        break
                    if cat != _INLINE:
                        close(cat)  # a leaf: it ends right away
                tail = el.tail
                if tail:
                    buf.append(tail)
                    if self.link_depth:
                        link_buf.append(tail)
                        anchor.append(tail)
            if descended:
                continue
            # the children of el_stack[-1] are done: its end
            iter_stack.pop()
            if not el_stack:
                break
            el = el_stack.pop()
            cat = categories.get(el.tag, _INLINE)
            if cat != _INLINE:
                close(cat)
            tail = el.tail
            if tail:
                buf.append(tail)
                if self.link_depth:
                    link_buf.append(tail)
                    anchor.append(tail)
        self._finish()

    def _start(self, start: Any) -> None:
        start_tag = start.tag if isinstance(start.tag, str) else "body"
        self.cur_block = self.open_block(start, start_tag.lower())
        self.cur_kind = start_tag
        if start.text:
            self.buf.append(start.text)

    def _finish(self) -> None:
        self._end_paragraph()
        if self.link_depth:
            self._end_link(self.anchor, self.link_block)
        self.blocks[0].end_text = len(self.texts)

    def _end_paragraph(self) -> None:
        buf = self.buf
        if buf:
            if len(buf) == 1 and buf[0].isspace():  # indentation between tags
                buf.clear()
                self.link_buf.clear()
            else:
                self.flush(self.cur_block, self.cur_kind)

    def _open(self, el: Any, cat: int) -> int:
        """The start of a non-inline element; returns its category for the rest of the walk
        (:data:`_SKIP` for a hidden block or a form control)."""
        if cat == _BREAK:
            self._end_paragraph()
            self.kind_stack.append(self.cur_kind)
            self.cur_kind = el.tag
        elif cat == _BLOCK:
            # not shown by the browser: ``hidden`` attribute or inline display: none
            if el.get("hidden") is not None or (
                (style := el.get("style")) and _HIDDEN_STYLE.search(style) is not None
            ):
                return _SKIP
            self._end_paragraph()
            self.cur_block = self.open_block(el, el.tag)
            self.kind_stack.append(self.cur_kind)
            self.cur_kind = el.tag
        elif cat == _LINK:
            if not self.link_depth:
                self.link_block = self.cur_block
                self.anchor.clear()
            self.link_depth += 1
        elif cat == _IMAGE:
            self._image(el)
        elif cat == _SKIP_BREAK:
            self._end_paragraph()
            return _SKIP
        return cat

    def _image(self, el: Any) -> None:
        alt = el.get("alt")
        if alt:
            alt = " ".join(alt.split())
            if alt:
                self.images.append(ContentNode(IMAGE, alt, self.cur_block, "img"))

    def _close(self, cat: int) -> None:
        """The end of a non-inline element that was not skipped."""
        if cat == _BREAK:
            self._end_paragraph()
            self.cur_kind = self.kind_stack.pop()
        elif cat == _BLOCK:
            self._end_paragraph()
            self.blocks[self.cur_block].end_text = len(self.texts)
            self.block_stack.pop()
            self.cur_block = self.block_stack[-1]
            self.cur_kind = self.kind_stack.pop()
        elif cat == _LINK:
            self.link_depth -= 1
            if not self.link_depth:
                self._end_link(self.anchor, self.link_block)

    def _end_link(self, anchor: list[str], block: int) -> None:
        if anchor:
            text = " ".join("".join(anchor).split())
            anchor.clear()
            if text:
                self.links.append(ContentNode(LINK, text, block, "a", len(text)))
