"""Settings of the demo shop crawl: pagesim classifies every page, only products are kept.

Template pages are part of the bundled site; their absolute paths are computed at import
time from this file's location, so the settings work from any checkout.
"""

from __future__ import annotations

from sample_project.demo_shop import DEMO_LABELS_FILE as labels_path
from sample_project.demo_shop import DEMO_SITE_DIR as site_dir

BOT_NAME = "demo_shop"
SPIDER_MODULES = ["sample_project.demo_shop.spiders"]
NEWSPIDER_MODULE = "sample_project.demo_shop.spiders"

# The site is local (file:// or a local HTTP server): no robots.txt, no politeness delay.
ROBOTSTXT_OBEY = False
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
# Nothing in the sample project may open a port (Scrapy 2.19's remote control extension
# also writes a job file with its token into the user's profile).
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False

# --- pagesim ------------------------------------------------------------------------------

ADDONS = {"pagesim_scrapy.Addon": 0}

PAGESIM_ENABLED = True

#: A few example pages per page type, chosen from the demo site (two product pages with
#: different optional blocks, a sub-category listing and a top-level category page, one
#: search result page, one help article).
PAGESIM_TEMPLATES = {
    "product": [
        str(site_dir / "p" / "13391.html"),
        str(site_dir / "item" / "brio-prime-wooden-puzzle-ii-13646.html"),
    ],
    "category": [
        str(site_dir / "shop" / "apparel" / "shirts" / "index.html"),
        str(site_dir / "shop" / "kitchen" / "index.html"),
    ],
    "search": [str(site_dir / "search" / "backpack.html")],
    "help": [str(site_dir / "help" / "shipping.html")],
}
PAGESIM_TARGETS = ["product"]
#: The default method, spelled out: structure weighted by the shop's own pages (its header,
#: menus and footer count for nothing) and the product cut from the shop's own scores.
PAGESIM_METHOD = "site"
PAGESIM_THRESHOLD = "auto"
# Non-target pages still reach the callback (their links must be followed) ...
PAGESIM_ACTION = "tag"
# ... but the items the spider yields for them are dropped by the filter pipeline.
PAGESIM_FILTER_ITEMS = True
# Every product page also becomes a PageItem; the induction pipeline (enabled by the add-on
# when PAGESIM_INDUCTION_ENABLED is on) learns the product template from the first pages and
# fills each item's ``record`` (name, price, sku, …) with no hand-written selector.
PAGESIM_PAGE_ITEMS = True
PAGESIM_INDUCTION_ENABLED = True
#: Pages learned before records come out (earlier items wait, bounded) and at most.
PAGESIM_INDUCTION_MIN_PAGES = 5
PAGESIM_INDUCTION_MAX_PAGES = 50
#: Every product item waits until the crawl runs dry, so the product wrapper learns the same
#: pages whatever the order they came in and two runs give identical records (docs/records.md,
#: "Stability"): a buffer above the shop's 170 product pages, and room for their ~3 MB of HTML
#: in Scrapy's scraper slot (held items count there, and half of it is the holding's cap).
PAGESIM_INDUCTION_BUFFER_SIZE = 200
SCRAPER_SLOT_MAX_ACTIVE_SIZE = 10_000_000
#: Records only: the page HTML is not exported.
PAGESIM_PAGE_ITEMS_KEEP_HTML = False

# --- demo scoring -------------------------------------------------------------------------

EXTENSIONS = {"sample_project.demo_shop.extensions.LabelAccuracyReport": 500}
#: Ground truth the LabelAccuracyReport extension scores pagesim's verdicts against.
DEMO_LABELS_FILE = str(labels_path)
