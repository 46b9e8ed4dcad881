"""Which configured type a page is nearest, from the structure that tells the types apart.

Two configured types of one site often share one template (a blog's two post kinds, a docs
site's tutorial and reference pages): the site's weights take its chrome out, but what all of
the labels' examples share still counts into every label's score, and so does what the page
holds that no example has (its own content). Both are the same for every label and only blur
the choice between them. The nearest type is therefore chosen on the rest: the page's
features that some example holds, less those every label's examples hold, compared with each
example's under the site's weights. The labels' scores and cuts are unchanged; only which label
a page is nearest is decided here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pagesim_scrapy.core.site import Features

#: The site-weighted total of a set of features (the site model's ``total`` under one table).
Weigh = Callable[[Features], float]


class TypesApart:
    """The labels' examples with the structure every label shares taken out."""

    def __init__(self, templates: Mapping[str, Sequence[Features]]) -> None:
        unions = [frozenset().union(*pages) for pages in templates.values() if pages]
        self.vocabulary: Features = frozenset().union(*unions) if unions else frozenset()
        self.shared: Features = frozenset.intersection(*unions) if unions else frozenset()
        self.examples: dict[str, list[Features]] = {
            label: [page - self.shared for page in pages] for label, pages in templates.items()
        }

    def scores(self, features: Features, weigh: Weigh) -> dict[str, float]:
        """Per label, the weighted Jaccard of the page and its nearest example on the telling
        structure alone (0 for a label none of it reaches)."""
        page = (features & self.vocabulary) - self.shared
        page_total = weigh(page)
        out: dict[str, float] = {}
        for label, examples in self.examples.items():
            best = 0.0
            for example in examples:
                common = weigh(page & example)
                union = page_total + weigh(example) - common
                if union > 0.0:
                    best = max(best, common / union)
            out[label] = best
        return out

    def nearest(self, scores: Mapping[str, float], features: Features, weigh: Weigh) -> str:
        """The label the page is nearest: by the telling structure, ties (and a page none of
        it reaches) by the labels' own ``scores``."""
        telling = self.scores(features, weigh)
        return max(scores, key=lambda label: (telling[label], scores[label]))
