"""A provider error that echoes the request's key leaves the activity edge without it.

Each adapter runs its official SDK against its fake, which answers an error
quoting the credential headers (each SDK sends its key its own way). The
ProviderError still holds the key; the ApplicationError made at the edge and
raised ``from None`` does not, in anything Temporal serialises (message,
details, cause chain) or a traceback prints.
"""

from __future__ import annotations

import traceback

import pytest
from temporalio.api.failure.v1 import Failure
from temporalio.converter import DefaultFailureConverter, DefaultPayloadConverter
from temporalio.exceptions import ApplicationError

from switchboard.activities.llm.errors import ProviderError, as_application_error
from switchboard.models.llm import LlmRequest, UserMessage
from tests.activities.llm.harness import API_KEY, SETUPS, open_harness
from tests.fakes.scripting import EchoHeadersReply

OTHER_KEY = "sk-another-providers-key-0123"


def _request(model: str) -> LlmRequest:
    return LlmRequest(model=model, messages=[UserMessage(text="hello")], max_tokens=64)


def _at_the_edge(error: ProviderError, *, chained: bool = False) -> ApplicationError:
    """The ApplicationError as the activity raises it (or, ``chained``, raised ``from`` the original)."""
    try:
        try:
            raise error
        except ProviderError as caught:
            converted = as_application_error(caught, secrets=[API_KEY, OTHER_KEY])
            if chained:
                raise converted from caught
            raise converted from None
    except ApplicationError as raised:
        return raised


def _serialised(error: BaseException) -> str:
    failure = Failure()
    DefaultFailureConverter().to_failure(error, DefaultPayloadConverter(), failure)
    return failure.SerializeToString().decode("utf-8", errors="replace") + str(failure)


@pytest.mark.parametrize("provider", list(SETUPS))
@pytest.mark.parametrize("status", [429, 401], ids=["retryable", "permanent"])
async def test_an_echoed_key_is_blanked_at_the_activity_edge(provider: str, status: int) -> None:
    async with open_harness(provider) as harness:
        harness.fake.script(EchoHeadersReply(status))
        with pytest.raises(ProviderError) as caught:
            await harness.adapter.complete(_request(harness.model))
    assert API_KEY in caught.value.message, "the fake echoed the key the SDK sent"

    raised = _at_the_edge(caught.value)

    assert raised.non_retryable is (status == 401)
    assert "[redacted]" in raised.message
    for text in (
        raised.message,
        repr(raised.details),
        _serialised(raised),
        "".join(traceback.format_exception(raised)),
    ):
        assert API_KEY not in text
    # Raised from the original instead, the cause chain would carry the key into the failure.
    assert API_KEY in _serialised(_at_the_edge(caught.value, chained=True))


def test_every_configured_key_is_blanked_and_details_too() -> None:
    error = ProviderError(
        f"gateway: Bearer {OTHER_KEY}", provider="openai", status_code=502, provider_code=API_KEY
    )
    converted = as_application_error(error, secrets=[API_KEY, OTHER_KEY])
    assert OTHER_KEY not in converted.message
    assert converted.details[0]["provider_code"] == "[redacted]"


def test_an_error_that_is_no_provider_error_stays_retryable_and_is_blanked() -> None:
    converted = as_application_error(RuntimeError(f"sdk surprise: x-api-key={API_KEY}"), secrets=[API_KEY])
    assert converted.type == "RuntimeError"
    assert converted.non_retryable is False
    assert converted.message == "sdk surprise: x-api-key=[redacted]"
