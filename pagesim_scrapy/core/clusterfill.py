"""The site's types in a batch: its pages clustered, each cluster named by the examples it holds.

The pages of a site fall into its page types whether or not anyone named them: the batch
``cluster`` procedure (method ``site``) groups the site's pages with the labels' examples, a
cluster that holds examples is a configured type, the rest are discovered types. When the
examples' clusters hold nearly all of the site (the labels describe it), a page the decision
left with "none of these" takes the label of its cluster: its examples' type, by structure,
even where the label's own cut split the type. When they do not, a cluster is as likely to
mix a configured type with one nobody configured, and the verdicts stay as they are.

Clusters are coarse where the examples cover less of the site: there, with several labels, a
page still left with none takes the label of its most similar page of the site (under the
site's weights; the examples included) when that page has one, and so on along the chain of
nearest pages (:func:`fill_from_neighbours`). A page of a type nobody configured is nearest a
page of its own type, which has no label, so it keeps none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from pagesim_scrapy.core.site import Features, SiteModel, jaccard_of_totals
from pagesim_scrapy.core.summary import PageSummary
from pagesim_scrapy.core.verdict import Verdict


@dataclass(frozen=True)
class ClusteredTypes:
    """The cluster of every page given, the labels whose examples each cluster holds, and the
    share of the site (examples included) in clusters that hold an example."""

    clusters: list[int]
    named: dict[int, frozenset[str]]
    covered: float

    def labels_of(self, page: int) -> frozenset[str]:
        """The labels whose examples share a cluster with page ``page``."""
        return self.named.get(self.clusters[page], frozenset())


def site_types(
    pages: Sequence[PageSummary], examples: Mapping[str, Sequence[PageSummary]]
) -> ClusteredTypes:
    """Cluster the examples and ``pages`` as one site (examples first) and name the clusters."""
    from pagesim_scrapy.core.cluster import cluster_pages
    from pagesim_scrapy.core.sitepolicy import SITE_METHOD

    labelled = [(label, page) for label, chosen in examples.items() for page in chosen]
    result = cluster_pages([page for _, page in labelled] + list(pages), method=SITE_METHOD)
    of_examples = result.assignments[: len(labelled)]
    named: dict[int, set[str]] = {}
    for (label, _), cluster in zip(labelled, of_examples):
        named.setdefault(cluster, set()).add(label)
    covered = sum(c in named for c in result.assignments) / len(result.assignments)
    frozen = {cluster: frozenset(labels) for cluster, labels in named.items()}
    return ClusteredTypes(result.assignments[len(labelled) :], frozen, covered)


def fill_from_types(
    verdicts: Sequence[Verdict], types: ClusteredTypes, cover: float, fixed: frozenset[str]
) -> list[Verdict]:
    """``verdicts`` with each page left with none given its cluster's label (the one of the
    cluster's labels it scores highest), when the examples' clusters hold at least ``cover``
    of the site; labels in ``fixed`` (a user's own threshold) are never given this way."""
    if types.covered < cover:
        return list(verdicts)
    out = []
    for index, verdict in enumerate(verdicts):
        labels = sorted(types.labels_of(index) - fixed)
        if verdict.label is not None or not labels:
            out.append(verdict)
            continue
        label = max(labels, key=lambda name: verdict.scores.get(name, 0.0))
        out.append(replace(verdict, label=label))
    return out


def nearest_pages(
    features: Sequence[Features], model: SiteModel, which: Sequence[int]
) -> list[int]:
    """For each page index in ``which``, the index of its most similar other page of
    ``features`` under ``model``'s weights (the first on a tie; itself with no other page).

    Each page is a sorted array of feature numbers and a comparison one intersection of two
    arrays: the weights lie on a fixed binary grid, so the sums are the ones
    :func:`~pagesim_scrapy.core.site.site_similarity` gives, in any order."""
    number: dict[str, int] = {}
    for page in features:
        for feature in page:
            number.setdefault(feature, len(number))
    weight = model.weights(number)
    weights = np.fromiter((weight[f] for f in number), dtype=np.float64, count=len(number))
    arrays = [np.sort(np.fromiter((number[f] for f in page), dtype=np.int64)) for page in features]
    totals = [float(weights[array].sum()) for array in arrays]
    out = []
    for i in which:
        best, best_score = i, -1.0
        for j, other in enumerate(arrays):
            if j == i:
                continue
            shared = weights[np.intersect1d(arrays[i], other, assume_unique=True)].sum()
            score = jaccard_of_totals(float(shared), totals[i], totals[j])
            if score > best_score:
                best, best_score = j, score
        out.append(best)
    return out


def fill_from_neighbours(
    labels: Sequence[str | None], nearest: Mapping[int, int], fixed: frozenset[str]
) -> list[str | None]:
    """``labels`` with each page left with none (a key of ``nearest``: page -> its most
    similar page) given the label its chain of nearest pages ends in: a page with a label, or
    none when the chain closes on pages without one. Labels in ``fixed`` are never given."""
    out = list(labels)
    for start in nearest:
        if out[start] is not None:
            continue
        chain, page = [start], nearest[start]
        while out[page] is None and page in nearest and page not in chain:
            chain.append(page)
            page = nearest[page]
        label = out[page]
        if label is not None and label not in fixed:
            for member in chain:
                out[member] = label
    return out
