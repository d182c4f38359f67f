"""The numba cache: an entry is valid only while every file it compiles in is unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mancala.core import jit

LAB = Path(jit.__file__).resolve().parents[1]

CALLEE = "from mancala.core.jit import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
KERNEL = (
    "from mancala.core.jit import njit\nfrom mancala.probe.callee import value\n\n\n"
    "@njit(cache=True)\ndef kernel():\n    return value() + 100\n"
)


def lab_copy(root: Path) -> Path:
    """The package's Python files in `root`, with a kernel that calls another file's
    function, both outside `mancala/games/`."""
    shutil.copytree(LAB, root / "mancala", ignore=shutil.ignore_patterns("models", "data", "*.pyc"))
    probe = root / "mancala" / "probe"
    probe.mkdir()
    (probe / "__init__.py").write_text("")
    (probe / "callee.py").write_text(CALLEE.format(1))
    (probe / "kernel.py").write_text(KERNEL)
    return probe


def run_kernel(root: Path) -> tuple[int, bool]:
    """The kernel's result in a new process, and whether it was loaded from the cache."""
    script = (
        "from mancala.probe.kernel import kernel\n"
        "print(kernel(), kernel.stats.cache_hits.get(kernel.signatures[0], 0) > 0)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root), "NUMBA_CACHE_DIR": str(root / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), out[1] == "True"


@pytest.mark.slow
def test_an_edit_of_a_called_file_recompiles_the_kernel(tmp_path):
    probe = lab_copy(tmp_path)
    assert run_kernel(tmp_path) == (101, False)  # compiled
    assert run_kernel(tmp_path) == (101, True)  # from the cache
    (probe / "callee.py").write_text(CALLEE.format(2))  # the kernel's own file is unchanged
    assert run_kernel(tmp_path) == (102, False)  # the callee's edit is seen


def test_the_stamp_covers_every_file_that_names_njit(tmp_path):
    from numba.core import caching

    from mancala.ai import puct

    (tmp_path / "ai").mkdir()
    (tmp_path / "ai" / "gumbel.py").write_text("from mancala.core.jit import njit\nx = 1\n")
    (tmp_path / "ai" / "plain.py").write_text("x = 1\n")
    before = jit.kernels_digest(tmp_path)
    (tmp_path / "ai" / "plain.py").write_text("x = 2\n")
    jit.kernels_digest.cache_clear()
    assert jit.kernels_digest(tmp_path) == before  # a file with no kernel does not matter
    (tmp_path / "ai" / "gumbel.py").write_text("from mancala.core.jit import njit\nx = 2\n")
    jit.kernels_digest.cache_clear()
    assert jit.kernels_digest(tmp_path) != before  # a file a kernel can call does
    locators = [c for c in caching.CacheImpl._locator_classes if c.__name__.startswith("Lab")]
    assert len(locators) == 2  # ahead of numba's own: the user's folder, then in-tree
    assert caching.CacheImpl._locator_classes[: len(locators)] == locators
    stamp = puct.run._cache._impl.locator.get_source_stamp()
    assert stamp[1] == jit.kernels_digest()
    import json

    assert all(c.from_function(json.dumps, json.__file__) is None for c in locators)  # not ours
