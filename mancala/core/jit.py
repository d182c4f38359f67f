"""numba's `njit`, with an on-disk cache that knows the lab's kernels call each other.

numba keeps a compiled function under a digest of its own source file. A kernel of the
lab compiles in functions of other files (the drivers in `mancala/ai/` the games'
adapters and engines and `ai/gumbel.py`'s root choice, a search the engine's moves), so an
edit there alone, or a pull that changes only them, would leave the old code running from
the cache. A jitted function can only call jitted functions, so every file a kernel
compiles in names `njit`: here a lab function's cache entry is valid while every file of
the package that names `njit` is unchanged. An edit of any kernel's code recompiles the
kernels once.

Every module of the lab takes `njit` from here, so the rule holds before any kernel is
compiled. numba's internal "pedantic" IR warnings, which its inlining of the adapters'
functions into the drivers raises while compiling, are kept from the user.
"""

from __future__ import annotations

import hashlib
import warnings
from functools import cache
from pathlib import Path

from numba import njit
from numba.core import caching
from numba.core.errors import NumbaIRAssumptionWarning

LAB = Path(__file__).resolve().parents[1]  # the mancala package


@cache
def kernels_digest(folder: Path = LAB) -> bytes:
    """A digest of every Python file under `folder` that names `njit` (the files whose
    functions a kernel can compile in), read once a process."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        source = path.read_bytes()
        if b"njit" in source:
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + source)
    return digest.digest()


def _lab_locator(base: type) -> type:
    """`base` (a numba cache locator) for the lab's files, stamped with the kernels' digest."""

    class LabLocator(base):
        def get_source_stamp(self):
            return super().get_source_stamp(), kernels_digest()

        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(py_file).resolve().is_relative_to(LAB):
                return None
            return super().from_function(py_func, py_file)

    LabLocator.__name__ = LabLocator.__qualname__ = f"Lab{base.__name__}"
    return LabLocator


def _install() -> None:
    classes = caching.CacheImpl._locator_classes
    if any(c.__name__.startswith("Lab") for c in classes):
        return
    wrapped = [
        _lab_locator(c) for c in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator)
    ]
    classes[:0] = wrapped


_install()
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

__all__ = ["njit", "kernels_digest"]
