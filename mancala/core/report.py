"""Tables that commands print: Markdown for people, or JSON (`--json`) for programs.

>>> table = Table(["player", "win %"], title="against greedy")
>>> table.add("minimax:6", 91.5)
>>> print(table.markdown())
against greedy
<BLANKLINE>
| player | win % |
|---|---|
| minimax:6 | 91.5 |
>>> table.records()
[{'player': 'minimax:6', 'win %': 91.5}]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    """A header and rows of cells (numbers or text), with an optional title line."""

    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    title: str = ""

    def add(self, *cells: Any) -> None:
        """Append one row (as many cells as headers)."""
        if len(cells) != len(self.headers):
            raise ValueError(f"a row has {len(self.headers)} cells, not {len(cells)}")
        self.rows.append(list(cells))

    def markdown(self) -> str:
        """The title (if any), a blank line, then the table in Markdown."""
        lines = [self.title, ""] if self.title else []
        lines += ["| " + " | ".join(self.headers) + " |", "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in self.rows]
        return "\n".join(lines)

    def records(self) -> list[dict[str, Any]]:
        """One dict a row, keyed by the headers."""
        return [dict(zip(self.headers, row, strict=True)) for row in self.rows]


def show(tables: Sequence[Table], as_json: bool = False) -> None:
    """Print `tables`: Markdown separated by blank lines, or one JSON list of
    {"title", "rows"} objects."""
    if as_json:
        print(json.dumps([{"title": t.title, "rows": t.records()} for t in tables], indent=1))
    else:
        print("\n\n".join(table.markdown() for table in tables))
