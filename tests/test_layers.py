"""The layers of docs/architecture.md: every import points down, and no command imports a command.

    commands (mancala/commands/, the entry points mancala/*.py but game_state.py, webapi/)
    > learn > arena > ai > nn_lib > games (mancala/game_state.py, mancala/games/) > core

An entry point (`python -m mancala`, `python mancala/play.py`) is the command it runs.

Every import of every module is read from its source (ast), those inside functions and
under `if TYPE_CHECKING:` too, so a lazy import cannot hide a dependency.
"""

import ast
from pathlib import Path

import pytest

from mancala.core.paths import ROOT

ORDER = ["core", "games", "nn_lib", "ai", "arena", "learn", "commands"]  # bottom first
PACKAGES = {"core", "games", "nn_lib", "ai", "arena", "learn"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def layer(name: str) -> str | None:
    """The layer of the lab's module `name`; None for modules outside the lab."""
    parts = name.split(".")
    if parts[0] == "webapi":
        return "commands"
    if parts[0] != "mancala":
        return None
    if len(parts) == 1:
        return "core"  # the package itself: its docstring only
    if parts[1] in PACKAGES:
        return parts[1]
    return "games" if parts[1] == "game_state" else "commands"


ENTRY_POINTS = {  # module -> the command it runs
    "mancala.__main__": "mancala.commands",
    "mancala.play": "mancala.commands.play",
    "mancala.tournament": "mancala.commands.tournament",
    "mancala.random_train": "mancala.commands.train",
}


SHARED = {"mancala.commands.options"}  # the options several commands share: no verb


def command(name: str) -> str | None:
    """Which command `name` belongs to (a module of mancala/commands/, or the web layer);
    None for a library, or the options the commands share."""
    if layer(name) != "commands" or name in SHARED:
        return None
    return "webapi" if name.startswith("webapi") else ENTRY_POINTS.get(name, name)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in `path`; `from a import b` is `a.b` when b is a
    module of the lab."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if is_module(sub) else node.module))
    return found


def sources() -> list[Path]:
    return sorted(
        path
        for folder in ("mancala", "webapi")
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    )


def wrong_imports(path: Path) -> list[str]:
    """What is wrong with the imports of one module, in words."""
    me = module_name(path)
    mine, my_command = layer(me), command(me)
    wrong = []
    for line, target in imports(path):
        theirs = layer(target)
        if theirs is None or target == me:
            continue
        if ORDER.index(theirs) > ORDER.index(mine):
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {mine} imports {theirs} ({target})")
        elif my_command and command(target) and command(target) != my_command:
            wrong.append(f"{path.relative_to(ROOT)}:{line}: a command imports a command ({target})")
    return wrong


def test_the_walk_sees_the_lab():
    names = {module_name(path) for path in sources()}
    assert {"mancala.game_state", "mancala.commands.tournament", "webapi.api"} <= names
    assert layer("mancala.games.tak.state") == "games"
    assert layer("mancala.commands.tournament") == layer("mancala.tournament") == "commands"
    assert command("mancala.tournament") == "mancala.commands.tournament"
    assert layer("numpy") is None
    assert command("webapi.engine") == command("webapi.api") == "webapi"


def test_the_walk_finds_wrong_imports(tmp_path, monkeypatch):
    # the check itself must be able to fail: a library that imports upwards, a lazy import
    # of a command by a command, and a command that imports a library (allowed)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    for folder in ("mancala/ai", "mancala/nn_lib"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "mancala/__init__.py").write_text("")
    (tmp_path / "mancala/train.py").write_text("")
    (tmp_path / "mancala/ai/base.py").write_text("")
    low = tmp_path / "mancala/nn_lib/x.py"
    low.write_text("def f():\n    from mancala.ai import base\n")
    cmd = tmp_path / "mancala/play.py"
    cmd.write_text("import numpy\nfrom mancala.ai import base\nif 1:\n    import mancala.train\n")
    assert wrong_imports(low) == ["mancala/nn_lib/x.py:2: nn_lib imports ai (mancala.ai.base)"]
    assert wrong_imports(cmd) == ["mancala/play.py:4: a command imports a command (mancala.train)"]


@pytest.mark.parametrize("path", sources(), ids=lambda path: str(path.relative_to(ROOT)))
def test_imports_point_down(path):
    assert wrong_imports(path) == []


GAME_NAMES = {"kalah", "sungka", "tak"}


def game_name_literals(text: str) -> list[int]:
    """The lines of `text` (Python) where a game's name stands as a literal of its own:
    a comparison, a key, a default, an item of a tuple, an argument. A name inside a longer
    text (a message, a docstring, a doctest) is not one."""
    tree = ast.parse(text)
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in GAME_NAMES
    )


def test_shared_code_asks_a_game_for_traits_not_its_name():
    """Outside mancala/games/ (and the readable rules of the sowing family, whose Kalah and
    Sungka differ rule by rule) no line names a game by a literal: shared code asks the
    registry of games for a capability or a trait (docs/architecture.md, "The game
    protocol"), and code that means one game imports its name (`KALAH`, `SUNGKA`,
    `TakState.game`, `DEFAULT_GAME`)."""
    can_fail = 'if state.game != "tak":\n    x = {"kalah": 1}\ndef f(g="sungka"): ("tak",)\n'
    assert game_name_literals(can_fail) == [1, 2, 3, 3]
    assert game_name_literals('"""A doctest: new_game("kalah")."""\nx = f"{a} kalah"\n') == []
    rules = ROOT / "mancala" / "game_state.py"
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources()
        if "games" not in path.relative_to(ROOT).parts[:2] and path != rules
        for number in game_name_literals(path.read_text())
    ]
    assert found == []
