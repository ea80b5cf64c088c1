"""One error hierarchy for every model provider.

Adapters translate their SDK's exceptions into these, so the rest of the
runtime decides retries from ``retryable`` and ``retry_after_seconds`` alone.
Temporal owns retries (the SDKs' own are off); ``as_application_error`` is the
one place that turns a provider failure into a Temporal ``ApplicationError``,
and the one place the providers' keys are blanked out of its text.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import UTC, datetime, timedelta

from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from switchboard.domain.redaction import Redactor
from switchboard.domain.retry_after import retry_after_from_headers

_MAX_MESSAGE_CHARS = 500


class ProviderError(Exception):
    """A model call failed; ``retryable`` says whether trying again can help."""

    default_retryable: bool = True

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status_code: int | None = None,
        retry_after_seconds: float | None = None,
        retryable: bool | None = None,
        provider_code: str | None = None,
    ) -> None:
        message = message[:_MAX_MESSAGE_CHARS]
        super().__init__(f"{provider}: {message}")
        self.message = message
        self.provider = provider
        self.status_code = status_code
        self.retry_after_seconds = retry_after_seconds
        self.retryable = self.default_retryable if retryable is None else retryable
        self.provider_code = provider_code


class ProviderRateLimited(ProviderError):
    """429: the account's rate or token limit was hit; retry after ``retry_after_seconds``."""


class ProviderOverloaded(ProviderError):
    """503/529: the provider is overloaded; retry later."""


class ProviderUnavailable(ProviderError):
    """Other 5xx, 408/409, or the provider could not be reached."""


class ProviderTimeout(ProviderUnavailable):
    """No answer within our explicit timeout."""


class ProviderBadResponse(ProviderError):
    """The provider answered 2xx with a body we cannot read (a transient proxy fault, usually)."""


class ProviderBadRequest(ProviderError):
    """4xx other than auth and rate limits: the request itself is wrong (model, size, schema)."""

    default_retryable = False


class ProviderAuthError(ProviderError):
    """401/403: the key is missing, wrong, revoked or lacks permission."""

    default_retryable = False


class ProviderNotConfigured(ProviderAuthError):
    """No API key was configured for this provider."""


def retry_after_seconds(headers: Mapping[str, str] | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date), if given."""
    return retry_after_from_headers(headers, now=now or datetime.now(UTC))


def _should_retry_header(headers: Mapping[str, str] | None) -> bool | None:
    # OpenAI and Anthropic tell clients explicitly whether a retry can help.
    if not headers:
        return None
    value = {key.lower(): v for key, v in headers.items()}.get("x-should-retry")
    if value == "true":
        return True
    if value == "false":
        return False
    return None


def error_for_status(
    status_code: int,
    *,
    provider: str,
    message: str,
    headers: Mapping[str, str] | None = None,
    provider_code: str | None = None,
) -> ProviderError:
    """The typed error for an HTTP error answer of a provider."""
    cls: type[ProviderError]
    if status_code in (401, 403):
        cls = ProviderAuthError
    elif status_code == 429:
        cls = ProviderRateLimited
    elif status_code in (503, 529):
        cls = ProviderOverloaded
    elif status_code in (408, 409) or status_code >= 500:
        cls = ProviderUnavailable
    else:
        cls = ProviderBadRequest
    return cls(
        message or f"HTTP {status_code}",
        provider=provider,
        status_code=status_code,
        retry_after_seconds=retry_after_seconds(headers),
        retryable=_should_retry_header(headers),
        provider_code=provider_code,
    )


def as_application_error(error: Exception, *, secrets: Collection[str | None]) -> ApplicationError:
    """The Temporal error for a failed model call: typed, retryable or not, honouring Retry-After.

    Every form of each of ``secrets`` (the providers' keys) is blanked out of the
    message and the details: an endpoint may echo the request's headers in its
    error. Raise it ``from None``, since Temporal serialises the cause chain too and
    the original exceptions still hold the text as it came. An exception that is no
    ProviderError (an SDK surprise, a bug) stays retryable, as Temporal would make
    it, and keeps its traceback (file and line only; no message); a ProviderError is
    BENIGN, so Temporal logs no traceback for it.
    """
    redactor = Redactor(secrets)
    if not isinstance(error, ProviderError):
        converted = ApplicationError(redactor.text(str(error)), type=type(error).__name__)
        return converted.with_traceback(error.__traceback__)
    delay = None
    if error.retryable and error.retry_after_seconds is not None:
        delay = timedelta(seconds=error.retry_after_seconds)
    return ApplicationError(
        redactor.text(str(error)),
        redactor.value(
            {
                "provider": error.provider,
                "status_code": error.status_code,
                "provider_code": error.provider_code,
            }
        ),
        type=type(error).__name__,
        non_retryable=not error.retryable,
        next_retry_delay=delay,
        # A provider's refusal or outage is expected: the caller logs one line, the SDK no traceback.
        category=ApplicationErrorCategory.BENIGN,
    )
