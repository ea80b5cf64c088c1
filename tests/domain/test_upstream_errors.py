from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.errors import RateLimited
from switchboard.domain.upstream_errors import (
    UPSTREAM_RULES,
    backoff_seconds,
    classify_status_error,
    classify_transport_failure,
    classify_upstream_error,
    retry_delay_seconds,
)


def envelope(code: int, message: str = "", details: str = "", subcode: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"message": message or f"(#{code}) title", "type": "OAuthException", "code": code}
    if details:
        error["error_data"] = {"messaging_product": "whatsapp", "details": details}
    if subcode is not None:
        error["error_subcode"] = subcode
    return {"error": error}


# (upstream HTTP, upstream code, our code, our status, retryable, alternate phone)
ROWS: list[tuple[int, int, str, int, bool, bool]] = [
    # Spec "Upstream passthrough" codes
    (400, 131047, "OUTSIDE_CONVERSATION_WINDOW", 400, False, False),
    (400, 135000, "OUTSIDE_CONVERSATION_WINDOW", 400, False, False),
    (400, 132015, "TEMPLATE_NOT_APPROVED", 400, False, False),
    (400, 132016, "TEMPLATE_NOT_APPROVED", 400, False, False),
    (400, 132000, "TEMPLATE_VARIABLE_COUNT_MISMATCH", 400, False, False),
    (400, 131053, "MEDIA_NOT_FOUND", 400, False, False),
    (400, 131052, "MEDIA_NOT_FOUND", 400, False, False),
    (400, 131026, "RECIPIENT_NOT_ON_WHATSAPP", 400, False, False),
    (400, 131050, "RECIPIENT_OPTED_OUT", 400, False, False),
    (403, 131031, "WABA_SUSPENDED", 403, False, False),
    (403, 368, "WABA_SUSPENDED", 403, False, False),
    (429, 4, "RATE_LIMIT_EXCEEDED", 429, True, False),
    (429, 80007, "RATE_LIMIT_EXCEEDED", 429, True, False),
    (429, 130429, "RATE_LIMIT_EXCEEDED", 429, True, False),
    (429, 131056, "RATE_LIMIT_EXCEEDED", 429, True, False),
    (429, 131048, "RATE_LIMIT_EXCEEDED", 429, True, False),
    (400, 131049, "QUALITY_FLAG_RED", 400, False, False),
    (400, 470, "OUTSIDE_CONVERSATION_WINDOW", 400, False, False),
    # Spec "Upstream numeric" codes without a named code keep their number
    (400, 131030, "131030", 400, False, True),
    (400, 132001, "132001", 400, False, False),
    (404, 132001, "132001", 400, False, False),
    (401, 190, "190", 403, False, False),
    # Others of the reference catalogue
    (401, 0, "0", 403, False, False),
    (503, 2, "2", 503, True, False),
    (403, 3, "3", 403, False, False),
    (403, 10, "10", 403, False, False),
    (400, 100, "100", 400, False, False),
    (403, 230, "230", 403, False, False),
    (400, 130472, "130472", 400, False, False),
    (403, 130497, "130497", 403, False, False),
    (500, 131000, "131000", 502, True, False),
    (400, 131008, "131008", 400, False, False),
    (400, 131009, "131009", 400, False, False),
    (503, 131016, "131016", 503, True, False),
    (400, 131021, "131021", 400, False, False),
    (400, 131042, "131042", 403, False, False),
    (503, 131057, "131057", 503, True, False),
    (400, 131062, "131062", 400, False, False),
    (400, 132012, "132012", 400, False, False),
    (400, 132018, "132018", 400, False, False),
    (503, 133004, "133004", 503, True, False),
    (400, 133010, "133010", 400, False, False),
    (400, 137000, "137000", 400, False, False),
    # Codes absent from the table fall back on the upstream HTTP status
    (400, 999001, "999001", 400, False, False),
    (403, 999002, "999002", 403, False, False),
    (429, 999003, "RATE_LIMIT_EXCEEDED", 429, True, False),
    (500, 999004, "999004", 502, True, False),
    (502, 999005, "999005", 502, True, False),
    (503, 999006, "999006", 503, True, False),
    (504, 999007, "999007", 504, True, False),
]


@pytest.mark.parametrize(("http", "upstream", "code", "status", "retryable", "alternate"), ROWS)
def test_classify_upstream_error(
    http: int, upstream: int, code: str, status: int, retryable: bool, alternate: bool
) -> None:
    failure = classify_upstream_error(http, envelope(upstream, details="more"))
    assert (failure.code, failure.status_code, failure.retryable, failure.retry_alternate_phone) == (
        code,
        status,
        retryable,
        alternate,
    )
    assert failure.upstream_code == upstream
    assert failure.upstream_status == http
    assert failure.error_message.endswith(": more")
    assert failure.retryable is (status == 429 or status >= 500)


def test_every_table_row_is_covered_by_a_test_row() -> None:
    tested = {row[1] for row in ROWS}
    assert set(UPSTREAM_RULES) - tested == {131005, 131045, 131051, 131063, 131064, 132005, 132007, 132008}


@pytest.mark.parametrize("upstream", [131005, 131045, 131051, 131063, 131064, 132005, 132007, 132008])
def test_remaining_catalogue_codes_are_permanent_numeric(upstream: int) -> None:
    failure = classify_upstream_error(400, envelope(upstream))
    assert failure.code == str(upstream)
    assert failure.status_code in (400, 403)
    assert not failure.retryable


def test_async_status_webhook_error_object() -> None:
    error = {
        "code": 131047,
        "title": "Re-engagement message",
        "message": "Re-engagement message",
        "error_data": {"details": "Message failed to send because more than 24 hours have passed."},
        "href": "https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes",
    }
    failure = classify_upstream_error(None, error)
    assert failure.code == "OUTSIDE_CONVERSATION_WINDOW"
    assert failure.upstream_status is None
    assert failure.error_message == (
        "More than 24 h since the recipient last replied; send a template: "
        "Message failed to send because more than 24 hours have passed."
    )


def test_error_message_falls_back_on_upstream_message_then_title() -> None:
    with_message = classify_upstream_error(
        400, {"error": {"code": 131026, "message": "(#131026) Undeliverable"}}
    )
    assert (
        with_message.error_message
        == "Message undeliverable: recipient is not on WhatsApp: (#131026) Undeliverable"
    )
    bare = classify_upstream_error(400, {"error": {"code": 131026}})
    assert bare.error_message == "Message undeliverable: recipient is not on WhatsApp"


def test_media_id_invalid_parameter_is_media_not_found() -> None:
    body = envelope(
        100,
        message="(#100) Invalid parameter",
        details="Param image['id'] is not a valid media ID",
        subcode=2494102,
    )
    failure = classify_upstream_error(400, body)
    assert failure.code == "MEDIA_NOT_FOUND"
    assert failure.upstream_subcode == 2494102


@pytest.mark.parametrize(
    ("http", "body", "status", "code"),
    [
        (500, None, 502, None),
        (503, "Service Unavailable", 503, None),
        (429, {}, 429, "RATE_LIMIT_EXCEEDED"),
        (400, {"error": {"code": "131047"}}, 400, "OUTSIDE_CONVERSATION_WINDOW"),
        (400, {"error": {"message": "weird"}}, 400, None),
    ],
)
def test_malformed_or_missing_envelopes(http: int, body: Any, status: int, code: str | None) -> None:
    failure = classify_upstream_error(http, body)
    assert (failure.status_code, failure.code) == (status, code)


def test_is_transient_makes_an_unknown_4xx_retryable() -> None:
    failure = classify_upstream_error(400, {"error": {"code": 999999, "is_transient": True}})
    assert failure.retryable


def test_to_service_error_for_a_permanent_failure() -> None:
    error = classify_upstream_error(400, envelope(131047, details="24h")).to_service_error()
    assert error.status_code == 400
    assert error.code == "OUTSIDE_CONVERSATION_WINDOW"
    assert error.extra == {"error_message": error.message}
    assert error.details == {"upstream_code": 131047, "upstream_status": 400}


def test_to_service_error_for_a_rate_limit() -> None:
    error = classify_upstream_error(429, envelope(131056)).to_service_error()
    assert isinstance(error, RateLimited)
    assert error.status_code == 429
    assert error.extra["retry_after_seconds"] == 6
    assert error.headers == {"Retry-After": "6"}
    assert error.code == "RATE_LIMIT_EXCEEDED"


@pytest.mark.parametrize(("upstream", "status"), [(131000, 502), (131016, 503), (190, 403)])
def test_to_service_error_keeps_the_status(upstream: int, status: int) -> None:
    error = classify_upstream_error(500, envelope(upstream)).to_service_error()
    assert error.status_code == status
    assert error.code == str(upstream)


@pytest.mark.parametrize(("timed_out", "status"), [(True, 504), (False, 503)])
def test_transport_failures_are_retryable(timed_out: bool, status: int) -> None:
    failure = classify_transport_failure(timed_out=timed_out)
    assert failure.status_code == status
    assert failure.retryable
    assert failure.to_service_error().status_code == status


@pytest.mark.parametrize(
    ("attempt", "rand", "seconds"),
    [
        (1, 0.5, 1.0),
        (2, 0.5, 2.0),
        (3, 0.5, 4.0),
        (6, 0.5, 32.0),
        (7, 0.5, 60.0),
        (50, 0.5, 60.0),
        (10_000, 0.5, 60.0),
        (1, 0.0, 0.5),
        (1, 1.0, 1.5),
        (4, 0.0, 4.0),
        (4, 1.0, 12.0),
        (6, 1.0, 48.0),
        (7, 0.0, 30.0),
        (7, 1.0, 60.0),
    ],
)
def test_backoff_seconds(attempt: int, rand: float, seconds: float) -> None:
    assert backoff_seconds(attempt, rand=rand) == pytest.approx(seconds)


@pytest.mark.parametrize(("attempt", "rand"), [(0, 0.5), (1, -0.1), (1, 1.1)])
def test_backoff_rejects_bad_input(attempt: int, rand: float) -> None:
    with pytest.raises(ValueError):
        backoff_seconds(attempt, rand=rand)


def test_retry_delay_seconds() -> None:
    assert retry_delay_seconds(classify_upstream_error(400, envelope(131047)), 1, rand=0.5) is None
    assert retry_delay_seconds(classify_upstream_error(429, envelope(4)), 1, rand=0.5) == 60.0
    assert retry_delay_seconds(classify_upstream_error(500, envelope(131000)), 3, rand=0.5) == 4.0


# Late failures (a ``failed`` status webhook after the upstream accepted the send):
# (upstream code, spec code, error_title). Same table as the refusals above.
LATE_FAILURES: list[tuple[int | None, str | None, str]] = [
    (
        131047,
        "OUTSIDE_CONVERSATION_WINDOW",
        "More than 24 h since the recipient last replied; send a template",
    ),
    (470, "OUTSIDE_CONVERSATION_WINDOW", "More than 24 h since the recipient last replied; send a template"),
    (131026, "RECIPIENT_NOT_ON_WHATSAPP", "Message undeliverable: recipient is not on WhatsApp"),
    (131049, "QUALITY_FLAG_RED", "Not delivered to maintain healthy ecosystem engagement (quality)"),
    (131050, "RECIPIENT_OPTED_OUT", "Recipient stopped marketing messages from this business"),
    (131051, "131051", "Unsupported message type"),
    (130472, "130472", "Recipient's number is part of an experiment"),
    (132015, "TEMPLATE_NOT_APPROVED", "Template is paused"),
    (999123, "999123", "Upstream rejected the message"),
    (None, None, "Upstream rejected the message"),
]


@pytest.mark.parametrize(("upstream", "code", "title"), LATE_FAILURES)
def test_late_status_failure_uses_the_refusal_table(
    upstream: int | None, code: str | None, title: str
) -> None:
    failure = classify_status_error(
        code=upstream, title="Upstream title", message="Upstream title", details=None
    )
    assert (failure.code, failure.error_title, failure.upstream_code) == (code, title, upstream)
    assert failure.upstream_status is None
    if upstream is not None:
        refusal = classify_upstream_error(400, envelope(upstream, message="Upstream title"))
        assert (refusal.code, refusal.error_title, refusal.error_message) == (
            failure.code,
            failure.error_title,
            failure.error_message,
        )


def test_late_status_failure_keeps_the_upstream_details_in_the_message() -> None:
    failure = classify_status_error(
        code=131026, title="Message undeliverable", message="Message undeliverable", details="no WhatsApp"
    )
    assert failure.error_message == "Message undeliverable: recipient is not on WhatsApp: no WhatsApp"
    bare = classify_status_error(code=131026, title=None, message=None, details=None)
    assert bare.error_message == "Message undeliverable: recipient is not on WhatsApp"
