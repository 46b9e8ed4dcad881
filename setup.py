"""Build the optional C accelerator of the tree edit distance.

All metadata lives in pyproject.toml; this file only declares the extension module.  It is
optional: without a C compiler (or Python headers) ``pip install .`` still succeeds and
``pagesim_scrapy.core.similarity.ted`` falls back to its pure-Python implementation, which
gives the same results, only much more slowly.

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


setup(
    ext_modules=[
        Extension(
            "pagesim_scrapy.core.similarity._ted",
            sources=["pagesim_scrapy/core/similarity/_ted.c"],
            extra_compile_args=[] if sys.platform == "win32" else ["-O3"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": BuildExtScalarRetry},
)
