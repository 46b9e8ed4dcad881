"""Page-type discovery: clustering pages by structure (seeds 003 and 004) at crawl scale.

``cluster_pages(summaries, algorithm=..., method=...)`` clusters a batch of pages (any number:
candidate pairs come from MinHash LSH, not from comparing all pairs); ``OnlineDiscovery``
assigns pages one at a time during a crawl and persists what it found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# eager: the function has its module's name, which the first import of the module would
# otherwise bind on the package (it imports heapq only: light)
from pagesim_scrapy.core.cluster.agglomerative import agglomerative
from pagesim_scrapy.core.lazy import lazy_exports

#: public name -> module that defines it (imported on first use, so that importing one
#: submodule does not load the heavy dependencies of the others)
_EXPORTS: dict[str, str] = {
    "ALGORITHMS": "pagesim_scrapy.core.cluster.pipeline",
    "CLOSENESS": "pagesim_scrapy.core.cluster.pipeline",
    "Cluster": "pagesim_scrapy.core.cluster.pipeline",
    "ClusterOptions": "pagesim_scrapy.core.cluster.pipeline",
    "Clustering": "pagesim_scrapy.core.cluster.pipeline",
    "DEFAULT_ALGORITHM": "pagesim_scrapy.core.cluster.pipeline",
    "DEFAULT_METHOD": "pagesim_scrapy.core.cluster.pipeline",
    "ItemGraph": "pagesim_scrapy.core.cluster.graph",
    "METHOD_THRESHOLDS": "pagesim_scrapy.core.cluster.pipeline",
    "OnlineDiscovery": "pagesim_scrapy.core.cluster.discovery",
    "Representative": "pagesim_scrapy.core.cluster.persist",
    "RepresentativesError": "pagesim_scrapy.core.cluster.persist",
    "SketchIndex": "pagesim_scrapy.core.cluster.sketch",
    "Sketcher": "pagesim_scrapy.core.cluster.sketch",
    "adjusted_rand_index": "pagesim_scrapy.core.cluster.metrics",
    "cluster_pages": "pagesim_scrapy.core.cluster.pipeline",
    "measure_function": "pagesim_scrapy.core.cluster.pipeline",
    "merge_by_closeness": "pagesim_scrapy.core.cluster.closeness",
    "method_thresholds": "pagesim_scrapy.core.cluster.pipeline",
    "path_shingles": "pagesim_scrapy.core.cluster.sketch",
    "purity": "pagesim_scrapy.core.cluster.metrics",
    "read_representatives": "pagesim_scrapy.core.cluster.persist",
    "shared_nearest_neighbours": "pagesim_scrapy.core.cluster.snn",
    "templates_snippet": "pagesim_scrapy.core.cluster.persist",
}

if TYPE_CHECKING:
    from pagesim_scrapy.core.cluster.closeness import merge_by_closeness as merge_by_closeness
    from pagesim_scrapy.core.cluster.discovery import OnlineDiscovery as OnlineDiscovery
    from pagesim_scrapy.core.cluster.graph import ItemGraph as ItemGraph
    from pagesim_scrapy.core.cluster.metrics import adjusted_rand_index as adjusted_rand_index
    from pagesim_scrapy.core.cluster.metrics import purity as purity
    from pagesim_scrapy.core.cluster.persist import Representative as Representative
    from pagesim_scrapy.core.cluster.persist import RepresentativesError as RepresentativesError
    from pagesim_scrapy.core.cluster.persist import read_representatives as read_representatives
    from pagesim_scrapy.core.cluster.persist import templates_snippet as templates_snippet
    from pagesim_scrapy.core.cluster.pipeline import ALGORITHMS as ALGORITHMS
    from pagesim_scrapy.core.cluster.pipeline import CLOSENESS as CLOSENESS
    from pagesim_scrapy.core.cluster.pipeline import DEFAULT_ALGORITHM as DEFAULT_ALGORITHM
    from pagesim_scrapy.core.cluster.pipeline import DEFAULT_METHOD as DEFAULT_METHOD
    from pagesim_scrapy.core.cluster.pipeline import METHOD_THRESHOLDS as METHOD_THRESHOLDS
    from pagesim_scrapy.core.cluster.pipeline import Cluster as Cluster
    from pagesim_scrapy.core.cluster.pipeline import Clustering as Clustering
    from pagesim_scrapy.core.cluster.pipeline import ClusterOptions as ClusterOptions
    from pagesim_scrapy.core.cluster.pipeline import cluster_pages as cluster_pages
    from pagesim_scrapy.core.cluster.pipeline import measure_function as measure_function
    from pagesim_scrapy.core.cluster.pipeline import method_thresholds as method_thresholds
    from pagesim_scrapy.core.cluster.sketch import Sketcher as Sketcher
    from pagesim_scrapy.core.cluster.sketch import SketchIndex as SketchIndex
    from pagesim_scrapy.core.cluster.sketch import path_shingles as path_shingles
    from pagesim_scrapy.core.cluster.snn import (
        shared_nearest_neighbours as shared_nearest_neighbours,
    )


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


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
