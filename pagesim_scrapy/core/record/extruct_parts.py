"""extruct's readers imported one by one, without the package's ``__init__``.

``import extruct.w3cmicrodata`` runs ``extruct/__init__.py`` first, and that imports every
syntax's reader (mf2py with bs4 and soupsieve, pyRdfa with rdflib) although most pages need
only the microdata one: the crawl's first page item paid for all of them. Here the package
is registered as a shell that holds its folder but has not run its ``__init__``, so that a
submodule loads only what it imports itself; the shell runs the real ``__init__`` the first
time anything else is asked of it (``extruct.extract``, ``from extruct import X``), so other
code sees the whole package as ever. A version of extruct whose submodules need more of the
package than its folder still works: they ask the shell, which completes itself.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["extruct_module"]

_PACKAGE = "extruct"
_LOCK = threading.RLock()


def extruct_module(name: str) -> ModuleType:
    """The submodule ``extruct.<name>`` (``w3cmicrodata``, ``uniform``, ``rdfa``…), imported
    without the readers it does not import itself."""
    full = f"{_PACKAGE}.{name}"
    module = sys.modules.get(full)
    if module is not None:
        return module
    with _LOCK:
        if _PACKAGE not in sys.modules:
            _register_shell()
        return importlib.import_module(full)


def _register_shell() -> None:
    """Register the package as a shell (see the module's docstring); nothing when it cannot
    be found as a package (a plain import then reports why)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    shell = importlib.util.module_from_spec(spec)
    completed = False

    def complete(attribute: str) -> Any:
        nonlocal completed
        with _LOCK:
            if not completed:
                completed = True
                assert spec.loader is not None
                spec.loader.exec_module(shell)
        try:
            return shell.__dict__[attribute]
        except KeyError:
            raise AttributeError(f"module {_PACKAGE!r} has no attribute {attribute!r}") from None

    # a module's __getattr__ answers only for names it does not hold (PEP 562)
    shell.__dict__["__getattr__"] = complete
    sys.modules[_PACKAGE] = shell
