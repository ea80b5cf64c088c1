"""Every adapter maps HTTP failures, timeouts and unreachable hosts to the same typed errors."""

from __future__ import annotations

import pytest

from switchboard.activities.llm.errors import (
    ProviderAuthError,
    ProviderBadRequest,
    ProviderBadResponse,
    ProviderError,
    ProviderOverloaded,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from switchboard.models.llm import LlmRequest, UserMessage
from tests.activities.llm.harness import API_KEY, SETUPS, open_harness
from tests.fakes.scripting import ErrorReply, RawReply, SlowReply, TextReply
from tests.support.http_server import free_port

PROVIDERS = list(SETUPS)


def _request(model: str) -> LlmRequest:
    return LlmRequest(model=model, messages=[UserMessage(text="hello")], max_tokens=64)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("reply", "error_class", "retryable", "retry_after"),
    [
        (ErrorReply(429, "slow down", headers={"retry-after": "7"}), ProviderRateLimited, True, 7.0),
        (ErrorReply(429, "slow down", headers={"retry-after-ms": "1500"}), ProviderRateLimited, True, 1.5),
        (ErrorReply(529, "overloaded"), ProviderOverloaded, True, None),
        (ErrorReply(503, "unavailable"), ProviderOverloaded, True, None),
        (ErrorReply(500, "boom"), ProviderUnavailable, True, None),
        (ErrorReply(400, "bad schema"), ProviderBadRequest, False, None),
        (ErrorReply(404, "no such model"), ProviderBadRequest, False, None),
        (ErrorReply(401, "bad key"), ProviderAuthError, False, None),
        (ErrorReply(403, "forbidden"), ProviderAuthError, False, None),
    ],
    ids=["429", "429-ms", "529", "503", "500", "400", "404", "401", "403"],
)
async def test_http_errors_are_typed(
    provider: str,
    reply: ErrorReply,
    error_class: type[ProviderError],
    retryable: bool,
    retry_after: float | None,
) -> None:
    async with open_harness(provider) as harness:
        harness.fake.script(reply)
        with pytest.raises(error_class) as caught:
            await harness.adapter.complete(_request(harness.model))
    error = caught.value
    assert error.provider == provider
    assert error.status_code == reply.status
    assert error.retryable is retryable
    assert error.retry_after_seconds == retry_after
    assert reply.message in error.message
    # SDK retries are off: exactly one request reached the server.
    assert len(harness.fake.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_slow_provider_times_out_as_retryable(provider: str) -> None:
    async with open_harness(provider, timeout_seconds=0.3) as harness:
        harness.fake.script(SlowReply(1.0, TextReply("too late")))
        with pytest.raises(ProviderTimeout) as caught:
            await harness.adapter.complete(_request(harness.model))
    assert caught.value.retryable is True
    assert len(harness.fake.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_unreachable_provider_is_unavailable(provider: str) -> None:
    setup = SETUPS[provider]
    adapter = setup.adapter(API_KEY, setup.base_url(f"http://127.0.0.1:{free_port()}"), timeout_seconds=2.0)
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            await adapter.complete(_request(setup.model))
    finally:
        await adapter.aclose()
    assert caught.value.retryable is True
    assert caught.value.provider == provider


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_malformed_body_is_a_bad_response(provider: str) -> None:
    async with open_harness(provider) as harness:
        harness.fake.script(RawReply(200, {"unexpected": True}))
        with pytest.raises(ProviderBadResponse) as caught:
            await harness.adapter.complete(_request(harness.model))
    assert caught.value.provider == provider
