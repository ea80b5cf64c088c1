"""switchboard_client.verify against deliveries signed by the service's own code.

The bodies and headers come from the delivery path itself (``envelope_body`` and
``delivery_headers``, which call ``domain.signatures`` and ``domain.standard_webhooks``),
so the client's verifier cannot drift from what the service sends; the Standard
Webhooks reference verifier checks the same requests.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from standardwebhooks.webhooks import Webhook
from starlette.datastructures import Headers

from switchboard.activities.webhooks.http import delivery_headers, envelope_body
from switchboard.domain.events import webhook_test_event
from switchboard.domain.signatures import service_signature, verify_service_signature
from switchboard.domain.standard_webhooks import sign as service_standard_signature
from switchboard_client import WebhookVerificationError, sign, sign_standard, verify

SECRET = "whsec_" + "a1B2" * 8
OTHER_SECRET = "whsec_" + "z9Y8" * 8
THIRD_SECRET = "whsec_" + "c3D4" * 8
OCCURRED = datetime(2026, 11, 24, 12, 0, 0, tzinfo=UTC)
Reason = WebhookVerificationError
STANDARD = ("webhook-id", "webhook-timestamp", "webhook-signature")


def delivery(
    secret: str | list[str] = SECRET, *, occurred_at: datetime = OCCURRED, sent_at: datetime | None = None
) -> tuple[bytes, httpx.Headers]:
    """A webhook.test delivery exactly as the service would POST it (attempted now unless ``sent_at``)."""
    payload = webhook_test_event(
        tenant_id="ten_1",
        webhook_id="wh_1",
        phone_number_id="800000000001",
        delivery_id="",
        occurred_at=occurred_at,
    )
    payload.pop("delivery_id")
    body = envelope_body(payload, "dlv_1")
    secrets = [secret] if isinstance(secret, str) else secret
    timestamp = int((sent_at or datetime.now(UTC)).timestamp())
    return body, delivery_headers(
        body, secrets=secrets, event_kind="webhook.test", delivery_id="dlv_1", timestamp=timestamp
    )


def legacy(headers: httpx.Headers) -> httpx.Headers:
    """The request without its Standard Webhooks headers: verified on X-Service-Signature alone."""
    return httpx.Headers([(k, v) for k, v in headers.multi_items() if k.lower() not in STANDARD])


def reason_of(payload: Any, headers: Any, secret: Any = SECRET, **kwargs: Any) -> str:
    with pytest.raises(WebhookVerificationError) as caught:
        verify(payload, headers, secret, **kwargs)
    return caught.value.reason


def test_a_service_delivery_verifies_and_parses():
    body, headers = delivery()
    event = verify(body, headers, SECRET)
    assert event == json.loads(body)
    assert (event["event"], event["delivery_id"], event["webhook_id"]) == ("webhook.test", "dlv_1", "wh_1")


@pytest.mark.parametrize(
    "as_headers",
    [
        pytest.param(lambda h: {k.lower(): v for k, v in h.items()}, id="lower-case dict"),
        pytest.param(lambda h: {k.upper(): v for k, v in h.items()}, id="upper-case dict"),
        pytest.param(lambda h: Headers(headers=h), id="starlette"),
        pytest.param(httpx.Headers, id="httpx"),
    ],
)
def test_header_names_match_in_any_case_and_mapping(as_headers):
    body, headers = delivery()
    assert verify(body.decode(), as_headers(headers), SECRET)["event"] == "webhook.test"


def test_a_tampered_body_is_refused():
    body, headers = delivery()
    tampered = body.replace(b'"tenant_id":"ten_1"', b'"tenant_id":"ten_2"')
    assert tampered != body
    assert reason_of(tampered, headers) == Reason.SIGNATURE_MISMATCH


def test_re_encoded_json_is_refused():
    """The digest covers the raw bytes; parsing and dumping again changes them."""
    body, headers = delivery()
    assert reason_of(json.dumps(json.loads(body)).encode(), headers) == Reason.SIGNATURE_MISMATCH


def test_the_wrong_secret_is_refused():
    body, headers = delivery(OTHER_SECRET)
    assert reason_of(body, headers) == Reason.SIGNATURE_MISMATCH


def test_any_of_several_secrets_may_match():
    body, headers = delivery(OTHER_SECRET)
    assert verify(body, headers, [SECRET, OTHER_SECRET])["event"] == "webhook.test"
    assert reason_of(body, headers, [SECRET, THIRD_SECRET]) == Reason.SIGNATURE_MISMATCH
    assert reason_of(body, legacy(headers), [SECRET, THIRD_SECRET], now=OCCURRED) == Reason.SIGNATURE_MISMATCH


def test_a_missing_signature_is_refused():
    body, headers = delivery()
    del headers["X-Service-Signature"]
    del headers["webhook-signature"]
    assert reason_of(body, headers) == Reason.MISSING_SIGNATURE


def test_the_reference_verifier_and_the_client_accept_the_same_delivery():
    body, headers = delivery()
    standard_only = {name: headers[name] for name in STANDARD}
    assert Webhook(SECRET).verify(body, standard_only) == verify(body, standard_only, SECRET)
    assert sign_standard(body, SECRET, msg_id="dlv_1", timestamp=int(headers["webhook-timestamp"])) == (
        service_standard_signature(
            SECRET, msg_id="dlv_1", timestamp=int(headers["webhook-timestamp"]), body=body
        )
    )


def test_during_a_rotation_either_secret_verifies_on_either_scheme():
    body, headers = delivery([OTHER_SECRET, SECRET])
    assert len(headers.get_list("X-Service-Signature")) == 2
    for secret in (OTHER_SECRET, SECRET):
        assert verify(body, headers, secret)["delivery_id"] == "dlv_1"
        assert verify(body, legacy(headers), secret, now=OCCURRED)["delivery_id"] == "dlv_1"
    assert reason_of(body, headers, THIRD_SECRET) == Reason.SIGNATURE_MISMATCH


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        pytest.param({"webhook-id": "dlv_2"}, Reason.SIGNATURE_MISMATCH, id="another id"),
        pytest.param({"webhook-timestamp": "abc"}, Reason.MALFORMED_SIGNATURE, id="timestamp not a number"),
        pytest.param({"webhook-signature": "v2,abc"}, Reason.MALFORMED_SIGNATURE, id="no v1 signature"),
        pytest.param({"webhook-signature": "v1,AAAA"}, Reason.SIGNATURE_MISMATCH, id="forged"),
    ],
)
def test_a_standard_header_that_was_changed_is_refused(change, reason):
    body, headers = delivery()
    headers.update(change)
    assert reason_of(body, headers) == reason


def test_a_standard_signature_without_its_id_or_timestamp_is_malformed():
    body, headers = delivery()
    for name in ("webhook-id", "webhook-timestamp"):
        partial = httpx.Headers([(k, v) for k, v in headers.multi_items() if k.lower() != name])
        assert reason_of(body, partial) == Reason.MALFORMED_SIGNATURE


def test_a_signed_id_that_contradicts_the_body_is_refused():
    """The id is signed, but the body's delivery_id must still be the one the headers name."""
    body, _ = delivery()
    stamp = int(datetime.now(UTC).timestamp())
    headers = {
        "webhook-id": "dlv_other",
        "webhook-timestamp": str(stamp),
        "webhook-signature": sign_standard(body, SECRET, msg_id="dlv_other", timestamp=stamp),
    }
    assert reason_of(body, headers) == Reason.HEADER_MISMATCH


@pytest.mark.parametrize(
    ("age", "accepted"),
    [
        (timedelta(0), True),
        (timedelta(seconds=290), True),
        (timedelta(seconds=-290), True),
        (timedelta(seconds=310), False),
        (timedelta(seconds=-310), False),
    ],
)
def test_by_default_the_attempts_timestamp_must_be_within_five_minutes(age, accepted):
    """An old event re-sent by a retry is fresh: the attempt's own time is signed, not the event's."""
    body, headers = delivery(occurred_at=OCCURRED - timedelta(days=1), sent_at=datetime.now(UTC) - age)
    if accepted:
        assert verify(body, headers, SECRET)["delivery_id"] == "dlv_1"
    else:
        assert reason_of(body, headers) == Reason.OUTSIDE_TOLERANCE
        assert verify(body, headers, SECRET, tolerance_seconds=None)["delivery_id"] == "dlv_1"


@pytest.mark.parametrize(
    "value",
    ["", "sha256=", "sha256=abc", "sha1=" + "0" * 40, "v1,abc", "sha256=" + "g" * 64, "sha256=" + "0" * 65],
)
def test_malformed_signatures_are_refused(value):
    body, headers = delivery()
    headers = legacy(headers)
    headers["X-Service-Signature"] = value
    assert reason_of(body, headers) == Reason.MALFORMED_SIGNATURE


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda s: s, id="as sent"),
        pytest.param(lambda s: s.upper().replace("SHA256=", "sha256="), id="upper-case hex"),
        pytest.param(lambda s: f"  {s} ", id="padded"),
        pytest.param(lambda s: s[:-1] + ("0" if s[-1] != "0" else "1"), id="one digit off"),
        pytest.param(lambda s: s.replace("sha256=", "sha512="), id="other algorithm"),
        pytest.param(lambda s: s.replace("sha256=", ""), id="no prefix"),
        pytest.param(lambda s: s.replace("sha256=", "SHA256="), id="upper-case prefix"),
    ],
)
def test_accepts_exactly_what_the_services_own_verifier_accepts(transform):
    body, _ = delivery()
    value = transform(service_signature(body, SECRET))
    expected = verify_service_signature(body, value, SECRET)
    headers = {"X-Service-Signature": value}
    if expected:
        assert verify(body, headers, SECRET, now=OCCURRED)["delivery_id"] == "dlv_1"
    else:
        reason_of(body, headers, now=OCCURRED)


def test_one_valid_value_among_repeated_signature_headers_is_enough():
    body, headers = delivery()
    forged = "sha256=" + "0" * 64
    multi = httpx.Headers(
        [("X-Service-Signature", forged), ("X-Service-Signature", headers["X-Service-Signature"])]
    )
    assert verify(body, multi, SECRET, now=OCCURRED)["event"] == "webhook.test"
    only_forged = httpx.Headers([("X-Service-Signature", forged)])
    assert reason_of(body, only_forged) == Reason.SIGNATURE_MISMATCH


@pytest.mark.parametrize(
    ("header", "value"), [("X-Service-Event", "channel.message.sent"), ("X-Service-Delivery", "x")]
)
def test_unsigned_headers_that_contradict_the_body_are_refused(header, value):
    body, headers = delivery()
    headers[header] = value
    assert reason_of(body, headers) == Reason.HEADER_MISMATCH


def test_a_signed_body_that_is_not_an_event_is_refused():
    for body in (b"not json", b"[1, 2]", b'{"no_event": true}', b"\xff\xfe"):
        assert (
            reason_of(body, {"X-Service-Signature": service_signature(body, SECRET)})
            == Reason.INVALID_PAYLOAD
        )


def test_on_the_body_signature_alone_no_tolerance_accepts_an_old_event():
    """X-Service-Signature signs no attempt time: a receiver that opts out of the time check accepts any age."""
    body, headers = delivery(occurred_at=OCCURRED - timedelta(days=1))
    assert verify(body, legacy(headers), SECRET, tolerance_seconds=None)["delivery_id"] == "dlv_1"


@pytest.mark.parametrize(
    ("offset", "accepted"),
    [
        (timedelta(0), True),
        (timedelta(seconds=299), True),
        (timedelta(seconds=-299), True),
        (timedelta(seconds=301), False),
        (timedelta(seconds=-301), False),
        (timedelta(hours=6), False),
    ],
)
def test_on_the_body_signature_alone_tolerance_bounds_the_signed_occurred_at(offset, accepted):
    body, headers = delivery()
    headers = legacy(headers)
    now = OCCURRED + offset
    if accepted:
        assert verify(body, headers, SECRET, tolerance_seconds=300, now=now)["event"] == "webhook.test"
    else:
        assert reason_of(body, headers, tolerance_seconds=300, now=now) == Reason.OUTSIDE_TOLERANCE


def test_a_bad_signature_is_reported_before_any_tolerance_check():
    body, headers = delivery(OTHER_SECRET)
    assert reason_of(body, headers, tolerance_seconds=300, now=OCCURRED + timedelta(days=2)) == (
        Reason.SIGNATURE_MISMATCH
    )


def test_misuse_is_a_programming_error_not_a_verification_failure():
    body, headers = delivery()
    for secret in ("", [], [SECRET, ""]):
        with pytest.raises(ValueError):
            verify(body, headers, secret)
    with pytest.raises(TypeError):
        verify(json.loads(body), headers, SECRET)
    with pytest.raises(ValueError):
        verify(body, headers, SECRET, tolerance_seconds=300, now=datetime(2026, 1, 1))


@pytest.mark.parametrize("body", [b"", b"{}", '{"a":"ñ"}'.encode(), b"x" * 10_000])
def test_the_clients_sign_matches_the_service(body):
    assert sign(body, SECRET) == service_signature(body, SECRET)
