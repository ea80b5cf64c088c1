"""The egress guard: internal addresses are refused before any connection, names are pinned."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.activities.tools import (
    EgressGuard,
    EgressRefused,
    ToolActivities,
    ToolHttpClient,
    refusal_reason,
)
from switchboard.settings import Settings
from switchboard.store.database import session_factory
from tests.activities.tools.builders import JWT_AUTH, call, declaration
from tests.activities.tools.fake_api import FakeApi, json_reply
from tests.conftest import make_settings


@pytest.mark.parametrize(
    ("address", "allow_private", "refused_as"),
    [
        ("93.184.216.34", False, None),
        ("2606:2800:220:1:248:1893:25c8:1946", False, None),
        ("127.0.0.1", False, "loopback"),
        ("127.8.9.1", False, "loopback"),
        ("::1", False, "loopback"),
        ("10.1.2.3", False, "private"),
        ("172.16.0.1", False, "private"),
        ("192.168.1.10", False, "private"),
        ("fd12:3456::1", False, "private"),
        ("169.254.10.1", False, "link-local"),
        ("fe80::1", False, "link-local"),
        ("100.64.0.1", False, "CGNAT"),
        ("224.0.0.1", False, "multicast"),
        ("ff02::1", False, "multicast"),
        ("0.0.0.0", False, "unspecified"),
        ("::", False, "unspecified"),
        ("192.0.2.1", False, "private"),
        ("::ffff:127.0.0.1", False, "loopback"),
        ("::ffff:93.184.216.34", False, None),
        ("2002:7f00:1::", False, "loopback"),
        ("64:ff9b::a00:1", False, "private"),
        ("169.254.169.254", False, "metadata"),
        ("169.254.169.254", True, "metadata"),
        ("fd00:ec2::254", True, "metadata"),
        ("127.0.0.1", True, None),
        ("10.1.2.3", True, None),
    ],
)
def test_refusal_reasons(address: str, allow_private: bool, refused_as: str | None) -> None:
    reason = refusal_reason(ipaddress.ip_address(address), allow_private=allow_private)
    if refused_as is None:
        assert reason is None
    else:
        assert reason is not None and refused_as in reason


def _resolver(table: dict[str, list[str]], seen: list[str]):  # type: ignore[no-untyped-def]
    async def resolve(host: str, port: int) -> list[str]:
        seen.append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


@pytest.mark.parametrize(
    ("host", "answers", "allow_private"),
    [
        ("mixed.test", ["93.184.216.34", "10.0.0.5"], False),
        ("rebind.test", ["127.0.0.1"], False),
        ("metadata.google.internal", ["169.254.169.254"], True),
        ("METADATA.google.internal.", ["93.184.216.34"], True),
    ],
)
async def test_guard_refuses_names_with_any_refused_address(
    host: str, answers: list[str], allow_private: bool
) -> None:
    guard = EgressGuard(
        allow_private=allow_private, resolver=_resolver({host.lower().rstrip("."): answers}, [])
    )
    with pytest.raises(EgressRefused):
        await guard.vet(host, 443)


async def test_guard_returns_every_vetted_address_in_order() -> None:
    guard = EgressGuard(
        allow_private=False, resolver=_resolver({"api.test": ["93.184.216.34", "2606::1"]}, [])
    )
    assert await guard.vet("api.test", 443) == ["93.184.216.34", "2606::1"]


@pytest.fixture
async def strict_executor(settings: Settings, engine: AsyncEngine) -> AsyncIterator[ToolActivities]:
    """An executor with TOOL_EGRESS_ALLOW_PRIVATE false."""
    strict = make_settings(settings.database_url, "127.0.0.1:7233", tool_egress_allow_private=False)
    activities = ToolActivities(strict, session_factory(engine))
    yield activities
    await activities.aclose()


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "0.0.0.0:{port}", "10.0.0.1", "169.254.169.254"],
)
async def test_internal_hosts_are_refused_without_a_request(
    strict_executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str], host: str
) -> None:
    fake, url = api
    port = url.rsplit(":", 1)[1]
    base_url = "http://" + host.format(port=port)
    result = await strict_executor.execute_tool_call(call(settings, base_url, declaration()))
    assert (result.call_class, result.error_code, result.escalates) == ("infra", "ToolSecurityError", True)
    assert result.error is not None and "egress to" in result.error
    assert result.hint is not None and "configuration problem" in result.hint
    assert fake.requests == []


async def test_token_endpoint_goes_through_the_same_guard(
    strict_executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    auth = {**JWT_AUTH, "token_url": f"{url}/oauth/token"}
    result = await strict_executor.execute_tool_call(
        call(settings, "https://api.example.com", declaration(auth=auth))
    )
    assert (result.call_class, result.error_code) == ("infra", "ToolSecurityError")
    assert result.error is not None and "token endpoint" in result.error
    assert fake.token_requests == [] and fake.requests == []


async def test_connection_goes_to_the_vetted_address_with_the_real_host_name(
    settings: Settings, engine: AsyncEngine, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(200, {"host": rec.headers["host"]})
    port = url.rsplit(":", 1)[1]
    seen: list[str] = []
    guard = EgressGuard(allow_private=True, resolver=_resolver({"clinic.test": ["127.0.0.1"]}, seen))
    executor = ToolActivities(settings, session_factory(engine), http=ToolHttpClient(guard))
    try:
        result = await executor.execute_tool_call(
            call(settings, f"http://clinic.test:{port}", declaration(pick="host"))
        )
    finally:
        await executor.aclose()
    assert (result.call_class, result.data) == ("ok", f"clinic.test:{port}")
    assert seen == ["clinic.test"]


async def test_unresolvable_host_is_a_transport_failure(settings: Settings, engine: AsyncEngine) -> None:
    guard = EgressGuard(allow_private=True, resolver=_resolver({}, []))
    executor = ToolActivities(settings, session_factory(engine), http=ToolHttpClient(guard))
    try:
        result = await executor.execute_tool_call(call(settings, "http://nowhere.test", declaration()))
    finally:
        await executor.aclose()
    assert (result.call_class, result.error_code) == ("infra", None)
    assert result.error is not None and "cannot resolve nowhere.test" in result.error
