"""The core record's contract: per page type, each standard name and where it is read from.

A field lists the schema.org property paths read on the page's main entity (JSON-LD,
microdata, RDFa) and the flat keys read in the head (OpenGraph, twitter, meta), plus the
kind of value it holds, which picks its normaliser. Names are schema.org's, in snake case.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FIELDS", "MAIN_TYPES", "OG_TYPES", "PAGE_TYPES", "FieldSpec"]


@dataclass(frozen=True)
class FieldSpec:
    """One standard field: its name, the kind of value, and where it is read from."""

    name: str
    kind: str
    paths: tuple[str, ...] = ()
    flat: tuple[str, ...] = ()


_IMAGES = FieldSpec(
    "images",
    "urls",
    ("image",),
    ("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src"),
)
_DESCRIPTION = FieldSpec(
    "description",
    "text",
    ("description",),
    ("og:description", "twitter:description", "description"),
)
_URL = FieldSpec("url", "url", ("url",), ("og:url", "canonical"))
#: one list of groups, the same keys in each: {author, date, body, rating}
_REVIEWS = FieldSpec("reviews", "reviews", ("review", "reviews"))
_RATING_VALUE = FieldSpec("rating_value", "price", ("aggregateRating.ratingValue",))
#: the counts a page shows beside its rating ("7 reviews"), named as its metadata names them
_REVIEW_COUNT = FieldSpec("review_count", "price", ("aggregateRating.reviewCount",))
_RATING_COUNT = FieldSpec("rating_count", "price", ("aggregateRating.ratingCount",))
_AUTHOR = FieldSpec(
    "author",
    "authors",
    ("author", "creator"),
    (
        "article:author",
        "author",
        "twitter:label:author",
        "twitter:label:written_by",
        "parsely-author",
        "sailthru.author",
        "dc.creator",
        "twitter:creator",
    ),
)
_PUBLISHED = FieldSpec(
    "date_published",
    "text",
    ("datePublished", "dateCreated", "uploadDate"),
    (
        "article:published_time",
        "date",
        "dc.date",
        "dcterms.created",
        "pubdate",
        "publish-date",
        "parsely-pub-date",
    ),
)
_MODIFIED = FieldSpec(
    "date_modified",
    "text",
    ("dateModified",),
    ("article:modified_time", "og:updated_time", "dcterms.modified"),
)

PRODUCT = (
    FieldSpec("name", "text", ("name",), ("og:title", "twitter:title")),
    FieldSpec(
        "price",
        "price",
        (
            "offers.price",
            "offers.lowPrice",
            "offers.priceSpecification.price",
            "offers.offers.price",
            "hasVariant.offers.price",
        ),
        (
            "product:price:amount",
            "og:price:amount",
            "product:sale_price:amount",
            "twitter:label:price",
        ),
    ),
    FieldSpec(
        "currency",
        "currency",
        (
            "offers.priceCurrency",
            "offers.priceSpecification.priceCurrency",
            "offers.offers.priceCurrency",
            "hasVariant.offers.priceCurrency",
        ),
        ("product:price:currency", "og:price:currency", "product:sale_price:currency"),
    ),
    FieldSpec(
        "availability",
        "availability",
        ("offers.availability", "offers.offers.availability", "hasVariant.offers.availability"),
        ("product:availability", "og:availability", "twitter:label:availability"),
    ),
    FieldSpec(
        "brand",
        "name",
        ("brand", "offers.brand"),
        ("product:brand", "og:brand", "twitter:label:brand", "twitter:label:vendor"),
    ),
    FieldSpec(
        "sku",
        "id",
        ("sku", "offers.sku", "offers.itemOffered.sku"),
        ("product:retailer_item_id", "twitter:label:sku"),
    ),
    FieldSpec(
        "gtin",
        "gtin",
        ("gtin13", "gtin", "gtin14", "gtin12", "gtin8", "offers.gtin13", "offers.gtin"),
        ("product:ean", "product:upc", "product:gtin"),
    ),
    FieldSpec("mpn", "id", ("mpn", "offers.mpn"), ("product:mfr_part_no",)),
    _IMAGES,
    _DESCRIPTION,
    FieldSpec("breadcrumbs", "breadcrumbs"),
    FieldSpec("variants", "variants"),
    _REVIEWS,
    _RATING_VALUE,
    _REVIEW_COUNT,
    _RATING_COUNT,
    _URL,
)

ARTICLE = (
    FieldSpec("headline", "text", ("headline", "name"), ("og:title", "twitter:title")),
    _AUTHOR,
    _PUBLISHED,
    _MODIFIED,
    FieldSpec("section", "text", ("articleSection",), ("article:section", "parsely-section")),
    FieldSpec("body", "text", ("articleBody", "text")),
    _IMAGES,
    _DESCRIPTION,
    _URL,
)

THREAD = (
    FieldSpec(
        "title",
        "text",
        ("headline", "name", "mainEntity.name", "mainEntity.headline"),
        ("og:title", "twitter:title"),
    ),
    FieldSpec("posts", "posts"),
    _URL,
)

RECIPE = (
    FieldSpec("name", "text", ("name", "headline"), ("og:title", "twitter:title")),
    _AUTHOR,
    _PUBLISHED,
    _DESCRIPTION,
    _IMAGES,
    FieldSpec("recipe_ingredient", "texts", ("recipeIngredient", "ingredients")),
    FieldSpec("recipe_instructions", "instructions", ("recipeInstructions",)),
    FieldSpec("recipe_yield", "text", ("recipeYield",)),
    FieldSpec("total_time", "text", ("totalTime",)),
    FieldSpec("prep_time", "text", ("prepTime",)),
    FieldSpec("cook_time", "text", ("cookTime",)),
    FieldSpec("recipe_category", "text", ("recipeCategory",)),
    FieldSpec("recipe_cuisine", "text", ("recipeCuisine",)),
    _RATING_VALUE,
    _REVIEWS,
    _URL,
)

EVENT = (
    FieldSpec("name", "text", ("name",), ("og:title", "twitter:title")),
    FieldSpec("start_date", "text", ("startDate",)),
    FieldSpec("end_date", "text", ("endDate",)),
    FieldSpec("event_status", "enum", ("eventStatus",)),
    FieldSpec("location", "location", ("location",)),
    FieldSpec("organizer", "name", ("organizer",)),
    _DESCRIPTION,
    _IMAGES,
    _URL,
)

PAGE = (
    FieldSpec("name", "text", ("name", "headline"), ("og:title", "twitter:title")),
    _DESCRIPTION,
    _IMAGES,
    _URL,
)

#: Standard fields per page type, in record order.
FIELDS: dict[str, tuple[FieldSpec, ...]] = {
    "product": PRODUCT,
    "article": ARTICLE,
    "thread": THREAD,
    "recipe": RECIPE,
    "event": EVENT,
    "page": PAGE,
}
PAGE_TYPES = tuple(FIELDS)

#: schema.org types that make a page of each type, in the order a page type is guessed
#: (a recipe or product page with an FAQ or comments stays a recipe or product).
MAIN_TYPES: dict[str, frozenset[str]] = {
    "product": frozenset(
        {
            "Product",
            "ProductGroup",
            "IndividualProduct",
            "ProductModel",
            "SomeProducts",
            "Vehicle",
            "Car",
        }
    ),
    "recipe": frozenset({"Recipe"}),
    "event": frozenset(
        {
            "Event",
            "BusinessEvent",
            "ChildrensEvent",
            "ComedyEvent",
            "CourseInstance",
            "DanceEvent",
            "DeliveryEvent",
            "EducationEvent",
            "ExhibitionEvent",
            "Festival",
            "FoodEvent",
            "Hackathon",
            "LiteraryEvent",
            "MusicEvent",
            "PublicationEvent",
            "SaleEvent",
            "ScreeningEvent",
            "SocialEvent",
            "SportsEvent",
            "TheaterEvent",
            "VisualArtsEvent",
        }
    ),
    "thread": frozenset({"DiscussionForumPosting", "QAPage"}),
    "article": frozenset(
        {
            "Article",
            "NewsArticle",
            "BlogPosting",
            "TechArticle",
            "ScholarlyArticle",
            "Report",
            "AnalysisNewsArticle",
            "OpinionNewsArticle",
            "ReportageNewsArticle",
            "ReviewNewsArticle",
            "BackgroundNewsArticle",
            "LiveBlogPosting",
            "SocialMediaPosting",
            "AdvertiserContentArticle",
            "SatiricalArticle",
        }
    ),
    "page": frozenset(),
}

#: ``og:type`` values that name a page type where the page has no schema.org entity.
OG_TYPES = {
    "product": "product",
    "og:product": "product",
    "product.item": "product",
    "article": "article",
    "blog": "article",
    "recipe": "recipe",
}
