"""Generate the offline demo shop crawled by the sample project.

The site imitates a real shop closely enough that page types cannot be told apart by URL
(product pages live under ``p/``, ``item/`` and ``shop/<category>/`` next to listing pages)
but can be by DOM structure: every page shares the same header, mega menu and footer, and
each page type has its own main-content layout with optional blocks that vary from page to
page. Volatile details real sites have are included on purpose: hashed CSS class names from
two front-end builds, ids with counters, inline styles, scripts, comments.

Output is deterministic: every page draws from its own random generator seeded with the
site seed and the page path, so re-running writes byte-identical files. ``labels.json``
maps each page's relative path to its page type (the ground truth the crawl is scored on).

Usage: ``python sample_project/generate_demo_site.py [--out DIR] [--seed N]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import posixpath
import random
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

logger = logging.getLogger(__name__)

SEED = 20240611
DEFAULT_OUT = Path(__file__).resolve().parent / "demo_site"
LABELS_FILE = "labels.json"
SITE_NAME = "Northwind Outfitters"

# --------------------------------------------------------------------------------------
# Catalogue vocabulary
# --------------------------------------------------------------------------------------

CATEGORIES: dict[str, tuple[str, dict[str, tuple[str, list[str]]]]] = {
    "electronics": (
        "Electronics",
        {
            "headphones": ("Headphones", ["Over-Ear Headphones", "Earbuds", "Studio Headset"]),
            "chargers": ("Chargers & Cables", ["USB-C Charger", "Braided Cable", "Power Bank"]),
            "smart-home": ("Smart Home", ["Smart Plug", "Motion Sensor", "Desk Lamp"]),
        },
    ),
    "kitchen": (
        "Kitchen",
        {
            "cookware": ("Cookware", ["Cast Iron Skillet", "Saucepan", "Dutch Oven"]),
            "knives": ("Knives", ["Chef Knife", "Paring Knife", "Bread Knife"]),
            "coffee-tea": ("Coffee & Tea", ["Pour-Over Kettle", "Coffee Grinder", "Tea Tin"]),
        },
    ),
    "outdoor": (
        "Outdoor",
        {
            "tents": ("Tents", ["Dome Tent", "Trekking Shelter", "Bivy"]),
            "backpacks": ("Backpacks", ["Daypack", "Hiking Backpack", "Hydration Pack"]),
            "lighting": ("Camp Lighting", ["Headlamp", "Lantern", "Flashlight"]),
        },
    ),
    "apparel": (
        "Apparel",
        {
            "jackets": ("Jackets", ["Rain Jacket", "Down Jacket", "Fleece Jacket"]),
            "shirts": ("T-Shirts", ["Merino Tee", "Cotton Tee", "Long Sleeve Tee"]),
            "shoes": ("Shoes", ["Trail Runner", "Hiking Boot", "Camp Slipper"]),
        },
    ),
    "office": (
        "Home Office",
        {
            "desks": ("Desks", ["Standing Desk", "Writing Desk", "Desk Shelf"]),
            "stationery": ("Stationery", ["Notebook", "Fountain Pen", "Desk Organizer"]),
        },
    ),
    "toys": (
        "Toys & Games",
        {
            "puzzles": ("Puzzles", ["Jigsaw Puzzle", "Wooden Puzzle", "Puzzle Mat"]),
            "board-games": ("Board Games", ["Strategy Game", "Party Game", "Card Game"]),
        },
    ),
}

BRANDS = ["Kestrel", "Orbit", "Halden", "Mira", "Tundra", "Vela", "Brio", "Cobalt", "Fjord"]
ADJECTIVES = [
    "Classic", "Pro", "Ultra", "Compact", "Everyday", "Nordic", "Urban", "Summit",
    "Aero", "Lumen", "Trail", "Studio", "Heritage", "Flex", "Prime",
]  # fmt: skip
COLORS = [
    ("Black", "#1b1b1b"), ("Slate", "#5a6470"), ("Sand", "#d8c7a0"), ("Forest", "#2f5d3a"),
    ("Rust", "#a8512b"), ("Navy", "#1f2e54"), ("Snow", "#f4f4f2"), ("Ochre", "#c99a2e"),
]  # fmt: skip
SIZES = ["XS", "S", "M", "L", "XL", "XXL"]
SPEC_KEYS = [
    "Brand", "Model number", "Weight", "Dimensions", "Colour", "Material", "Warranty",
    "Country of origin", "Battery life", "Connectivity", "Capacity", "Power",
    "Care instructions", "Package contents", "Certifications", "Release year",
]  # fmt: skip
FIRST_NAMES = [
    "Ana", "Ben", "Chiara", "Dmitri", "Eun-ji", "Farah", "Gustav", "Hana", "Ivo", "Jonas",
    "Kemi", "Luis", "Maja", "Nikhil", "Olga", "Pia", "Quentin", "Rosa", "Sven", "Tomás",
]  # fmt: skip
WORDS = [
    "light", "durable", "simple", "honest", "reliable", "quiet", "sturdy", "warm", "compact",
    "clever", "solid", "smooth", "everyday", "travel", "weekend", "trail", "kitchen", "desk",
    "morning", "evening", "rain", "winter", "summer", "city", "design", "finish", "fit", "feel",
    "weight", "grip", "battery", "fabric", "seam", "zipper", "handle", "lid", "strap", "works",
    "holds", "keeps", "lasts", "packs", "folds", "charges", "brews", "cuts", "fits", "stays",
    "feels", "looks", "well", "nicely", "easily", "quickly", "always", "really", "perfectly",
    "surprisingly", "exactly", "still",
]  # fmt: skip
SEARCH_TERMS = [
    "headphones", "usb-c", "cable", "lamp", "skillet", "knife", "kettle", "grinder",
    "tent", "backpack", "headlamp", "lantern", "jacket", "merino", "boot", "desk",
    "notebook", "pen", "puzzle", "game", "kestrel", "orbit", "compact", "pro",
    "waterproof", "gift", "teleporter", "hoverboard",
]  # fmt: skip
PROMOS = [
    "Free shipping on orders over $50",
    "Summer sale: up to 40% off outdoor gear",
    "New: merino collection is here",
    "Order by 2 pm for same-day dispatch",
    "Members get 10% off their first order",
]
EXTERNAL_LINKS = [
    ("Instagram", "https://www.instagram.com/example"),
    ("Mastodon", "https://mastodon.social/@example"),
    ("YouTube", "https://www.youtube.com/@example"),
]


# --------------------------------------------------------------------------------------
# Site model
# --------------------------------------------------------------------------------------


@dataclass
class Subcategory:
    """A leaf category: its products are listed on paginated listing pages."""

    key: str
    name: str
    cat_key: str
    cat_name: str
    nouns: list[str]
    per_page: int = 12
    products: list[Product] = field(default_factory=list)

    def page_path(self, number: int) -> str:
        base = f"shop/{self.cat_key}/{self.key}/"
        return base + ("index.html" if number == 1 else f"page-{number}.html")


@dataclass
class Product:
    """A catalogue entry; its attributes are fixed so cards and detail pages agree."""

    pid: int
    name: str
    slug: str
    path: str
    sub: Subcategory
    brand: str
    price: float
    old_price: float | None
    rating: float
    n_reviews: int
    is_new: bool


@dataclass
class Page:
    """One HTML file of the site: its path, page type and renderer."""

    path: str
    label: str
    title: str
    render: Callable[[PageContext], str]


@dataclass
class Site:
    """Everything renderers need to cross-link pages."""

    seed: int
    subs: list[Subcategory]
    products: list[Product]
    search_pages: dict[str, list[str]] = field(default_factory=dict)
    search_results: dict[str, list[Product]] = field(default_factory=dict)
    help_pages: list[tuple[str, str]] = field(default_factory=list)
    collections: dict[str, list[Product]] = field(default_factory=dict)


class PageContext:
    """Per-page state: the page's own random generator, build id and link helper."""

    def __init__(self, site: Site, page: Page) -> None:
        self.site = site
        self.page = page
        self.rng = random.Random(f"northwind:{site.seed}:{page.path}")
        # Two front-end builds are live at once (a rolling deploy): their hashed class
        # names differ, which breaks naive attribute-equality comparisons.
        self.build = "b7f" if self.rng.random() < 0.25 else "a41"
        self.counter = self.rng.randrange(1000, 90000)

    def link(self, target: str) -> str:
        """Relative URL from this page to ``target`` so the site works over file://."""
        start = posixpath.dirname(self.page.path) or "."
        return escape(posixpath.relpath(target, start), quote=True)

    def cx(self, component: str) -> str:
        """Hashed class name of a styled component, as CSS-in-JS tools emit them."""
        digest = hashlib.sha1(f"{self.build}/{component}".encode()).digest()
        return "css-" + _base36(int.from_bytes(digest[:4], "big"))[:6]

    def uid(self, prefix: str) -> str:
        """A counter-based element id (``prefix-83412``), unique within the page."""
        self.counter += self.rng.randrange(1, 9)
        return f"{prefix}-{self.counter}"

    def hexid(self, n: int = 8) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def sentence(self, lo: int = 6, hi: int = 16) -> str:
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(lo, hi))]
        return " ".join(words).capitalize() + "."

    def paragraph(self, lo: int = 2, hi: int = 5) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(lo, hi)))


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rem = divmod(value, 36)
        out = digits[rem] + out
        if not value:
            return out.rjust(6, "0")


def _slug(text: str) -> str:
    keep = "".join(c.lower() if c.isalnum() else "-" for c in text)
    return "-".join(part for part in keep.split("-") if part)


def _money(value: float) -> str:
    return f"${value:,.2f}"


# --------------------------------------------------------------------------------------
# Building the catalogue
# --------------------------------------------------------------------------------------


def build_site(seed: int) -> tuple[Site, list[Page]]:
    """Draw the catalogue and list every page with its label and renderer."""
    rng = random.Random(f"northwind-catalogue:{seed}")
    subs = [
        Subcategory(sub_key, sub_name, cat_key, cat_name, nouns)
        for cat_key, (cat_name, children) in CATEGORIES.items()
        for sub_key, (sub_name, nouns) in children.items()
    ]
    # Listing sizes vary like on real shops: a tiny category of 3 products, a large one
    # paginated by 24, the rest in between.
    counts = [rng.randint(5, 14) for _ in subs]
    counts[0], counts[7] = 3, 31
    for sub in subs:
        sub.per_page = rng.choice([6, 9, 12])
    subs[7].per_page = 24

    products: list[Product] = []
    used_slugs: set[str] = set()
    pid = 10400
    for sub, count in zip(subs, counts, strict=True):
        for _ in range(count):
            pid += rng.randint(1, 37)
            brand = rng.choice(BRANDS)
            name = f"{brand} {rng.choice(ADJECTIVES)} {rng.choice(sub.nouns)}"
            if rng.random() < 0.3:
                name += f" {rng.choice(['II', 'X2', 'Max', 'Mini', '2024', 'Lite'])}"
            slug = _slug(name)
            if slug in used_slugs:
                slug = f"{slug}-{pid}"
            used_slugs.add(slug)
            scheme = rng.random()
            if scheme < 0.35:
                path = f"p/{pid}.html"
            elif scheme < 0.7:
                path = f"item/{slug}-{pid}.html"
            else:
                path = f"shop/{sub.cat_key}/{slug}.html"
            price = round(rng.uniform(6, 420), 2)
            old_price = round(price * rng.uniform(1.1, 1.6), 2) if rng.random() < 0.3 else None
            n_reviews = 0 if rng.random() < 0.3 else rng.randint(1, 14)
            product = Product(
                pid=pid,
                name=name,
                slug=slug,
                path=path,
                sub=sub,
                brand=brand,
                price=price,
                old_price=old_price,
                rating=round(rng.uniform(2.6, 5.0), 1),
                n_reviews=n_reviews,
                is_new=rng.random() < 0.15,
            )
            sub.products.append(product)
            products.append(product)

    site = Site(seed=seed, subs=subs, products=products)
    site.collections = {
        "sale": [p for p in products if p.old_price is not None],
        "new-arrivals": [p for p in products if p.is_new],
    }
    for term in SEARCH_TERMS:
        hits = [p for p in products if term in p.name.lower() or term in p.sub.name.lower()]
        site.search_results[term] = hits
        n_pages = max(1, -(-len(hits) // 10))
        site.search_pages[term] = [
            f"search/{_slug(term)}.html" if n == 1 else f"search/{_slug(term)}-page-{n}.html"
            for n in range(1, min(n_pages, 3) + 1)
        ]
    site.help_pages = [
        ("help/shipping.html", "Shipping & delivery"),
        ("help/returns.html", "Returns & refunds"),
        ("help/payment-methods.html", "Payment methods"),
        ("help/order-tracking.html", "Tracking your order"),
        ("help/size-guide.html", "Size guide"),
        ("help/warranty.html", "Warranty & repairs"),
        ("help/gift-cards.html", "Gift cards"),
        ("faq.html", "Frequently asked questions"),
        ("about.html", "About us"),
        ("contact.html", "Contact us"),
        ("pages/privacy.html", "Privacy policy"),
        ("pages/terms.html", "Terms of sale"),
        ("pages/careers.html", "Careers"),
        ("pages/stores.html", "Our stores"),
    ]
    return site, _list_pages(site)


def _list_pages(site: Site) -> list[Page]:
    pages = [Page("index.html", "home", f"{SITE_NAME} — gear for everyday adventures", _home)]
    for cat_key, (cat_name, _) in CATEGORIES.items():
        pages.append(
            Page(f"shop/{cat_key}/index.html", "category", f"{cat_name} | {SITE_NAME}", _landing)
        )
    for sub in site.subs:
        n_pages = max(1, -(-len(sub.products) // sub.per_page))
        for number in range(1, n_pages + 1):
            suffix = "" if number == 1 else f" — page {number}"
            pages.append(
                Page(
                    sub.page_path(number),
                    "category",
                    f"{sub.name}{suffix} | {SITE_NAME}",
                    _listing,
                )
            )
    for key, members in site.collections.items():
        n_pages = max(1, -(-len(members) // 12))
        for number in range(1, n_pages + 1):
            path = f"collections/{key}.html" if number == 1 else f"collections/{key}-{number}.html"
            title = key.replace("-", " ").title()
            pages.append(Page(path, "category", f"{title} | {SITE_NAME}", _listing))
    for product in site.products:
        pages.append(Page(product.path, "product", f"{product.name} | {SITE_NAME}", _product))
    for term, paths in site.search_pages.items():
        for path in paths:
            pages.append(Page(path, "search", f"Search: {term} | {SITE_NAME}", _search))
    for path, title in site.help_pages:
        pages.append(Page(path, "help", f"{title} | {SITE_NAME}", _help))
    pages.append(Page("cart.html", "cart", f"Your cart | {SITE_NAME}", _cart))
    for path, title in [
        ("account/login.html", "Sign in"),
        ("account/register.html", "Create an account"),
        ("account/forgot-password.html", "Reset your password"),
    ]:
        pages.append(Page(path, "account", f"{title} | {SITE_NAME}", _account))
    return pages


# --------------------------------------------------------------------------------------
# Shared chrome
# --------------------------------------------------------------------------------------


def _document(ctx: PageContext, body_class: str, main: str, head_extra: str = "") -> str:
    rng = ctx.rng
    request_id = ctx.hexid(16)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{escape(ctx.page.title)}</title>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<link rel="stylesheet" href="{ctx.link("static/css/shop.css")}">',
        f'<link rel="icon" href="{ctx.link("static/img/logo.svg")}">',
        "<script>window.dataLayer=window.dataLayer||[];"
        f'window.__SHOP__={{"build":"{ctx.build}","rid":"{request_id}",'
        f'"ab":"{rng.choice(["control", "grid-v2", "sticky-cart"])}"}};</script>',
        head_extra,
        "</head>",
        f'<body class="{body_class} {ctx.cx("body")}">',
        f"<!-- shopfront 4.{rng.randint(0, 9)}.{rng.randint(0, 30)} node=web-"
        f"{rng.randint(1, 12):02d} rendered in {rng.randint(18, 240)}ms -->",
        f'<div id="{ctx.uid("app")}" class="app-root {ctx.cx("root")}">',
        _header(ctx),
        f'<main id="{ctx.uid("main")}" class="page-main {ctx.cx("main")}">',
        main,
        "</main>",
        _footer(ctx),
        "</div>",
    ]
    if rng.random() < 0.3:
        parts.append(
            f'<div class="cookie-banner {ctx.cx("cookie")}" role="dialog" '
            'style="position:fixed;bottom:0;left:0;right:0">'
            "<p>We use cookies to keep your cart and to measure traffic.</p>"
            '<button type="button" class="btn">Accept</button>'
            '<button type="button" class="btn btn-ghost">Settings</button></div>'
        )
    parts.append(
        f'<div id="{ctx.uid("modal")}" class="modal" style="display:none" aria-hidden="true">'
        '<div class="modal-body"></div></div>'
    )
    parts.append(f'<script src="{ctx.link("static/js/app.js")}" defer></script>')
    parts.append(
        "<script>(function(){var t=Date.now();window.addEventListener('load',function(){"
        f"window.dataLayer.push({{event:'page_view',rid:'{request_id}',"
        "t:Date.now()-t});});})();</script>"
    )
    parts.append("</body>")
    parts.append("</html>")
    return "\n".join(p for p in parts if p) + "\n"


def _header(ctx: PageContext) -> str:
    rng = ctx.rng
    out = [f'<header id="top" class="site-header {ctx.cx("header")}">']
    if rng.random() < 0.85:
        colour = rng.choice(["#243b53", "#7a2e1f", "#2f5d3a", "#3d2a5c"])
        out.append(
            f'<div class="promo-bar {ctx.cx("promo")}" style="background:{colour};color:#fff">'
            f"{escape(rng.choice(PROMOS))}</div>"
        )
    search_target = ctx.site.search_pages["backpack"][0]
    qid = ctx.uid("q")
    out.append(
        '<div class="header-inner">'
        f'<a class="logo" href="{ctx.link("index.html")}">'
        f'<img src="{ctx.link("static/img/logo.svg")}" alt="{SITE_NAME}" width="160" '
        'height="32"></a>'
        f'<form class="search-box {ctx.cx("search-box")}" role="search" '
        f'action="{ctx.link(search_target)}" method="get">'
        f'<label for="{qid}" class="sr-only">Search</label>'
        f'<input id="{qid}" name="q" type="search" placeholder="Search products">'
        '<button type="submit">Search</button></form>'
        '<ul class="header-links">'
        f'<li><a href="{ctx.link("account/login.html")}">Sign in</a></li>'
        f'<li><a class="cart-link" href="{ctx.link("cart.html")}">Cart '
        f'<span class="cart-count">{rng.randint(0, 3)}</span></a></li></ul></div>'
    )
    out.append(f'<nav class="main-nav {ctx.cx("nav")}" aria-label="Main"><ul class="nav-root">')
    for cat_key, (cat_name, children) in CATEGORIES.items():
        out.append(
            f'<li class="nav-item has-children"><a href="{ctx.link(f"shop/{cat_key}/index.html")}">'
            f'{escape(cat_name)}</a><div class="mega {ctx.cx("mega")}"><ul>'
        )
        for sub_key, (sub_name, _) in children.items():
            target = f"shop/{cat_key}/{sub_key}/index.html"
            out.append(f'<li><a href="{ctx.link(target)}">{escape(sub_name)}</a></li>')
        out.append("</ul></div></li>")
    out.append(
        f'<li class="nav-item nav-sale"><a href="{ctx.link("collections/sale.html")}">Sale</a>'
        f'</li><li class="nav-item"><a href="{ctx.link("collections/new-arrivals.html")}">'
        "New in</a></li>"
        f'<li class="nav-item"><a href="{ctx.link("help/shipping.html")}">Help</a></li>'
    )
    out.append("</ul></nav></header>")
    out.append("<!-- /header -->")
    return "\n".join(out)


def _footer(ctx: PageContext) -> str:
    rng = ctx.rng
    out = [f'<footer class="site-footer {ctx.cx("footer")}">', '<div class="footer-cols">']
    out.append('<div class="footer-col"><h4>Shop</h4><ul>')
    for cat_key, (cat_name, _) in CATEGORIES.items():
        out.append(
            f'<li><a href="{ctx.link(f"shop/{cat_key}/index.html")}">{escape(cat_name)}</a></li>'
        )
    out.append("</ul></div>")
    out.append('<div class="footer-col"><h4>Help</h4><ul>')
    for path, title in ctx.site.help_pages[:8]:
        out.append(f'<li><a href="{ctx.link(path)}">{escape(title)}</a></li>')
    out.append("</ul></div>")
    out.append('<div class="footer-col"><h4>Company</h4><ul>')
    for path, title in ctx.site.help_pages[8:]:
        out.append(f'<li><a href="{ctx.link(path)}">{escape(title)}</a></li>')
    out.append("</ul></div>")
    out.append('<div class="footer-col"><h4>Follow us</h4><ul>')
    for name, url in EXTERNAL_LINKS:
        out.append(f'<li><a href="{url}" rel="noopener" target="_blank">{name}</a></li>')
    out.append("</ul></div></div>")
    terms = rng.sample(SEARCH_TERMS, 6)
    out.append('<div class="popular-searches"><span>Popular searches:</span>')
    out.append(
        " ".join(
            f'<a class="chip" href="{ctx.link(ctx.site.search_pages[t][0])}">{escape(t)}</a>'
            for t in terms
        )
    )
    out.append("</div>")
    nid = ctx.uid("nl")
    out.append(
        f'<form class="newsletter {ctx.cx("newsletter")}" action="#" method="post">'
        f'<label for="{nid}">Get our newsletter</label>'
        f'<input id="{nid}" type="email" name="email" placeholder="you@example.com">'
        '<button type="submit">Subscribe</button></form>'
    )
    out.append(
        '<p class="copyright">&copy; 2024 Northwind Outfitters Ltd. '
        '<a href="#top">Back to top</a></p></footer>'
    )
    return "\n".join(out)


def _breadcrumbs(ctx: PageContext, trail: list[tuple[str, str | None]]) -> str:
    items = []
    for position, (name, target) in enumerate(trail, start=1):
        if target is None:
            items.append(f'<li aria-current="page"><span>{escape(name)}</span></li>')
        else:
            items.append(
                f'<li data-pos="{position}"><a href="{ctx.link(target)}">{escape(name)}</a></li>'
            )
    return (
        f'<nav class="breadcrumbs {ctx.cx("crumbs")}" aria-label="Breadcrumb"><ol>'
        + "".join(items)
        + "</ol></nav>"
    )


def _stars(ctx: PageContext, rating: float) -> str:
    full = round(rating)
    return (
        f'<span class="stars {ctx.cx("stars")}" title="{rating} out of 5">'
        + "".join(f'<i class="star{"" if n < full else " star-empty"}"></i>' for n in range(5))
        + "</span>"
    )


def _image(ctx: PageContext, product: Product, size: str) -> str:
    variant = product.pid % 8
    return (
        f'<img src="{ctx.link(f"static/img/ph-{variant}.svg")}" alt="{escape(product.name)}" '
        f'loading="lazy" data-size="{size}">'
    )


def _card(ctx: PageContext, product: Product, small: bool = False) -> str:
    """A product tile as used on listings, the home page and in "related products"."""
    rng = ctx.rng
    out = [
        f'<li class="product-card{" product-card--small" if small else ""} {ctx.cx("card")}" '
        f'id="pc-{product.pid}-{ctx.hexid(4)}" data-sku="NW{product.pid}">',
        f'<a class="card-media" href="{ctx.link(product.path)}">{_image(ctx, product, "m")}</a>',
    ]
    if product.old_price is not None:
        off = round(100 * (1 - product.price / product.old_price))
        out.append(f'<span class="badge badge-sale">-{off}%</span>')
    elif product.is_new:
        out.append('<span class="badge badge-new">New</span>')
    out.append('<div class="card-body">')
    out.append(
        f'<h3 class="card-title"><a href="{ctx.link(product.path)}">{escape(product.name)}</a></h3>'
    )
    if product.n_reviews and not small:
        out.append(
            f'<div class="card-rating">{_stars(ctx, product.rating)}'
            f'<span class="count">({product.n_reviews})</span></div>'
        )
    price = f'<span class="amount">{_money(product.price)}</span>'
    if product.old_price is not None:
        price = f'<s class="was">{_money(product.old_price)}</s> ' + price
    out.append(f'<div class="card-price">{price}</div>')
    if not small:
        label = rng.choice(["Add to cart", "Quick add", "Add to cart"])
        out.append(f'<button class="btn quick-add" data-pid="{product.pid}">{label}</button>')
    out.append("</div></li>")
    return "".join(out)


# --------------------------------------------------------------------------------------
# Page renderers
# --------------------------------------------------------------------------------------


def _find_product(site: Site, path: str) -> Product:
    for product in site.products:
        if product.path == path:
            return product
    raise KeyError(path)


def _product(ctx: PageContext) -> str:
    rng = ctx.rng
    product = _find_product(ctx.site, ctx.page.path)
    sub = product.sub
    cat_path = f"shop/{sub.cat_key}/index.html"
    depth = rng.random()
    trail: list[tuple[str, str | None]]
    if depth < 0.4:
        trail = [("Home", "index.html"), (sub.cat_name, cat_path), (sub.name, sub.page_path(1))]
        trail.append((product.name, None))
    elif depth < 0.7:
        trail = [("Home", "index.html"), (sub.name, sub.page_path(1)), (product.name, None)]
    elif depth < 0.9:
        trail = [("Home", "index.html"), (sub.cat_name, cat_path), (sub.name, sub.page_path(1))]
    else:
        trail = [("Home", "index.html"), (product.name, None)]

    out = [_breadcrumbs(ctx, trail)]
    out.append(
        f'<div class="product-page {ctx.cx("pdp")}" id="p-{product.pid}" itemscope '
        'itemtype="https://schema.org/Product">'
    )
    # Gallery
    out.append(f'<div class="gallery {ctx.cx("gallery")}">')
    out.append(f'<div class="gallery-main">{_image(ctx, product, "l")}</div>')
    n_thumbs = rng.randint(1, 6)
    if n_thumbs > 1:
        out.append('<ul class="gallery-thumbs">')
        for n in range(n_thumbs):
            active = ' class="active"' if n == 0 else ""
            out.append(
                f'<li{active}><button type="button">{_image(ctx, product, "s")}</button></li>'
            )
        out.append("</ul>")
    out.append("</div>")
    # Buy box
    out.append(f'<div class="buy-box {ctx.cx("buybox")}">')
    out.append(f'<p class="brand"><a href="{ctx.link(sub.page_path(1))}">{product.brand}</a></p>')
    out.append(f'<h1 class="product-title" itemprop="name">{escape(product.name)}</h1>')
    out.append(f'<p class="sku">SKU: <span itemprop="sku">NW{product.pid}</span></p>')
    if product.n_reviews:
        out.append(
            f'<div class="rating-summary">{_stars(ctx, product.rating)}'
            f'<a href="#reviews">{product.n_reviews} reviews</a></div>'
        )
    out.append(
        '<div class="price-box" itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
    )
    if product.old_price is not None:
        off = round(100 * (1 - product.price / product.old_price))
        out.append(f'<span class="badge badge-sale {ctx.cx("badge")}">Save {off}%</span>')
        out.append(f'<s class="old-price">{_money(product.old_price)}</s>')
    out.append(
        f'<span class="price" itemprop="price" content="{product.price:.2f}">'
        f'{_money(product.price)}</span><meta itemprop="priceCurrency" content="USD"></div>'
    )
    if rng.random() < 0.45:
        out.append(f'<div class="variants {ctx.cx("variants")}">')
        if rng.random() < 0.6:
            sid = ctx.uid("size")
            out.append(f'<label for="{sid}">Size</label><select id="{sid}" name="size">')
            lo = rng.randint(0, 2)
            for size in SIZES[lo : lo + rng.randint(3, 4)]:
                out.append(f"<option>{size}</option>")
            out.append("</select>")
        if rng.random() < 0.7:
            out.append('<fieldset class="swatches"><legend>Colour</legend>')
            for name, hexcode in rng.sample(COLORS, rng.randint(2, 5)):
                out.append(
                    f'<button type="button" class="swatch" title="{name}" '
                    f'style="background-color:{hexcode}"></button>'
                )
            out.append("</fieldset>")
        out.append("</div>")
    in_stock = rng.random() < 0.85
    colour = "#2f7d32" if in_stock else "#b3261e"
    stock = "In stock" if in_stock else "Back in stock soon"
    out.append(f'<p class="stock" style="color:{colour}">{stock}</p>')
    qid = ctx.uid("qty")
    out.append(
        f'<form class="add-to-cart" action="{ctx.link("cart.html")}" method="get">'
        f'<label for="{qid}">Qty</label><input id="{qid}" name="qty" type="number" value="1" '
        'min="1"><button class="btn btn-primary" type="submit">Add to cart</button></form>'
    )
    if rng.random() < 0.5:
        out.append(
            '<ul class="perks"><li>Free returns within 30 days</li>'
            f"<li>Ships in {rng.randint(1, 4)} business days</li></ul>"
        )
    out.append("</div>")  # buy box
    # Details
    out.append(f'<div class="product-details {ctx.cx("details")}">')
    out.append('<section class="description" itemprop="description"><h2>Description</h2>')
    for _ in range(rng.randint(1, 4)):
        out.append(f"<p>{escape(ctx.paragraph())}</p>")
    n_features = rng.choice([0, 0, 3, 4, 5, 6])
    if n_features:
        out.append('<ul class="features">')
        for _ in range(n_features):
            out.append(f"<li>{escape(ctx.sentence(3, 7))}</li>")
        out.append("</ul>")
    out.append("</section>")
    out.append('<section class="specs"><h2>Specifications</h2><table class="spec-table"><tbody>')
    for key in rng.sample(SPEC_KEYS, rng.randint(3, 12)):
        value = escape(ctx.sentence(1, 3).rstrip("."))
        out.append(f'<tr><th scope="row">{key}</th><td>{value}</td></tr>')
    out.append("</tbody></table></section>")
    out.append(
        f'<section id="reviews" class="reviews {ctx.cx("reviews")}">'
        f"<h2>Customer reviews ({product.n_reviews})</h2>"
    )
    if product.n_reviews:
        out.append('<ol class="review-list">')
        for _ in range(product.n_reviews):
            out.append(_review(ctx))
        out.append("</ol>")
    else:
        out.append('<p class="no-reviews">No reviews yet. Be the first to write one.</p>')
    out.append("</section>")
    if rng.random() < 0.2:
        out.append('<section class="questions"><h2>Questions &amp; answers</h2><dl>')
        for _ in range(rng.randint(1, 4)):
            out.append(
                f"<dt>{escape(ctx.sentence(4, 9)[:-1])}?</dt><dd>{escape(ctx.sentence())}</dd>"
            )
        out.append("</dl></section>")
    out.append("</div>")  # details
    if rng.random() < 0.6:
        pool = [p for p in sub.products if p.pid != product.pid] or ctx.site.products[:8]
        related = rng.sample(pool, min(len(pool), rng.randint(2, 6)))
        out.append(
            f'<section class="related {ctx.cx("related")}"><h2>You may also like</h2>'
            '<ul class="related-list">'
        )
        out.extend(_card(ctx, p, small=True) for p in related)
        out.append("</ul></section>")
    if rng.random() < 0.4:
        terms = rng.sample(SEARCH_TERMS, 3)
        out.append('<p class="tags">Tags: ')
        out.append(
            ", ".join(
                f'<a href="{ctx.link(ctx.site.search_pages[t][0])}">{escape(t)}</a>' for t in terms
            )
        )
        out.append("</p>")
    out.append("</div>")  # product-page
    ld = json.dumps(
        {
            "@context": "https://schema.org",
            "@type": "Product",
            "name": product.name,
            "sku": f"NW{product.pid}",
            "brand": product.brand,
            "offers": {"@type": "Offer", "price": f"{product.price:.2f}", "priceCurrency": "USD"},
        },
        sort_keys=True,
    )
    head = f'<script type="application/ld+json">{ld}</script>'
    return _document(ctx, "page-product", "\n".join(out), head)


def _review(ctx: PageContext) -> str:
    rng = ctx.rng
    stars = rng.randint(1, 5)
    out = [f'<li class="review {ctx.cx("review")}" id="{ctx.uid("r")}">']
    out.append(
        '<div class="review-head">'
        f"{_stars(ctx, float(stars))}"
        f'<h4 class="review-title">{escape(ctx.sentence(2, 5))}</h4></div>'
    )
    day = rng.randint(1, 28)
    month = rng.randint(1, 12)
    out.append(
        f'<p class="review-meta"><span class="author">{rng.choice(FIRST_NAMES)}</span> '
        f'<time datetime="2024-{month:02d}-{day:02d}">2024-{month:02d}-{day:02d}</time>'
    )
    if rng.random() < 0.5:
        out.append(' <span class="verified">Verified purchase</span>')
    out.append("</p>")
    for _ in range(rng.randint(1, 3)):
        out.append(f"<p>{escape(ctx.paragraph(1, 3))}</p>")
    if rng.random() < 0.15:
        out.append(
            f'<div class="seller-reply"><strong>Reply from {SITE_NAME}</strong>'
            f"<p>{escape(ctx.sentence())}</p></div>"
        )
    out.append(
        f'<button type="button" class="helpful">Helpful ({rng.randint(0, 40)})</button></li>'
    )
    return "".join(out)


def _pagination(ctx: PageContext, paths: list[str], current: int) -> str:
    if len(paths) < 2:
        return ""
    out = [f'<nav class="pagination {ctx.cx("pager")}" aria-label="Pages"><ul>']
    if current > 1:
        out.append(f'<li><a rel="prev" href="{ctx.link(paths[current - 2])}">Previous</a></li>')
    for number, path in enumerate(paths, start=1):
        if number == current:
            out.append(f'<li class="current"><span>{number}</span></li>')
        else:
            out.append(f'<li><a href="{ctx.link(path)}">{number}</a></li>')
    if current < len(paths):
        out.append(f'<li><a rel="next" href="{ctx.link(paths[current])}">Next</a></li>')
    out.append("</ul></nav>")
    return "".join(out)


def _listing(ctx: PageContext) -> str:
    """Category and collection listings: facets on the left, a product grid, pagination."""
    rng = ctx.rng
    path = ctx.page.path
    if path.startswith("collections/"):
        key = path[len("collections/") :].removesuffix(".html")
        number = 1
        if key[-1].isdigit() and "-" in key:
            key, _, num = key.rpartition("-")
            number = int(num)
        members = ctx.site.collections[key]
        per_page = 12
        n_pages = max(1, -(-len(members) // per_page))
        paths = [
            f"collections/{key}.html" if n == 1 else f"collections/{key}-{n}.html"
            for n in range(1, n_pages + 1)
        ]
        heading = key.replace("-", " ").title()
        trail: list[tuple[str, str | None]] = [("Home", "index.html"), (heading, None)]
    else:
        sub = next(s for s in ctx.site.subs if path.startswith(f"shop/{s.cat_key}/{s.key}/"))
        members = sub.products
        per_page = sub.per_page
        n_pages = max(1, -(-len(members) // per_page))
        paths = [sub.page_path(n) for n in range(1, n_pages + 1)]
        number = paths.index(path) + 1
        heading = sub.name
        trail = [("Home", "index.html"), (sub.cat_name, f"shop/{sub.cat_key}/index.html")]
        trail.append((sub.name, None))
    shown = members[(number - 1) * per_page : number * per_page]

    out = [_breadcrumbs(ctx, trail)]
    out.append(f'<div class="listing-layout {ctx.cx("listing")}">')
    out.append(f'<aside class="facets {ctx.cx("facets")}"><h2>Filter</h2>')
    facets = ["Brand", "Price", "Rating", "Colour", "Availability"]
    for facet in facets[: rng.randint(2, 5)]:
        out.append(f'<div class="facet" data-facet="{facet.lower()}"><h3>{facet}</h3><ul>')
        values: Iterable[str]
        if facet == "Brand":
            values = sorted({p.brand for p in members})
        elif facet == "Price":
            values = ["Under $25", "$25 – $100", "$100 – $250", "Over $250"]
        elif facet == "Rating":
            values = ["4 stars & up", "3 stars & up"]
        elif facet == "Colour":
            values = [name for name, _ in rng.sample(COLORS, rng.randint(3, 6))]
        else:
            values = ["In stock", "Ships today"]
        for value in values:
            fid = ctx.uid("f")
            out.append(
                f'<li><input type="checkbox" id="{fid}"><label for="{fid}">{escape(value)}'
                "</label></li>"
            )
        out.append("</ul></div>")
    out.append("</aside>")
    out.append(f'<section class="listing {ctx.cx("grid-wrap")}">')
    out.append(f'<h1 class="listing-title">{escape(heading)}</h1>')
    if rng.random() < 0.5:
        out.append(f'<p class="listing-intro">{escape(ctx.paragraph(1, 2))}</p>')
    first = (number - 1) * per_page + 1
    sid = ctx.uid("sort")
    out.append(
        f'<div class="toolbar"><p class="result-count">Showing {first}–'
        f"{first + len(shown) - 1} of {len(members)}</p>"
        f'<label for="{sid}">Sort by</label><select id="{sid}"><option>Featured</option>'
        "<option>Price: low to high</option><option>Price: high to low</option>"
        "<option>Newest</option></select></div>"
    )
    out.append(f'<ul class="product-grid {ctx.cx("grid")}">')
    promo_at = rng.randint(2, 6) if len(shown) > 6 and rng.random() < 0.3 else -1
    for index, product in enumerate(shown):
        if index == promo_at:
            out.append(
                '<li class="promo-tile" style="background:#f1e6d0">'
                f"<p>{escape(rng.choice(PROMOS))}</p></li>"
            )
        out.append(_card(ctx, product))
    out.append("</ul>")
    out.append(_pagination(ctx, paths, number))
    out.append("</section></div>")
    if number == 1 and rng.random() < 0.6:
        out.append(
            f'<section class="seo-text"><h2>About {escape(heading)}</h2>'
            f"<p>{escape(ctx.paragraph())}</p><p>{escape(ctx.paragraph())}</p></section>"
        )
    return _document(ctx, "page-listing", "\n".join(out))


def _landing(ctx: PageContext) -> str:
    """A top-level category page: a banner, sub-category tiles and a bestseller strip."""
    rng = ctx.rng
    cat_key = ctx.page.path.split("/")[1]
    cat_name, _ = CATEGORIES[cat_key]
    subs = [s for s in ctx.site.subs if s.cat_key == cat_key]
    out = [_breadcrumbs(ctx, [("Home", "index.html"), (cat_name, None)])]
    out.append(
        f'<section class="category-hero {ctx.cx("cat-hero")}" '
        f'style="background-image:url({ctx.link("static/img/ph-1.svg")})">'
        f'<h1 class="listing-title">{escape(cat_name)}</h1>'
        f"<p>{escape(ctx.sentence())}</p></section>"
    )
    out.append(f'<ul class="subcategory-tiles {ctx.cx("tiles")}">')
    for sub in subs:
        out.append(
            f'<li class="tile"><a href="{ctx.link(sub.page_path(1))}">'
            f'<img src="{ctx.link("static/img/ph-2.svg")}" alt="">'
            f"<span>{escape(sub.name)}</span></a>"
            f'<span class="tile-count">{len(sub.products)} products</span></li>'
        )
    out.append("</ul>")
    pool = [p for s in subs for p in s.products]
    best = rng.sample(pool, min(len(pool), rng.randint(4, 8)))
    out.append(
        f'<section class="bestsellers"><h2>Bestsellers in {escape(cat_name)}</h2>'
        f'<ul class="product-grid {ctx.cx("grid")}">'
    )
    out.extend(_card(ctx, p) for p in best)
    out.append("</ul></section>")
    out.append(
        f'<section class="seo-text"><h2>Shop {escape(cat_name)}</h2>'
        f"<p>{escape(ctx.paragraph())}</p></section>"
    )
    return _document(ctx, "page-category", "\n".join(out))


def _search(ctx: PageContext) -> str:
    """Search results: a refine form, a flat result list with snippets, no facets."""
    rng = ctx.rng
    term = next(t for t, paths in ctx.site.search_pages.items() if ctx.page.path in paths)
    paths = ctx.site.search_pages[term]
    number = paths.index(ctx.page.path) + 1
    hits = ctx.site.search_results[term]
    shown = hits[(number - 1) * 10 : number * 10]
    out = [f'<section class="search-page {ctx.cx("serp")}">']
    out.append(f'<h1 class="serp-title">Results for &ldquo;{escape(term)}&rdquo;</h1>')
    rid = ctx.uid("refine")
    out.append(
        f'<form class="refine {ctx.cx("refine")}" action="{ctx.link(paths[0])}" method="get">'
        f'<input id="{rid}" name="q" type="search" value="{escape(term)}">'
        '<select name="in"><option>All departments</option>'
        + "".join(f"<option>{escape(name)}</option>" for name, _ in CATEGORIES.values())
        + '</select><button type="submit">Search again</button></form>'
    )
    out.append(f'<p class="serp-count">{len(hits)} results</p>')
    if not hits:
        suggestions = rng.sample([t for t in SEARCH_TERMS if t != term], 4)
        out.append(
            f'<div class="no-results {ctx.cx("empty")}"><h2>Nothing matched your search</h2>'
            "<p>Check the spelling or try one of these:</p><ul>"
            + "".join(
                f'<li><a href="{ctx.link(ctx.site.search_pages[t][0])}">{escape(t)}</a></li>'
                for t in suggestions
            )
            + "</ul></div>"
        )
    else:
        if rng.random() < 0.3:
            related = rng.sample([t for t in SEARCH_TERMS if t != term], 3)
            out.append(
                '<p class="related-searches">Related: '
                + " · ".join(
                    f'<a href="{ctx.link(ctx.site.search_pages[t][0])}">{escape(t)}</a>'
                    for t in related
                )
                + "</p>"
            )
        out.append(f'<ol class="serp-results {ctx.cx("hits")}" start="{(number - 1) * 10 + 1}">')
        for product in shown:
            out.append(_hit(ctx, product, term))
        out.append("</ol>")
    if number == 1 and rng.random() < 0.4:
        articles = rng.sample(ctx.site.help_pages[:8], 2)
        out.append('<aside class="serp-help"><h2>From our help centre</h2><ul>')
        for path, title in articles:
            out.append(
                f'<li><a href="{ctx.link(path)}">{escape(title)}</a>'
                f"<p>{escape(ctx.sentence())}</p></li>"
            )
        out.append("</ul></aside>")
    out.append(_pagination(ctx, paths, number))
    out.append("</section>")
    return _document(ctx, "page-search", "\n".join(out))


def _hit(ctx: PageContext, product: Product, term: str) -> str:
    snippet = escape(ctx.sentence(8, 14))
    name = escape(product.name)
    lower = name.lower()
    at = lower.find(term)
    if at >= 0:
        name = f"{name[:at]}<mark>{name[at : at + len(term)]}</mark>{name[at + len(term) :]}"
    out = [f'<li class="hit" id="{ctx.uid("hit")}">']
    out.append(
        f'<a class="hit-thumb" href="{ctx.link(product.path)}">{_image(ctx, product, "s")}</a>'
    )
    out.append('<div class="hit-main">')
    out.append(f'<h2 class="hit-title"><a href="{ctx.link(product.path)}">{name}</a></h2>')
    out.append(f'<p class="hit-snippet">{snippet}</p>')
    out.append(
        f'<p class="hit-meta">{escape(product.sub.name)} · <b>{_money(product.price)}</b>'
        + (" · on sale" if product.old_price else "")
        + "</p>"
    )
    out.append("</div></li>")
    return "".join(out)


def _help(ctx: PageContext) -> str:
    """Static help/company pages: a help menu, an article with sections, a feedback box."""
    rng = ctx.rng
    path = ctx.page.path
    title = dict(ctx.site.help_pages)[path]
    out = [_breadcrumbs(ctx, [("Home", "index.html"), ("Help centre", "help/shipping.html")])]
    out.append(f'<div class="help-layout {ctx.cx("help")}">')
    out.append(f'<aside class="help-menu {ctx.cx("help-menu")}"><h2>Help centre</h2><ul>')
    for other, other_title in ctx.site.help_pages:
        current = ' class="current"' if other == path else ""
        out.append(f'<li{current}><a href="{ctx.link(other)}">{escape(other_title)}</a></li>')
    out.append("</ul></aside>")
    out.append(f'<article class="help-article {ctx.cx("article")}">')
    out.append(f"<h1>{escape(title)}</h1>")
    out.append(
        f'<p class="updated">Last updated: 2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}</p>'
    )
    if path == "faq.html":
        for group in ["Orders", "Delivery", "Returns", "Account"][: rng.randint(3, 4)]:
            out.append(f"<h2>{group}</h2>")
            for _ in range(rng.randint(2, 5)):
                out.append(
                    f"<details><summary>{escape(ctx.sentence(4, 8)[:-1])}?</summary>"
                    f"<p>{escape(ctx.paragraph(1, 2))}</p></details>"
                )
    else:
        n_sections = rng.randint(2, 5)
        if n_sections > 2:
            out.append('<ol class="toc">')
            for n in range(1, n_sections + 1):
                out.append(f'<li><a href="#sec-{n}">Section {n}</a></li>')
            out.append("</ol>")
        for n in range(1, n_sections + 1):
            out.append(f'<h2 id="sec-{n}">{escape(ctx.sentence(2, 4)[:-1])}</h2>')
            for _ in range(rng.randint(1, 3)):
                out.append(f"<p>{escape(ctx.paragraph())}</p>")
            if rng.random() < 0.3:
                out.append(
                    "<ul>"
                    + "".join(f"<li>{escape(ctx.sentence(3, 6))}</li>" for _ in range(3))
                    + "</ul>"
                )
        if path == "contact.html":
            cid = ctx.uid("msg")
            out.append(
                f'<form class="contact-form" action="#" method="post"><label for="{cid}">'
                f'Message</label><textarea id="{cid}" name="message"></textarea>'
                '<button type="submit">Send</button></form>'
            )
    out.append("</article></div>")
    out.append(
        f'<div class="feedback {ctx.cx("feedback")}"><p>Was this page helpful?</p>'
        '<button type="button">Yes</button><button type="button">No</button></div>'
    )
    return _document(ctx, "page-help", "\n".join(out))


def _home(ctx: PageContext) -> str:
    rng = ctx.rng
    out = [f'<section class="hero-carousel {ctx.cx("hero")}" data-autoplay="6000">']
    for n in range(rng.randint(3, 5)):
        out.append(
            f'<div class="slide" id="{ctx.uid("slide")}" style="background:#{ctx.hexid(6)}'
            f'{"" if n == 0 else ";display:none"}"><h2>{escape(rng.choice(PROMOS))}</h2>'
            f'<a class="btn" href="{ctx.link("collections/sale.html")}">Shop now</a></div>'
        )
    out.append("</section>")
    out.append('<section class="home-categories"><h2>Shop by category</h2><ul>')
    for cat_key, (cat_name, _) in CATEGORIES.items():
        out.append(
            f'<li><a href="{ctx.link(f"shop/{cat_key}/index.html")}">'
            f'<img src="{ctx.link("static/img/ph-3.svg")}" alt="">{escape(cat_name)}</a></li>'
        )
    out.append("</ul></section>")
    out.append(f'<section class="featured"><h2>Staff picks</h2><ul class="{ctx.cx("grid")}">')
    out.extend(_card(ctx, p) for p in rng.sample(ctx.site.products, 8))
    out.append("</ul></section>")
    out.append('<section class="trending"><h2>Trending searches</h2><p>')
    out.append(
        " ".join(
            f'<a href="{ctx.link(paths[0])}">{escape(term)}</a>'
            for term, paths in ctx.site.search_pages.items()
        )
    )
    out.append("</p></section>")
    return _document(ctx, "page-home", "\n".join(out))


def _cart(ctx: PageContext) -> str:
    rng = ctx.rng
    lines = rng.sample(ctx.site.products, 3)
    out = [f'<h1>Your cart</h1><table class="cart-table {ctx.cx("cart")}"><thead><tr>']
    out.append("<th>Item</th><th>Qty</th><th>Price</th></tr></thead><tbody>")
    total = 0.0
    for product in lines:
        qty = rng.randint(1, 3)
        total += qty * product.price
        out.append(
            f'<tr><td><a href="{ctx.link(product.path)}">{escape(product.name)}</a></td>'
            f'<td><input type="number" value="{qty}" min="0"></td>'
            f"<td>{_money(qty * product.price)}</td></tr>"
        )
    out.append(
        f'</tbody></table><div class="cart-summary"><p>Subtotal: <b>{_money(total)}</b></p>'
        f'<a class="btn btn-primary" href="{ctx.link("account/login.html")}">Checkout</a></div>'
    )
    return _document(ctx, "page-cart", "".join(out))


def _account(ctx: PageContext) -> str:
    path = ctx.page.path
    fields = {
        "account/login.html": [("email", "Email"), ("password", "Password")],
        "account/register.html": [
            ("text", "Full name"),
            ("email", "Email"),
            ("password", "Password"),
            ("password", "Repeat password"),
        ],
        "account/forgot-password.html": [("email", "Email")],
    }[path]
    out = [
        f'<div class="auth-box {ctx.cx("auth")}"><h1>{escape(ctx.page.title.split(" |")[0])}</h1>'
    ]
    out.append('<form method="post" action="#">')
    for kind, label in fields:
        fid = ctx.uid("fld")
        out.append(f'<label for="{fid}">{label}</label><input id="{fid}" type="{kind}">')
    out.append('<button type="submit" class="btn btn-primary">Continue</button></form>')
    out.append(
        f'<p class="auth-links"><a href="{ctx.link("account/login.html")}">Sign in</a> · '
        f'<a href="{ctx.link("account/register.html")}">Create account</a> · '
        f'<a href="{ctx.link("account/forgot-password.html")}">Forgot password?</a></p></div>'
    )
    return _document(ctx, "page-account", "\n".join(out))


# --------------------------------------------------------------------------------------
# Static assets and output
# --------------------------------------------------------------------------------------

_CSS = """\
body{font-family:system-ui,sans-serif;margin:0;color:#1d2433}
.header-inner,.main-nav,.page-main,.footer-cols{max-width:1100px;margin:0 auto;padding:0 16px}
.promo-bar{text-align:center;padding:6px;font-size:14px}
.nav-root{display:flex;gap:18px;list-style:none;padding:8px 0}
.mega{display:none}.nav-item:hover .mega{display:block;position:absolute;background:#fff}
.product-grid,.related-list{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));
gap:16px;list-style:none;padding:0}
.listing-layout,.help-layout{display:grid;grid-template-columns:220px 1fr;gap:24px}
.breadcrumbs ol{display:flex;gap:8px;list-style:none;padding:0}
.product-page{display:grid;grid-template-columns:1fr 1fr;gap:24px}
.product-details,.related,.tags{grid-column:1/3}
.star{display:inline-block;width:12px;height:12px;background:#e0a800}.star-empty{background:#ccc}
.badge-sale{background:#b3261e;color:#fff;padding:2px 6px}
.serp-results{list-style:none;padding:0}.hit{display:flex;gap:12px;margin-bottom:18px}
.site-footer{background:#f3f1ec;margin-top:40px;padding:24px 0}
.footer-cols{display:flex;gap:40px}.sr-only{position:absolute;left:-9999px}
img{max-width:100%}
"""

_JS = """\
document.addEventListener('click', function (event) {
  if (event.target.matches('.quick-add')) { event.target.textContent = 'Added'; }
});
"""


def _placeholder_svg(index: int) -> str:
    colours = [
        "#d8c7a0",
        "#5a6470",
        "#2f5d3a",
        "#a8512b",
        "#1f2e54",
        "#c99a2e",
        "#7d8f69",
        "#b0a4c8",
    ]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300">'
        f'<rect width="400" height="300" fill="{colours[index]}"/>'
        '<circle cx="200" cy="150" r="60" fill="#ffffff" fill-opacity="0.35"/></svg>\n'
    )


_LOGO_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="32" viewBox="0 0 160 32">'
    '<text x="0" y="24" font-family="sans-serif" font-size="20" fill="#243b53">'
    "Northwind</text></svg>\n"
)


def generate(out: Path, seed: int = SEED) -> dict[str, str]:
    """Write the demo site into ``out`` and return its labels ({relative path: page type}).

    ``out`` is replaced if it holds a previously generated site (it has ``labels.json``);
    a non-empty directory without one is refused so a wrong ``--out`` cannot wipe files.
    """
    if out.exists():
        if not out.is_dir():
            raise ValueError(f"output path {out} exists and is not a directory")
        if any(out.iterdir()):
            if not (out / LABELS_FILE).is_file():
                raise ValueError(
                    f"refusing to overwrite {out}: it is not empty and holds no {LABELS_FILE} "
                    "from an earlier run"
                )
            shutil.rmtree(out)
    site, pages = build_site(seed)
    labels: dict[str, str] = {}
    for page in pages:
        if page.path in labels:
            raise RuntimeError(f"two pages share the path {page.path}")
        html = page.render(PageContext(site, page))
        target = out / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(html.encode("utf-8"))
        labels[page.path] = page.label
    static = out / "static"
    (static / "css").mkdir(parents=True, exist_ok=True)
    (static / "js").mkdir(parents=True, exist_ok=True)
    (static / "img").mkdir(parents=True, exist_ok=True)
    (static / "css" / "shop.css").write_bytes(_CSS.encode())
    (static / "js" / "app.js").write_bytes(_JS.encode())
    (static / "img" / "logo.svg").write_bytes(_LOGO_SVG.encode())
    for index in range(8):
        (static / "img" / f"ph-{index}.svg").write_bytes(_placeholder_svg(index).encode())
    (out / LABELS_FILE).write_bytes(
        (json.dumps(dict(sorted(labels.items())), indent=1, sort_keys=True) + "\n").encode()
    )
    return labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--seed", type=int, default=SEED, help="random seed (default: %(default)s)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        labels = generate(args.out, args.seed)
    except (OSError, ValueError) as exc:
        logger.error("cannot generate the demo site: %s", exc)
        return 1
    counts: dict[str, int] = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    size = sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file())
    logger.info(
        "wrote %d pages (%s) to %s, %.1f MB",
        len(labels),
        ", ".join(f"{label}: {n}" for label, n in sorted(counts.items())),
        args.out,
        size / 1e6,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
