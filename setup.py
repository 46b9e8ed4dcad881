"""Build the optional C accelerator of the tree edit distance.

All metadata lives in pyproject.toml; this file only declares the extension module.  It is
optional: without a C compiler (or Python headers) ``pip install .`` still succeeds and
``pagesim_scrapy.core.similarity.ted`` falls back to its pure-Python implementation, which
gives the same results, only much more slowly.
"""

import sys

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pagesim_scrapy.core.similarity._ted",
            sources=["pagesim_scrapy/core/similarity/_ted.c"],
            extra_compile_args=[] if sys.platform == "win32" else ["-O3"],
            optional=True,
        )
    ]
)
