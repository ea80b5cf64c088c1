"""``jwt_from_token_endpoint``: fetch, shared cache, expiry, 401 invalidation, single flight."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.activities.tools import ToolActivities
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory
from tests.activities.tools.builders import JWT_AUTH, TOKEN_TTL, FakeClock, call, declaration
from tests.activities.tools.fake_api import FakeApi, json_reply


def _echo_authorization(fake: FakeApi) -> None:
    fake.respond = lambda rec: json_reply(200, {"auth": rec.headers.get("authorization")})


async def test_token_is_fetched_once_then_reused(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    _echo_authorization(fake)
    decl = declaration(auth=JWT_AUTH, pick="auth")
    first = await executor.execute_tool_call(call(settings, url, decl))
    second = await executor.execute_tool_call(call(settings, url, decl))
    assert (first.call_class, first.data, first.token) == ("ok", "Bearer tok-1", "fetched")
    assert (second.call_class, second.data, second.token) == ("ok", "Bearer tok-1", "reused")
    assert len(fake.token_requests) == 1
    token_call = fake.token_requests[0]
    assert token_call.method == "POST"
    assert token_call.body == {
        "grant_type": "client_credentials",
        "client_id": "switchboard",
        "client_secret": "cl13nt",
    }


async def test_token_is_stored_sealed(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], engine: AsyncEngine
) -> None:
    fake, url = api
    await executor.execute_tool_call(call(settings, url, declaration(auth=JWT_AUTH)))
    async with engine.connect() as conn:
        rows = (await conn.execute(text("SELECT tenant_id, tool_slug, token_sealed FROM tool_tokens"))).all()
    assert [(r.tenant_id, r.tool_slug) for r in rows] == [("ten_test", "find_patient")]
    assert rows[0].token_sealed and "tok-1" not in rows[0].token_sealed


async def test_expired_token_is_fetched_again(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], clock: FakeClock
) -> None:
    fake, url = api
    _echo_authorization(fake)
    decl = declaration(auth=JWT_AUTH, pick="auth")
    await executor.execute_tool_call(call(settings, url, decl))
    clock.advance(TOKEN_TTL - 1)
    still = await executor.execute_tool_call(call(settings, url, decl))
    clock.advance(1)
    renewed = await executor.execute_tool_call(call(settings, url, decl))
    assert (still.data, still.token) == ("Bearer tok-1", "reused")
    assert (renewed.data, renewed.token) == ("Bearer tok-2", "fetched")
    assert len(fake.token_requests) == 2


async def test_401_on_a_cached_token_invalidates_and_retries_once(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    _echo_authorization(fake)
    decl = declaration(auth=JWT_AUTH, pick="auth")
    await executor.execute_tool_call(call(settings, url, decl))
    fake.reject_next = 1
    retried = await executor.execute_tool_call(call(settings, url, decl))
    after = await executor.execute_tool_call(call(settings, url, decl))
    assert (retried.call_class, retried.data, retried.token) == ("ok", "Bearer tok-2", "refetched")
    assert [r.headers["authorization"] for r in fake.requests] == [
        "Bearer tok-1",
        "Bearer tok-1",
        "Bearer tok-2",
        "Bearer tok-2",
    ]
    assert (after.data, after.token) == ("Bearer tok-2", "reused")
    assert len(fake.token_requests) == 2


async def test_401_on_a_fresh_token_is_infra_and_drops_it(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    _echo_authorization(fake)
    decl = declaration(auth=JWT_AUTH, pick="auth")
    fake.reject_next = 1
    refused = await executor.execute_tool_call(call(settings, url, decl))
    assert (refused.call_class, refused.status_code, refused.escalates) == ("infra", 401, True)
    assert refused.token == "fetched"
    assert len(fake.requests) == 1
    assert refused.error is not None and "tok-1" not in refused.error
    next_call = await executor.execute_tool_call(call(settings, url, decl))
    assert (next_call.data, next_call.token) == ("Bearer tok-2", "fetched")


async def test_twenty_concurrent_calls_on_four_workers_fetch_one_token(
    settings: Settings, api: tuple[FakeApi, str], clock: FakeClock
) -> None:
    fake, url = api
    _echo_authorization(fake)
    fake.token_delay = 0.3
    engines = [create_engine(settings.database_url) for _ in range(4)]
    workers = [
        ToolActivities(settings, session_factory(engine), clock=clock, token_poll_seconds=0.02)
        for engine in engines
    ]
    try:
        decl = declaration(auth=JWT_AUTH, pick="auth")
        results = await asyncio.gather(
            *(workers[i % 4].execute_tool_call(call(settings, url, decl)) for i in range(20))
        )
    finally:
        for worker, engine in zip(workers, engines, strict=True):
            await worker.aclose()
            await engine.dispose()
    assert len(fake.token_requests) == 1
    assert {r.call_class for r in results} == {"ok"}
    assert {r.data for r in results} == {"Bearer tok-1"}
    assert sorted(r.token for r in results).count("fetched") == 1


async def test_token_endpoint_failure_is_infra_and_frees_the_lease(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.token_status = 500
    failed = await executor.execute_tool_call(call(settings, url, declaration(auth=JWT_AUTH)))
    assert (failed.call_class, failed.escalates) == ("infra", True)
    assert failed.error is not None and "token endpoint answered HTTP 500" in failed.error
    assert fake.requests == []
    fake.token_status = 200
    recovered = await executor.execute_tool_call(call(settings, url, declaration(auth=JWT_AUTH)))
    assert (recovered.call_class, recovered.token) == ("ok", "fetched")


async def test_token_missing_at_response_path_is_an_extract_error(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.token_field = "token"
    result = await executor.execute_tool_call(call(settings, url, declaration(auth=JWT_AUTH)))
    assert (result.call_class, result.error_code) == ("infra", "ToolResponseExtractError")
    assert result.hint is not None and "configuration problem" in result.hint
    assert fake.requests == []


async def test_bindings_with_different_hosts_never_share_a_token(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    _echo_authorization(fake)
    decl = declaration(auth=JWT_AUTH, pick="auth")
    await executor.execute_tool_call(call(settings, url, decl))
    other = await executor.execute_tool_call(call(settings, url.replace("127.0.0.1", "localhost"), decl))
    assert (other.data, other.token) == ("Bearer tok-2", "fetched")


async def test_token_request_carries_its_own_auth(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    auth = {
        **JWT_AUTH,
        "token_auth": {
            "type": "api_key_header",
            "header": "X-Client-Key",
            "key": "{{binding.secret.api_key}}",
        },
    }
    result = await executor.execute_tool_call(call(settings, url, declaration(auth=auth)))
    assert result.call_class == "ok"
    assert fake.token_requests[0].headers["x-client-key"] == "k3y-value"
    assert "x-client-key" not in fake.requests[0].headers
    assert fake.requests[0].headers["authorization"] == "Bearer tok-1"
