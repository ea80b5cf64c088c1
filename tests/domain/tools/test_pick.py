"""response.pick: the grammar, every form, nested projections, max_items and type mismatches."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.tools import (
    ToolDeclarationError,
    ToolResponseExtractError,
    extract,
    extract_token,
    parse_pick,
)
from switchboard.domain.tools.pick import Each, Key, Shape

PARSED = [
    ("*", ()),
    ("data", (Key("data"),)),
    ("a.b", (Key("a"), Key("b"))),
    ("data.items[].field", (Key("data"), Key("items"), Each(), Key("field"))),
    ("data.items[].{f1, f2}", (Key("data"), Key("items"), Each(), Shape(("f1", "f2")))),
    ("data.items[].{f1,f2}", (Key("data"), Key("items"), Each(), Shape(("f1", "f2")))),
    ("groups[].items[].name", (Key("groups"), Each(), Key("items"), Each(), Key("name"))),
    ("groups[].items[].{id}", (Key("groups"), Each(), Key("items"), Each(), Shape(("id",)))),
    ("items[]", (Key("items"), Each())),
    ("[]", (Each(),)),
    ("[].{id, name}", (Each(), Shape(("id", "name")))),
    ("[].id", (Each(), Key("id"))),
    ("  data.total  ", (Key("data"), Key("total"))),
    ("$meta.@id.x-y_z.0", (Key("$meta"), Key("@id"), Key("x-y_z"), Key("0"))),
]


@pytest.mark.parametrize(("path", "steps"), PARSED, ids=[p for p, _ in PARSED])
def test_parse(path: str, steps: tuple[Any, ...]) -> None:
    pick = parse_pick(path)
    assert pick.steps == steps
    assert pick.whole is (steps == ())


@pytest.mark.parametrize(
    "path",
    [
        "",
        "   ",
        "a..b",
        ".a",
        "a.",
        "a[0]",
        "a[*]",
        "a.*",
        "data.{a, b}",
        "{a}",
        "a[].{}",
        "a[].{a,,b}",
        "a[].{a, a}",
        "a[].{a}.b",
        "a[].{a{b}}",
        "a[].{a",
        "a b",
        "a.[]",
        "a[][]",
        "$.a",
        "a||b",
        None,
        3,
    ],
)
def test_parse_rejects(path: Any) -> None:
    with pytest.raises(ToolDeclarationError) as caught:
        parse_pick(path)
    assert caught.value.details["field"] == "declaration.response.pick"


RESPONSE: dict[str, Any] = {
    "status": "ok",
    "data": {
        "total": 3,
        "empty": None,
        "items": [
            {"id": 1, "start": "09:00", "secret": "x", "tags": ["a", "b", "c"]},
            {"id": 2, "start": "10:00", "secret": "y"},
            {"id": 3, "secret": "z"},
        ],
        "groups": [
            {"name": "g1", "items": [{"name": "a", "id": 1}, {"name": "b", "id": 2}]},
            {"name": "g2", "items": []},
        ],
    },
}

EXTRACTED = [
    ("whole response", "*", 10, RESPONSE),
    ("direct", "status", 10, "ok"),
    ("dot path", "data.total", 10, 3),
    ("dot path landing on an object", "data.groups", 10, RESPONSE["data"]["groups"]),
    ("array projection", "data.items[].id", 10, [1, 2, 3]),
    ("array projection with a missing field", "data.items[].start", 10, ["09:00", "10:00", None]),
    (
        "shape projection",
        "data.items[].{id, start}",
        10,
        [{"id": 1, "start": "09:00"}, {"id": 2, "start": "10:00"}, {"id": 3, "start": None}],
    ),
    ("nested array projection", "data.groups[].items[].name", 10, [["a", "b"], []]),
    ("nested shape projection", "data.groups[].items[].{id}", 10, [[{"id": 1}, {"id": 2}], []]),
    ("array itself", "data.items[].tags", 10, [["a", "b", "c"], None, None]),
    ("missing key is null", "data.nope", 10, None),
    ("missing intermediate is null", "nope.deeper.still", 10, None),
    ("null intermediate is null", "data.empty.x", 10, None),
    ("null where an array is expected is null", "data.empty[].x", 10, None),
    ("max_items on a projection", "data.items[].id", 2, [1, 2]),
    ("max_items on a shape projection", "data.items[].{id}", 1, [{"id": 1}]),
    (
        "max_items on a direct path landing on an array",
        "data.items",
        1,
        [{"id": 1, "start": "09:00", "secret": "x", "tags": ["a"]}],
    ),
    ("max_items inside nested projections", "data.groups[].items[].name", 1, [["a"]]),
    ("max_items inside projected values", "data.items[].tags", 2, [["a", "b"], None]),
]


@pytest.mark.parametrize(
    ("path", "max_items", "expected"), [(p, m, e) for _, p, m, e in EXTRACTED], ids=[r[0] for r in EXTRACTED]
)
def test_extract(path: str, max_items: int, expected: Any) -> None:
    assert extract(parse_pick(path), RESPONSE, max_items=max_items) == expected


def test_whole_response_caps_every_array() -> None:
    body = {"a": list(range(20)), "b": {"c": [[1, 2, 3], [4], [5], [6]]}}
    assert extract(parse_pick("*"), body, max_items=2) == {"a": [0, 1], "b": {"c": [[1, 2], [4]]}}


def test_top_level_array_projection() -> None:
    body = [{"id": i, "name": f"n{i}", "x": 0} for i in range(15)]
    assert extract(parse_pick("[].{id, name}"), body, max_items=3) == [
        {"id": 0, "name": "n0"},
        {"id": 1, "name": "n1"},
        {"id": 2, "name": "n2"},
    ]
    assert extract(parse_pick("*"), body, max_items=10) == body[:10]


def test_picked_result_is_a_copy() -> None:
    body = {"data": {"items": [1, 2]}}
    result = extract(parse_pick("data"), body, max_items=10)
    result["items"].append(3)
    assert body == {"data": {"items": [1, 2]}}


MISMATCHES = [
    ("array expected, object found", "data[].id", "array", "object", "data"),
    ("array expected, string found", "status[]", "array", "string", "status"),
    ("array expected, number found", "data.total[].x", "array", "number", "data.total"),
    ("object expected, array found", "data.items.id", "object", "array", "data.items"),
    ("object expected, string found", "status.code", "object", "string", "status"),
    ("projection item not an object", "data.items[].tags[].x", "object", "string", "data.items[].tags[]"),
    ("root not an object", "a", "object", "array", "the response root"),
]


@pytest.mark.parametrize(
    ("path", "expected", "found", "at"),
    [(p, e, f, a) for _, p, e, f, a in MISMATCHES],
    ids=[r[0] for r in MISMATCHES],
)
def test_type_mismatch(path: str, expected: str, found: str, at: str) -> None:
    body = [1] if path == "a" else RESPONSE
    with pytest.raises(ToolResponseExtractError) as caught:
        extract(parse_pick(path), body, max_items=10)
    details = caught.value.details
    assert (details["field"], details["expected"], details["found"], details["at"]) == (
        "declaration.response.pick",
        expected,
        found,
        at,
    )


def test_shape_on_a_non_object_item() -> None:
    body = {"items": [{"id": 1}, "loose string"]}
    with pytest.raises(ToolResponseExtractError) as caught:
        extract(parse_pick("items[].{id}"), body, max_items=10)
    assert caught.value.details["found"] == "string"


def test_extract_requires_a_positive_max_items() -> None:
    with pytest.raises(ValueError):
        extract(parse_pick("*"), {}, max_items=0)


@pytest.mark.parametrize(
    ("body", "path", "token"),
    [({"access_token": "t1"}, ("access_token",), "t1"), ({"data": {"jwt": "t2"}}, ("data", "jwt"), "t2")],
)
def test_extract_token(body: Any, path: tuple[str, ...], token: str) -> None:
    assert extract_token(path, body, field="declaration.request.auth.token_response_path") == token


@pytest.mark.parametrize(
    "body", [{}, {"access_token": 5}, {"access_token": ""}, {"access_token": {"v": "x"}}, [], "text", None]
)
def test_extract_token_rejects(body: Any) -> None:
    field = "declaration.request.auth.token_response_path"
    with pytest.raises(ToolResponseExtractError) as caught:
        extract_token(("access_token",), body, field=field)
    assert caught.value.details["field"] == field
