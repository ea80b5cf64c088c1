"""Security and configuration errors are results, and no request leaves when one is raised."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.activities.tools import ToolActivities
from switchboard.activities.tools.payloads import ToolBinding
from switchboard.settings import Settings
from tests.activities.tools.builders import call, declaration
from tests.activities.tools.fake_api import FakeApi


@pytest.mark.parametrize(
    "patient_id",
    ["a/b", "..", "x..y", "%2e%2e", "50%", "a?b=1", "a#frag", "c:d", "a\\b", "a\nb", "a\x00b", "."],
)
async def test_unsafe_path_segment_values_are_refused_before_sending(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], patient_id: str
) -> None:
    fake, url = api
    result = await executor.execute_tool_call(
        call(settings, url, declaration(), input={"patient_id": patient_id})
    )
    assert (result.call_class, result.error_code, result.escalates) == ("infra", "ToolSecurityError", True)
    assert result.hint is not None and "configuration problem" in result.hint
    assert result.error is not None and "input.patient_id" in result.error
    assert fake.requests == []


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"url": "http://{{input.patient_id}}/x"}, "ToolSecurityError"),
        ({"url": "{{binding.base_url}}/x?id={{input.patient_id}}"}, "ToolSecurityError"),
        ({"auth": {"type": "bearer", "token": "{{input.patient_id}}"}}, "ToolSecurityError"),
        ({"timeout_ms": 50}, "ToolDeclarationError"),
        ({"url": "{{binding.base_url}}/x/{{binding.secret.api_token}}"}, "ToolSecurityError"),
        ({"url": "{{binding.base_url}}/{{binding.params.missing}}"}, "ToolDeclarationError"),
    ],
)
async def test_bad_declarations_are_infra_results_and_send_nothing(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], changes: dict[str, Any], code: str
) -> None:
    fake, url = api
    decl = declaration(**changes)
    result = await executor.execute_tool_call(call(settings, url, decl))
    assert (result.call_class, result.error_code) == ("infra", code)
    assert fake.requests == [] and fake.token_requests == []


async def test_input_that_breaks_the_schema_goes_back_to_the_model(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    result = await executor.execute_tool_call(call(settings, url, declaration(), input={"patient_id": 7}))
    assert (result.call_class, result.error_code, result.escalates) == ("negocio", "ToolInputError", False)
    assert result.hint is not None and "Correct them" in result.hint
    assert fake.requests == []


async def test_secrets_sealed_for_another_binding_do_not_open(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    tool_call = call(
        settings, url, declaration(auth={"type": "bearer", "token": "{{binding.secret.api_token}}"})
    )
    moved = tool_call.model_copy(
        update={"binding": ToolBinding(**{**tool_call.binding.model_dump(), "binding_id": "agb_other"})}
    )
    result = await executor.execute_tool_call(moved)
    assert (result.call_class, result.error_code) == ("infra", "SecretDecryptionError")
    assert fake.requests == []


async def test_cleartext_secrets_never_appear_in_the_activity_payloads(
    settings: Settings, api: tuple[FakeApi, str], executor: ToolActivities
) -> None:
    fake, url = api
    tool_call = call(
        settings, url, declaration(auth={"type": "bearer", "token": "{{binding.secret.api_token}}"})
    )
    result = await executor.execute_tool_call(tool_call)
    assert result.call_class == "ok"
    assert fake.requests[0].headers["authorization"] == "Bearer s3cr3t-token"
    assert "s3cr3t-token" not in tool_call.model_dump_json()
    assert "s3cr3t-token" not in result.model_dump_json()
