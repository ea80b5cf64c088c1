"""The examples in docs/tools.md are valid and produce what the guide says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from switchboard.domain.tools import classify, extract, parse_pick, validate_declaration
from tests.domain.tools.builders import patched

GUIDE = (Path(__file__).parents[3] / "docs" / "tools.md").read_text()
BLOCKS = re.findall(r"```json\n(.*?)```", GUIDE, flags=re.S)


def test_the_full_example_is_valid() -> None:
    declaration = json.loads(BLOCKS[0])
    normalized = validate_declaration(declaration)
    assert normalized["terminates_thread"] is True
    assert (
        classify(409, None, normalized["errors"]).hint
        == "That slot was just taken; offer the user another one."
    )


AUTH_BLOCKS = [block for block in BLOCKS if block.lstrip().startswith('"auth"')]


@pytest.mark.parametrize(
    "block", AUTH_BLOCKS, ids=[json.loads("{" + b + "}")["auth"]["type"] for b in AUTH_BLOCKS]
)
def test_auth_examples_are_valid(block: str) -> None:
    auth = json.loads("{" + block + "}")["auth"]
    assert validate_declaration(patched({"request.auth": auth}))["request"]["auth"]["type"] == auth["type"]


def test_every_auth_type_has_an_example() -> None:
    types = {json.loads("{" + b + "}")["auth"]["type"] for b in AUTH_BLOCKS}
    assert types == {"none", "bearer", "api_key_header", "basic", "jwt_from_token_endpoint"}


def _pick_rows() -> list[tuple[str, Any]]:
    rows = []
    for line in GUIDE.splitlines():
        match = re.match(r"^\| [^|]+ \| `([^`]+)` \| `(.+)`(?: \(.*\))? \|$", line)
        if match:
            rows.append((match.group(1), json.loads(match.group(2))))
    return rows


@pytest.mark.parametrize(("pick", "expected"), _pick_rows())
def test_pick_table_matches_the_example_response(pick: str, expected: Any) -> None:
    response = json.loads(next(b for b in BLOCKS if b.lstrip().startswith('{\n  "status"')))
    assert extract(parse_pick(pick), response, max_items=10) == expected


def test_pick_table_was_found() -> None:
    assert len(_pick_rows()) == 5


def test_errors_example_is_valid() -> None:
    block = next(b for b in BLOCKS if b.lstrip().startswith('"errors"'))
    errors = json.loads("{" + block + "}")["errors"]
    assert validate_declaration(patched({"errors": errors}))["errors"] == errors
