"""A run's scalars for TensorBoard: `runs/NAME/tensorboard/`, one events file a process,
read by `tensorboard --logdir runs` (TensorBoard itself is not a requirement of the lab:
`pip install tensorboard` to look).

The events are written with TensorFlow's own record writer and protocol buffers, the
format TensorBoard reads, so the lab needs nothing beyond TensorFlow to write them.
`flatten` names a learning-curve point's numbers as TensorBoard tags.

>>> flatten({"batch": 3, "rates": {"greedy": {"nn1h128": 81.0}}, "kept": {}, "note": "x"})
{'batch': 3.0, 'rates/greedy/nn1h128': 81.0}
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any


def flatten(point: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """The numbers of `point`, nested keys joined by '/'; text and None left out."""
    flat: dict[str, float] = {}
    for key, value in point.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat |= flatten(value, f"{name}/")
        elif isinstance(value, (int, float)):  # a bool is 0 or 1
            flat[name] = float(value)
    return flat


class Scalars:
    """The events file of this process in `folder`, opened at the first write."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._writer: Any = None

    def write(self, step: int, values: dict[str, float]) -> None:
        """Add `values` (tag -> number) at `step`, flushed to disk at once."""
        from tensorflow.core.framework.summary_pb2 import Summary
        from tensorflow.core.util.event_pb2 import Event

        if self._writer is None:
            self._open(Event)
        summary = Summary(
            value=[Summary.Value(tag=tag, simple_value=value) for tag, value in values.items()]
        )
        self._writer.write(
            Event(wall_time=time.time(), step=step, summary=summary).SerializeToString()
        )
        self._writer.flush()

    def _open(self, event: Any) -> None:
        import tensorflow as tf

        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"events.out.tfevents.{time.time():.0f}.{socket.gethostname()}.{id(self)}"
        self._writer = tf.io.TFRecordWriter(str(self.folder / name))
        self._writer.write(
            event(wall_time=time.time(), file_version="brain.Event:2").SerializeToString()
        )


def read_scalars(folder: Path) -> list[tuple[int, str, float]]:
    """Every (step, tag, value) in the events files of `folder`, in file order."""
    import tensorflow as tf
    from tensorflow.core.util.event_pb2 import Event

    found = []
    for path in sorted(Path(folder).glob("events.out.tfevents.*")):
        for raw in tf.data.TFRecordDataset(str(path)):
            event = Event.FromString(raw.numpy())
            found += [(event.step, v.tag, v.simple_value) for v in event.summary.value]
    return found
