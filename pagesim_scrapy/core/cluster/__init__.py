"""Page-type discovery: clustering pages by structure (seeds 003 and 004) at crawl scale.

``cluster_pages(summaries, algorithm=..., method=...)`` clusters a batch of pages (any number:
candidate pairs come from MinHash LSH, not from comparing all pairs); ``OnlineDiscovery``
assigns pages one at a time during a crawl and persists what it found.
"""

from __future__ import annotations

from pagesim_scrapy.core.cluster.agglomerative import agglomerative
from pagesim_scrapy.core.cluster.closeness import merge_by_closeness
from pagesim_scrapy.core.cluster.discovery import OnlineDiscovery
from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.metrics import adjusted_rand_index, purity
from pagesim_scrapy.core.cluster.persist import (
    Representative,
    RepresentativesError,
    read_representatives,
    templates_snippet,
)
from pagesim_scrapy.core.cluster.pipeline import (
    ALGORITHMS,
    CLOSENESS,
    DEFAULT_ALGORITHM,
    DEFAULT_METHOD,
    METHOD_THRESHOLDS,
    Cluster,
    Clustering,
    ClusterOptions,
    cluster_pages,
    measure_function,
    method_thresholds,
)
from pagesim_scrapy.core.cluster.sketch import Sketcher, SketchIndex, path_shingles
from pagesim_scrapy.core.cluster.snn import shared_nearest_neighbours

__all__ = [
    "ALGORITHMS",
    "CLOSENESS",
    "DEFAULT_ALGORITHM",
    "DEFAULT_METHOD",
    "METHOD_THRESHOLDS",
    "Cluster",
    "ClusterOptions",
    "Clustering",
    "ItemGraph",
    "OnlineDiscovery",
    "Representative",
    "RepresentativesError",
    "SketchIndex",
    "Sketcher",
    "adjusted_rand_index",
    "agglomerative",
    "cluster_pages",
    "measure_function",
    "merge_by_closeness",
    "method_thresholds",
    "path_shingles",
    "purity",
    "read_representatives",
    "shared_nearest_neighbours",
    "templates_snippet",
]
