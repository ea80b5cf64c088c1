"""Redirects, response size, timeouts and dead servers: all infra results, nothing follows a redirect."""

from __future__ import annotations

import asyncio

import pytest
from starlette.responses import RedirectResponse, Response
from temporalio.contrib.pydantic import pydantic_data_converter

from switchboard.activities.tools import MAX_RESPONSE_BYTES, ToolActivities, ToolCallInput, ToolCallResult
from switchboard.activities.tools.payloads import start_to_close_timeout
from switchboard.settings import Settings
from tests.activities.tools.builders import call, declaration
from tests.activities.tools.fake_api import FakeApi, slow_reply, streamed
from tests.support.http_server import free_port, serve_app


@pytest.mark.parametrize("target", ["other-host", "same-host"])
async def test_redirects_are_not_followed(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], target: str
) -> None:
    fake, url = api
    elsewhere = FakeApi()
    async with serve_app(elsewhere.app()) as other_url:
        location = f"{other_url}/steal" if target == "other-host" else f"{url}/patients/p-2"
        fake.respond = lambda rec: RedirectResponse(location, status_code=302)
        result = await executor.execute_tool_call(call(settings, url, declaration()))
    assert (result.call_class, result.status_code, result.escalates) == ("infra", 302, True)
    assert [r.path for r in fake.requests] == ["/patients/p-1"]
    assert elsewhere.requests == []


@pytest.mark.parametrize("declared_length", [True, False], ids=["content-length", "chunked"])
async def test_response_over_the_size_cap_is_infra(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], declared_length: bool
) -> None:
    fake, url = api
    size = MAX_RESPONSE_BYTES + 200_000
    fake.respond = lambda rec: (
        Response(b"x" * size, media_type="application/json") if declared_length else streamed(size)
    )
    result = await executor.execute_tool_call(call(settings, url, declaration()))
    assert (result.call_class, result.escalates) == ("infra", True)
    assert result.error is not None and f"larger than {MAX_RESPONSE_BYTES} bytes" in result.error


async def test_response_just_under_the_cap_is_read(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: streamed(MAX_RESPONSE_BYTES - 10)
    result = await executor.execute_tool_call(call(settings, url, declaration()))
    # Not JSON: the whole-response pick hands the text over, which is over the model's cap.
    assert (result.call_class, result.error_code) == ("infra", "ToolResponseExtractError")


async def test_timeout_is_infra_and_bounded_by_timeout_ms(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: slow_reply(6.0)
    # The endpoint answers after 6 s: a result with a shorter latency came from the timeout.
    result = await asyncio.wait_for(
        executor.execute_tool_call(call(settings, url, declaration(timeout_ms=300))), timeout=30
    )
    assert (result.call_class, result.escalates) == ("infra", True)
    assert result.error is not None and "within 300 ms" in result.error
    assert 250 <= result.latency_ms < 6_000


async def test_refused_connection_is_infra(executor: ToolActivities, settings: Settings) -> None:
    result = await executor.execute_tool_call(
        call(settings, f"http://127.0.0.1:{free_port()}", declaration())
    )
    assert (result.call_class, result.error_code, result.status_code) == ("infra", None, None)
    assert result.error is not None and "ConnectError" in result.error


def test_payloads_survive_the_temporal_data_converter(settings: Settings) -> None:
    converter = pydantic_data_converter.payload_converter
    tool_call = call(settings, "https://api.example.com", declaration())
    result = ToolCallResult(call_class="negocio", hint="h", error="e", status_code=409, latency_ms=12)
    for value, kind in ((tool_call, ToolCallInput), (result, ToolCallResult)):
        payload = converter.to_payloads([value])
        assert converter.from_payloads(payload, [kind]) == [value]


@pytest.mark.parametrize(("timeout_ms", "seconds"), [(100, 15.6), (30_000, 195.0)])
def test_activity_timeout_covers_the_worst_case(timeout_ms: int, seconds: float) -> None:
    assert start_to_close_timeout(timeout_ms).total_seconds() == pytest.approx(seconds)
