"""Build the optional C accelerators: the tree edit distance and the summary walk.

All metadata lives in pyproject.toml; this file only declares the extension module.  It is
optional: without a C compiler (or Python headers) ``pip install .`` still succeeds and
``pagesim_scrapy.core.similarity.ted`` and ``pagesim_scrapy.core.summary`` fall back to their
pure-Python implementations, which give the same results, only more slowly. The summary walk
reads lxml's libxml2 tree, so it is compiled against the libxml2 headers lxml ships (lxml is
a build requirement in pyproject.toml).

The C file holds an AVX2 kernel selected at run time (a function target attribute, no -march
flag, so the built module also runs on CPUs without AVX2).  A compiler that cannot build that
kernel gets a second try with ``TED_NO_SIMD`` defined (scalar code only) before the extension
is given up.
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, CompileError, ExecError, LinkError, PlatformError

NO_SIMD = ("TED_NO_SIMD", "1")


class BuildExtScalarRetry(build_ext):
    """build_ext that retries an extension without its vector code if the first build fails."""

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except (CCompilerError, CompileError, ExecError, LinkError, PlatformError) as exc:
            if NO_SIMD in ext.define_macros:
                raise
            print(
                f"building {ext.name} with its AVX2 kernel failed ({exc}); "
                "retrying with the scalar code only",
                file=sys.stderr,
            )
            ext.define_macros.append(NO_SIMD)
            super().build_extension(ext)


def built_against() -> list[tuple[str, str | None]]:
    """The lxml and libxml2 versions the walk is compiled against, recorded in the module.

    The walk reads lxml's and libxml2's structs; summary.py compares these with the running
    versions at import and falls back to the Python walk when they differ.
    """
    try:
        from lxml import etree
    except ImportError:
        return []
    lxml_version = ".".join(map(str, etree.LXML_VERSION))
    libxml_version = ".".join(map(str, etree.LIBXML_COMPILED_VERSION))
    return [
        ("PAGESIM_BUILT_LXML", f'"{lxml_version}"'),
        ("PAGESIM_BUILT_LIBXML", f'"{libxml_version}"'),
    ]


def libxml2_include_dirs() -> list[str]:
    """libxml2's headers: the copies lxml ships (the walker reads lxml's own tree structs)."""
    try:
        import lxml
    except ImportError:
        return ["/usr/include/libxml2"]
    return list(lxml.get_include())


setup(
    ext_modules=[
        Extension(
            "pagesim_scrapy.core._walk",
            sources=["pagesim_scrapy/core/_walk.c"],
            include_dirs=libxml2_include_dirs(),
            define_macros=built_against(),
            extra_compile_args=[] if sys.platform == "win32" else ["-O2"],
            optional=True,
        ),
        Extension(
            "pagesim_scrapy.core.similarity._ted",
            sources=["pagesim_scrapy/core/similarity/_ted.c"],
            extra_compile_args=[] if sys.platform == "win32" else ["-O3"],
            optional=True,
        ),
    ],
    cmdclass={"build_ext": BuildExtScalarRetry},
)
