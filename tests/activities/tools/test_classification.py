"""Every class of the spec's tool-call classification, end to end against a real server."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.activities.tools import ToolActivities
from switchboard.settings import Settings
from tests.activities.tools.builders import call, declaration
from tests.activities.tools.fake_api import FakeApi, json_reply

ERRORS = {
    "negocio": {"409": "That slot was just taken; offer another one."},
    "infra": [410],
    "semantic": {"PATIENT_BLOCKED": "The patient must call the front desk."},
}
ITEMS = {
    "data": {
        "total": 3,
        "items": [
            {"id": 1, "start": "09:00", "internal_note": "vip"},
            {"id": 2, "start": "10:00", "internal_note": ""},
            {"id": 3, "internal_note": "late"},
        ],
    }
}


async def test_ok_returns_only_the_picked_data_cut_to_max_items(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(200, ITEMS)
    decl = declaration(pick="data.items[].{id, start}", max_items=2, errors=ERRORS)
    result = await executor.execute_tool_call(call(settings, url, decl))
    assert result.call_class == "ok"
    assert result.data == [{"id": 1, "start": "09:00"}, {"id": 2, "start": "10:00"}]
    assert (result.hint, result.error, result.escalates, result.status_code) == (None, None, False, 200)
    assert result.for_model() == {"ok": True, "data": result.data}


@pytest.mark.parametrize(
    ("status", "body", "expected_class", "hint_part", "error_part"),
    [
        (409, {"error": "taken"}, "negocio", "slot was just taken", "declared negocio"),
        (404, {"error": "nope"}, "negocio", "HTTP 404", "undeclared 4xx"),
        (200, {"status_code": "PATIENT_BLOCKED"}, "semantic", "front desk", "semantic status_code"),
        (401, None, "infra", "unavailable", "always infra"),
        (403, None, "infra", "unavailable", "always infra"),
        (429, None, "infra", "unavailable", "always infra"),
        (500, None, "infra", "unavailable", "always infra"),
        (503, None, "infra", "unavailable", "always infra"),
        (410, None, "infra", "unavailable", "declared infra"),
    ],
)
async def test_failures_are_classified(
    executor: ToolActivities,
    settings: Settings,
    api: tuple[FakeApi, str],
    status: int,
    body: Any,
    expected_class: str,
    hint_part: str,
    error_part: str,
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(status, body if body is not None else {"error": "x"})
    result = await executor.execute_tool_call(call(settings, url, declaration(errors=ERRORS)))
    assert result.call_class == expected_class
    assert result.status_code == status
    assert result.hint is not None and hint_part in result.hint
    assert result.error is not None and error_part in result.error
    assert result.escalates is (expected_class == "infra")
    assert result.data is None
    assert result.for_model() == {"ok": False, "class": expected_class, "message": result.hint}


async def test_pick_type_mismatch_is_an_infra_configuration_problem(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(200, {"data": {"items": {"id": 1}}})
    result = await executor.execute_tool_call(call(settings, url, declaration(pick="data.items[].id")))
    assert (result.call_class, result.error_code, result.status_code) == (
        "infra",
        "ToolResponseExtractError",
        200,
    )
    assert result.hint is not None and "configuration problem" in result.hint
    assert result.error is not None and "expected an array at data.items" in result.error


async def test_picked_data_over_the_model_cap_is_refused(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(200, {"blob": "y" * 100_000})
    result = await executor.execute_tool_call(call(settings, url, declaration(pick="blob")))
    assert (result.call_class, result.error_code) == ("infra", "ToolResponseExtractError")
    assert result.error is not None and "narrow response.pick" in result.error


async def test_secrets_are_redacted_from_error_text(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(500, {"echo": rec.headers.get("authorization")})
    decl = declaration(auth={"type": "bearer", "token": "{{binding.secret.api_token}}"})
    result = await executor.execute_tool_call(call(settings, url, decl))
    assert result.call_class == "infra"
    assert result.error is not None and "s3cr3t-token" not in result.error and "[redacted]" in result.error


@pytest.mark.parametrize(("status", "terminates"), [(200, True), (409, False)])
async def test_terminates_thread_only_after_a_successful_milestone_call(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], status: int, terminates: bool
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(status, {"booked": True})
    decl = {**declaration(errors=ERRORS), "terminates_thread": True}
    result = await executor.execute_tool_call(call(settings, url, decl))
    assert result.terminates_thread is terminates
