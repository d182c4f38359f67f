"""The suite's markers, read from the files (no collection): each test carries its own
(`@pytest.mark.slow`, or `pytestmark` for a whole file), each is registered, and
`./deploy/dev.sh --quick` leaves out every marker the project declares."""

import ast
import re
import tomllib

from mancala.core.paths import ROOT


def markers_used() -> dict[str, set[str]]:
    """marker name -> the test files (relative to the root) that write `pytest.mark.NAME`."""
    used: dict[str, set[str]] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "pytest"
            ):
                used.setdefault(node.attr, set()).add(str(path.relative_to(ROOT)))
    return used


def declared() -> set[str]:
    """The markers pyproject.toml declares (`markers = ["NAME: what it means", ...]`)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        lines = tomllib.load(f)["tool"]["pytest"]["ini_options"]["markers"]
    return {line.split(":")[0].strip() for line in lines}


def test_every_marker_a_test_carries_is_registered(pytestconfig):
    known = {line.split(":")[0].split("(")[0].strip() for line in pytestconfig.getini("markers")}
    used = markers_used()
    assert {"slow", "browser", "ray", "docker", "parametrize"} <= used.keys()
    unknown = {name: sorted(files) for name, files in used.items() if name not in known}
    assert not unknown, f"markers no plugin nor pyproject.toml registers: {unknown}"


def test_quick_leaves_out_every_declared_marker():
    script = (ROOT / "deploy" / "dev.sh").read_text(encoding="utf-8")
    quick = script[script.index("    --quick)") :]
    expression = re.search(r'-m "([^"]*)"', quick).group(1)
    assert set(re.findall(r"not (\w+)", expression)) == declared()
    assert declared() <= markers_used().keys(), "a declared marker no test carries"
