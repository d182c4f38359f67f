"""Import TensorFlow without its start-up lines on stderr.

TensorFlow writes its oneDNN and CPU-feature notices (and absl's "All log messages
before absl::InitializeLog()" warning) straight to file descriptor 2 while it is
imported, before TF_CPP_MIN_LOG_LEVEL can apply; so that descriptor points at /dev/null
for the length of the import. A failing import still raises its Python error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def stderr_silenced() -> Iterator[None]:
    """File descriptor 2 goes to /dev/null within the block (C++ writes included)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to silence
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def import_tensorflow_quietly() -> None:
    """Import TensorFlow (when installed) with its notices silenced, and absl's logging
    set to errors only; later imports of TensorFlow or Keras are then silent."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if "tensorflow" in sys.modules or os.environ.get("KERAS_BACKEND", "tensorflow") != "tensorflow":
        return
    try:
        with stderr_silenced():
            import tensorflow  # noqa: F401
    except ImportError:  # another Keras backend: nothing to silence
        return
    from absl import logging as absl_logging

    absl_logging.set_verbosity(absl_logging.ERROR)
