"""Limits of the structured-data reader, declared once and passed in."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["BodyProductOptions", "BodyRecipeOptions", "RecordOptions"]


@dataclass(frozen=True)
class BodyProductOptions:
    """Which markup words name a price or a buy control, and which label words name an
    identifier or the brand (chosen on half of the product benchmark's pages, checked on
    the other half: ``eval_records.py --half``)."""

    #: a markup word holding one of these names a price element
    price_parts: tuple[str, ...] = ("price",)
    #: a markup word holding one of these names a price that is not the one to pay
    other_parts: tuple[str, ...] = (
        "old",
        "was",
        "regular",
        "compare",
        "strike",
        "before",
        "rrp",
        "msrp",
        "unit",
        "save",
        "saving",
        "shipping",
        "total",
        "cart",
        "range",
        "filter",
    )
    #: markup words of a block that lists other products: a price inside it is theirs
    others_parts: tuple[str, ...] = (
        "recommend",
        "reco",
        "related",
        "similar",
        "upsell",
        "crosssell",
    )
    #: markup words of an add-to-cart control
    buy_parts: tuple[str, ...] = (
        "addtocart",
        "addtobasket",
        "addtobag",
        "buynow",
        "buybutton",
        "buybtn",
        "buttoncart",
    )
    #: what a buy control's own text says, in several languages ("Aggiungi al carrello", "Do
    #: košíka"): the control's whole text, or its first words
    buy_texts: tuple[str, ...] = (
        "add to cart",
        "add to basket",
        "add to bag",
        "buy now",
        "buy",
        "in den warenkorb",
        "jetzt kaufen",
        "ajouter au panier",
        "aggiungi al carrello",
        "acquista",
        "añadir al carrito",
        "comprar",
        "adicionar ao carrinho",
        "in winkelwagen",
        "do košíka",
        "do koszyka",
        "dodaj do koszyka",
        "do košíku",
        "kosárba",
        "naroči",
        "v košarico",
        "dodaj u košaricu",
        "lägg i varukorgen",
        "köp",
        "læg i kurv",
        "legg i handlekurv",
        "lisää ostoskoriin",
        "sepete ekle",
        "в корзину",
        "купить",
        "加入購物車",
        "加入购物车",
        "立即購買",
        "立即购买",
        "カートに入れる",
        "바로구매",
        "장바구니 담기",
    )
    #: the longest text read as a buy control's words
    max_buy_chars: int = 40
    #: the longest text read as one price
    max_price_chars: int = 40
    #: the longest sign or code beside a price's number (``zł``, ``EUR``, ``Rs.``)
    max_sign_chars: int = 5
    #: label words that name a GTIN, tried first ("EAN: 190198419941")
    gtin_labels: tuple[str, ...] = (
        "ean",
        "upc",
        "gtin",
        "isbn",
        "ean13",
        "gtin13",
        "barcode",
        "jan",
        "janコード",
        "código de barras",
        "streckkod",
        "viivakoodi",
        "vonalkód",
        "čárový kód",
        "штрихкод",
        "штрих код",
    )
    #: label words that name a manufacturer's part number ("Item model number", "Modellnummer")
    mpn_labels: tuple[str, ...] = (
        "mpn",
        "part number",
        "model",
        "model number",
        "modellnummer",
        "modello",
        "modelo",
        "modèle",
        "model no",
        "modelnummer",
        "modelu",
        "malli",
        "mudel",
        "modelis",
        "модель",
        "μοντέλο",
        "herstellernummer",
        "hersteller artikelnummer",
        "型番",
        "型號",
        "型号",
        "모델명",
        "رقم الموديل",
    )
    #: label words that name the shop's own identifier ("ASIN", "Product code", "Item #")
    sku_labels: tuple[str, ...] = (
        "sku",
        "asin",
        "item number",
        "item no",
        "product code",
        "product number",
        "product no",
        "article number",
        "artikelnummer",
        "bestellnummer",
        "référence",
        "reference",
        "ref",
        "šifra",
        "código",
        "codice",
        "code article",
        "商品編號",
        "商品编号",
        "상품번호",
        "קוד מוצר",
        "id",
        "id produto",
        "art nr",
        "artikel nr",
        "artikelnr",
        "productcode",
        "item code",
        "réf",
        "referência",
        "varenummer",
        "varenr",
        "tuotenumero",
        "tuotekoodi",
        "tootekood",
        "preces kods",
        "prekės kodas",
        "kod produktu",
        "kód produktu",
        "katalogové číslo",
        "cikkszám",
        "termékkód",
        "cod produs",
        "κωδικός προϊόντος",
        "šifra proizvoda",
        "код товара",
        "код товару",
        "артикул",
        "ürün kodu",
        "stok kodu",
        "商品コード",
        "货号",
        "貨號",
        "상품코드",
    )
    #: markup words (class, id, itemprop, letters only) of an element holding the shop's own
    #: identifier, read where no label row names one
    sku_parts: tuple[str, ...] = ("sku", "itemnumber", "productid", "productcode", "itemno")
    #: markup words of an element holding the brand, read where no label row names one
    brand_parts: tuple[str, ...] = ("brand",)
    #: markup words beside ``brand_parts`` that name the site's own logo or a list of brands
    not_brand_parts: tuple[str, ...] = ("navbar", "logo", "brands", "header", "menu", "filter")
    #: label words that name the brand ("Brand: …", "Marke", "Manufacturer :"), tried last
    brand_labels: tuple[str, ...] = (
        "brand",
        "brand name",
        "marke",
        "marca",
        "marque",
        "merk",
        "marka",
        "make",
        "manufacturer",
        "hersteller",
        "fabricant",
        "fabricante",
        "produttore",
        "kaubamärk",
        "tootja",
        "zīmols",
        "ražotājs",
        "gamintojas",
        "merkki",
        "märke",
        "mærke",
        "merke",
        "značka",
        "márka",
        "marcă",
        "producător",
        "μάρκα",
        "proizvajalec",
        "proizvođač",
        "výrobca",
        "výrobce",
        "producent",
        "gyártó",
        "valmistaja",
        "tillverkare",
        "производитель",
        "бренд",
        "品牌",
        "ブランド",
        "メーカー",
    )
    #: how a link under the product's title says the brand ("Visit the {} Store", "by {}"):
    #: ``{}`` stands for the brand
    byline_phrases: tuple[str, ...] = (
        "visit the {} store",
        "visiter la boutique {}",
        "besuchen sie den {}-store",
        "besuchen sie den {} store",
        "visita lo store di {}",
        "visita la tienda de {}",
        "bezoek de {} store",
        "by {}",
        "von {}",
        "par {}",
    )
    #: words of an address part that lists one brand's products ("/brands/norton",
    #: "?marca=cic"); empty turns the brand link reading off
    brand_address_words: tuple[str, ...] = (
        "brand",
        "brands",
        "marca",
        "marcas",
        "marque",
        "marques",
        "marke",
        "marken",
        "merk",
        "merken",
        "marka",
        "hersteller",
        "manufacturer",
        "manufacturers",
    )
    #: how many links after a title a byline may come
    byline_reach: int = 5
    #: read the brand a shop sets just before the product's title, where the page's
    #: ``<title>`` names it too
    title_kicker: bool = True
    #: read the model number a title ends with where a label row gives the same code
    title_model: bool = True
    #: attribute names (letters only) whose value is the product's id, read as the sku where
    #: the page's address holds the same code; empty turns the address reading off
    id_attributes: tuple[str, ...] = ("dataproductid", "datapid", "dataitemid", "dataitemno")
    #: names (letters only) of inputs whose value is the product's id
    id_inputs: tuple[str, ...] = ("productid", "pid", "itemid")
    #: the most words a brand read after a label may have
    max_brand_words: int = 5
    #: the most words a brand's label may have; it ends with one of ``brand_labels``
    max_brand_label_words: int = 3
    #: the most words a label may have (a longer text is a sentence, not a label)
    max_label_words: int = 6
    #: the longest identifier read after a label
    max_id_chars: int = 40
    #: the most words an identifier read after a label may have
    max_id_words: int = 3


@dataclass(frozen=True)
class BodyRecipeOptions:
    """Which label and heading words name a recipe's parts in its body ("Prep Time",
    "Servings", "Ingredients", "Method"), in the languages of the recipe benchmark's sites
    (chosen on half of its sites, checked on the other half: ``eval_body_names.py --half``).
    A label is matched whole, case folded, a colon and a trailing ``#`` aside."""

    #: labels of the preparation time
    prep_labels: tuple[str, ...] = (
        "prep time",
        "prep",
        "preparation time",
        "preparation",
        "vorbereitungszeit",
        "vorbereitung",
        "arbeitszeit",
        "temps de préparation",
        "préparation",
        "voorbereidingstijd",
        "voorbereiding",
        "tiempo de preparación",
        "preparación",
        "tempo di preparazione",
        "forberedelse",
        "förberedelse",
        "előkészítés",
    )
    #: labels of the cooking time
    cook_labels: tuple[str, ...] = (
        "cook time",
        "cook",
        "cooking time",
        "bake time",
        "baking time",
        "kochzeit",
        "backzeit",
        "garzeit",
        "temps de cuisson",
        "cuisson",
        "kooktijd",
        "baktijd",
        "oventijd",
        "tiempo de cocción",
        "cocción",
        "tempo di cottura",
        "tilberedningstid",
        "sütési idő",
    )
    #: labels of the whole time
    total_labels: tuple[str, ...] = (
        "total time",
        "total",
        "ready in",
        "gesamtzeit",
        "temps total",
        "totale tijd",
        "tiempo total",
        "tempo totale",
        "total tid",
        "samlet tid",
        "totalt",
        "összesen",
    )
    #: labels of the yield
    yield_labels: tuple[str, ...] = (
        "servings",
        "serves",
        "yield",
        "yields",
        "makes",
        "portions",
        "portionen",
        "personen",
        "personnes",
        "porciones",
        "raciones",
        "comensales",
        "porzioni",
        "porsjoner",
        "portioner",
        "adag",
    )
    #: labels of the author
    author_labels: tuple[str, ...] = ("author", "recipe by", "by", "auteur", "autor", "autore")
    #: labels of the cuisine
    cuisine_labels: tuple[str, ...] = ("cuisine", "küche", "keuken", "cocina", "cucina", "kök")
    #: labels of the category
    category_labels: tuple[str, ...] = (
        "course",
        "category",
        "kategorie",
        "catégorie",
        "categoría",
        "categoria",
        "kategori",
        "gang",
        "gerecht",
        "plat",
    )
    #: labels of the date a recipe was published ("Published: Aug 6, 2012", "Posted on …")
    published_labels: tuple[str, ...] = (
        "published",
        "published on",
        "posted",
        "posted on",
        "veröffentlicht",
        "veröffentlicht am",
        "publié",
        "publié le",
        "publicado",
        "publicado el",
        "gepubliceerd",
        "gepubliceerd op",
        "pubblicato",
        "pubblicato il",
        "publiceret",
        "publicerad",
        "publisert",
        "közzétéve",
    )
    #: labels of the date a recipe was last changed
    modified_labels: tuple[str, ...] = (
        "updated",
        "updated on",
        "last updated",
        "last updated on",
        "aktualisiert",
        "aktualisiert am",
        "mis à jour",
        "mis à jour le",
        "actualizado",
        "actualizado el",
        "bijgewerkt",
        "bijgewerkt op",
        "aggiornato",
        "aggiornato il",
        "opdateret",
        "uppdaterad",
        "oppdatert",
        "frissítve",
    )
    #: headings of the ingredient list
    ingredient_headings: tuple[str, ...] = (
        "ingredients",
        "zutaten",
        "ingrédients",
        "ingredientes",
        "ingrediënten",
        "ingredienti",
        "ingredienser",
        "hozzávalók",
    )
    #: headings of the steps
    instruction_headings: tuple[str, ...] = (
        "instructions",
        "directions",
        "method",
        "steps",
        "zubereitung",
        "anleitung",
        "préparation",
        "preparación",
        "elaboración",
        "pasos a seguir",
        "bereiding",
        "bereidingswijze",
        "werkwijze",
        "procedimento",
        "fremgangsmåde",
        "fremgangsmåte",
        "gör så här",
        "tillagning",
        "elkészítés",
    )
    #: headings that end a list section (the notes and nutrition after a recipe's steps)
    end_headings: tuple[str, ...] = ("notes", "nutrition", "equipment", "video", "tips")
    #: the longest main heading read as the recipe's name
    max_name_chars: int = 150
    #: the longest recipe card summary read as the recipe's description
    max_description_chars: int = 2000
    #: the longest text read as a label or a heading
    max_label_chars: int = 30
    #: the longest text read as a label's value (a time, a yield, a name)
    max_value_chars: int = 60
    #: the most elements, in page order after a heading, searched for its list's items
    max_reach: int = 400
    #: an ingredient list is read only where at least this share of its lines begin with a
    #: quantity (0: any list under the heading)
    min_measured_share: float = 0.5


@dataclass(frozen=True)
class RecordOptions:
    """Bounds that keep a hostile or broken page from costing more than it is worth.

    Attributes:
        max_block_chars: a JSON-LD block longer than this is skipped (logged), not parsed.
        max_depth: a JSON-LD block nested deeper than this is skipped (logged); it is data no
            record needs, and walking it would risk the interpreter's recursion limit.
        max_items: at most this many list members are kept (images, posts, variants…).
        max_text: text values are cut to this many characters.
        rdfa: ``"auto"`` reads RDFa only where the page has RDFa markers (``vocab``/``typeof``
            attributes), because the RDFa parser costs far more than the other syntaxes;
            ``"always"`` or ``"never"`` force it.
        body_product: the markup and label words by which a product page's body names its
            price, buy control, identifiers and brand, read where the metadata gives none;
            ``None`` reads no body values.
        body_recipe: the label and heading words by which a recipe page's body names its
            times, yield, ingredients, steps, author, cuisine and category, read where the
            metadata (and a site's learned naming) gives none; ``None`` reads none.
    """

    max_block_chars: int = 2_000_000
    max_depth: int = 60
    max_items: int = 200
    max_text: int = 100_000
    rdfa: str = "auto"
    body_product: BodyProductOptions | None = field(default_factory=BodyProductOptions)
    body_recipe: BodyRecipeOptions | None = field(default_factory=BodyRecipeOptions)

    def __post_init__(self) -> None:
        if self.rdfa not in ("auto", "always", "never"):
            raise ValueError(f"rdfa must be 'auto', 'always' or 'never', not {self.rdfa!r}")
        for name in ("max_block_chars", "max_depth", "max_items", "max_text"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive")
