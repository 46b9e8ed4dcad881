"""Main content without a query: the CST block that holds the page's main text, and that text.

Design (measured on the Zyte article benchmark, see ``benchmarks/bench_content.py``):

1. Every text node gets a value: its characters outside links, minus a penalty per linked
   character, minus a fixed cost per paragraph (not for table cells, which hold data), plus a
   bonus for ``<p>`` paragraphs. Prose is worth a lot, link lists are negative, and short lines
   (dates, "Share", "Advertisement") cost a little.
2. Furniture blocks cannot add positive value to their ancestors nor be chosen: ``nav``,
   ``aside``, ``footer``, ``header``, ``menu``, and blocks whose class/id/role say comment,
   sidebar, related, share, cookie, modal, newsletter, ... unless the same words also name them
   as content ("post-content"). Blocks inside furniture are furniture too, except a block named
   purely as content (some sites wrap the whole page in one element with a misleading class).
3. The value of a block is the sum over its subtree. The main block is the non-furniture block
   of maximum value: the smallest block that gathers most of the prose while leaving out what
   costs more than it brings (a maximum-weight subtree).
4. Inside the main block the text is cleaned: furniture sub-blocks, sub-blocks of negative
   value, figures and captions (by tag, or by class words such as caption, credit, gallery,
   byline), link-dense paragraphs and the headline (``h1``) are left out. Paragraphs are joined
   with newlines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pagesim_scrapy.core.content.tree import ContentTree

#: Block tags whose content is page furniture, never the main text.
BOILERPLATE_TAGS: frozenset[str] = frozenset({"nav", "aside", "footer", "header", "menu"})

#: Block tags and paragraph tags left out of the main text (images and their captions).
NOT_TEXT_TAGS: frozenset[str] = frozenset({"figure", "figcaption", "caption"})

# class / id / role words of page furniture, matched as whole words of the hint.
_BOILERPLATE_HINT = re.compile(
    r"(?<![a-z])(?:comments?|sidebar|side-bar|footer|nav|navbar|navigation|menu|breadcrumbs?|"
    r"related|share|sharing|social|promo|advert|advertisement|ads?|newsletter|subscribe|"
    r"subscription|cookies?|consent|gdpr|banner|popular|trending|recommended|masthead|toolbar|"
    r"modal|popup|dialog|tags|byline|author-bio|complementary|contentinfo)(?![a-z])"
)

# class / id words of blocks that sit inside an article but are not its text (captions, photo
# galleries, bylines and dates): left out of the main text, harmless when choosing the block.
_NOT_TEXT_HINT = re.compile(
    r"(?<![a-z])(?:captions?|credits?|gallery|slideshow|figure|photo|byline|author|dateline|"
    r"timestamp|signup|sign-up|disclaimer|copyright|share-tools|tools)(?![a-z])"
)

# class / id words of the main text; they override furniture words in the same hint.
_CONTENT_HINT = re.compile(r"article|content|entry|story|body|text|main|post")


@dataclass(frozen=True, slots=True)
class MainContentOptions:
    """The constants of the main-block value (defaults tuned on the Zyte article benchmark;
    the result is not sensitive to them within the ranges in docs/benchmarks.md)."""

    link_penalty: float = 2.0
    paragraph_cost: float = 25.0
    p_bonus: float = 20.0
    max_link_density: float = 0.5
    drop_headline: bool = True


DEFAULT_MAIN_OPTIONS = MainContentOptions()


def is_content_hint(hint: str) -> bool:
    """True when a block's class/id/role names it as the main text."""
    return bool(hint) and _CONTENT_HINT.search(hint) is not None


def is_boilerplate_hint(hint: str) -> bool:
    """True when a block's class/id/role names it as furniture (and not also as content)."""
    return bool(hint) and _BOILERPLATE_HINT.search(hint) is not None and not is_content_hint(hint)


def boilerplate_blocks(tree: ContentTree, tags: frozenset[str] = BOILERPLATE_TAGS) -> list[bool]:
    """Which blocks are page furniture (rule 2 of the module docstring; ``tags`` by tag)."""
    blocks = tree.blocks
    n = len(blocks)
    boiler = [False] * n  # the root block is the page itself
    for i in range(1, n):
        b = blocks[i]
        if boiler[b.parent]:
            boiler[i] = (
                blocks[b.parent].tag in tags
                or not is_content_hint(b.hint)
                or _BOILERPLATE_HINT.search(b.hint) is not None
            )
        else:
            boiler[i] = b.tag in tags or is_boilerplate_hint(b.hint)
    return boiler


def block_values(
    tree: ContentTree,
    boiler: list[bool],
    options: MainContentOptions = DEFAULT_MAIN_OPTIONS,
) -> list[float]:
    """Subtree value of every block (rules 1-3 of the module docstring)."""
    blocks = tree.blocks
    values = [0.0] * len(blocks)
    link_factor = 1.0 + options.link_penalty
    cost = options.paragraph_cost
    bonus = options.p_bonus
    for node in tree.texts:
        linked = node.link_chars
        size = len(node.text)
        value = size - linked * link_factor
        tag = node.tag
        if tag == "p":
            value -= cost
            if linked * 2 < size:
                value += bonus
        elif tag != "td" and tag != "th":  # table cells hold data, not page furniture
            value -= cost
        values[node.block] += value
    for i in range(len(blocks) - 1, 0, -1):
        value = values[i]
        if value > 0.0 and boiler[i]:
            continue
        values[blocks[i].parent] += value
    return values


@dataclass(frozen=True, slots=True)
class MainContent:
    """The main block of a page and its cleaned text."""

    block: int
    text: str
    value: float
    kept: list[bool]


def extract_main(
    tree: ContentTree, options: MainContentOptions = DEFAULT_MAIN_OPTIONS
) -> MainContent:
    """Find the main block (rule 3) and clean its text (rule 4)."""
    if not tree.texts:
        return MainContent(0, "", 0.0, [False] * len(tree.blocks))
    boiler = boilerplate_blocks(tree)
    values = block_values(tree, boiler, options)
    best, best_value = 0, values[0]
    for i in range(1, len(values)):
        # >=: of a block and the ancestors that add nothing to it, the innermost is the main one
        if values[i] >= best_value and not boiler[i]:
            best, best_value = i, values[i]
    kept = kept_blocks(tree, best, boiler, values)
    return MainContent(best, clean_text(tree, best, kept, options), best_value, kept)


def kept_blocks(
    tree: ContentTree, block: int, boiler: list[bool], values: list[float]
) -> list[bool]:
    """Which blocks of ``block``'s subtree hold main text (rule 4); False outside the subtree."""
    blocks = tree.blocks
    kept = [False] * len(blocks)
    top = blocks[block]
    kept[block] = True
    for i in range(block + 1, len(blocks)):
        sub = blocks[i]
        if sub.depth <= top.depth:
            break
        kept[i] = (
            kept[sub.parent]
            and not boiler[i]
            and values[i] >= 0.0
            and sub.tag not in NOT_TEXT_TAGS
            and not (bool(sub.hint) and _NOT_TEXT_HINT.search(sub.hint) is not None)
        )
    return kept


def clean_text(
    tree: ContentTree,
    block: int,
    kept: list[bool],
    options: MainContentOptions = DEFAULT_MAIN_OPTIONS,
) -> str:
    """The text of ``block`` without furniture, captions, link lists and headline (rule 4)."""
    top = tree.blocks[block]
    max_ld = options.max_link_density
    drop_h1 = options.drop_headline
    out: list[str] = []
    for node in tree.texts[top.first_text : top.end_text]:
        if not kept[node.block] or node.link_chars > max_ld * len(node.text):
            continue
        if node.tag in NOT_TEXT_TAGS or (drop_h1 and node.tag == "h1"):
            continue
        out.append(node.text)
    return "\n".join(out)
