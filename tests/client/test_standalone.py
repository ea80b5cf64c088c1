"""switchboard_client stands alone: it imports the standard library, httpx and itself, nothing of the service."""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import switchboard_client

ALLOWED = set(sys.stdlib_module_names) | {"httpx", "switchboard_client"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_client_package_imports_nothing_of_the_service():
    package = Path(switchboard_client.__file__).parent
    files = sorted(package.glob("*.py"))
    assert len(files) >= 4
    found = {path.name: imported_roots(path) - ALLOWED for path in files}
    assert found == {path.name: set() for path in files}


def test_the_python_blocks_of_the_client_guide_compile():
    guide = Path(__file__).resolve().parents[2] / "docs" / "client.md"
    blocks = re.findall(r"^```python\n(.*?)^```", guide.read_text(), re.S | re.M)
    assert len(blocks) >= 5
    for block in blocks:
        compile(textwrap.dedent(block), str(guide), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
