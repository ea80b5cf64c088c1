"""Standard Webhooks signing, checked against the scheme's reference library (standardwebhooks)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook

from switchboard.domain import standard_webhooks
from switchboard.store.webhooks.endpoints import new_secret

BODY = '{"object":"service_events","event":"webhook.test","delivery_id":"dlv_1","n":"ñ"}'.encode()
STAMP = 1_765_000_000
# The scheme's own example secret (standardwebhooks.com) and one issued by the service.
EXAMPLE = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


@pytest.mark.parametrize("secret", [EXAMPLE, new_secret(), new_secret()])
def test_the_signature_is_the_reference_librarys(secret):
    ours = standard_webhooks.sign(secret, msg_id="dlv_1", timestamp=STAMP, body=BODY)
    theirs = Webhook(secret).sign("dlv_1", datetime.fromtimestamp(STAMP, UTC), BODY)
    assert ours == theirs and ours.startswith("v1,")


def test_a_new_secret_is_standard_base64_the_libraries_decode():
    secret = new_secret()
    encoded = secret.removeprefix("whsec_")
    assert secret.startswith("whsec_") and len(base64.b64decode(encoded, validate=True)) == 32
    assert standard_webhooks.signing_key(secret) == base64.b64decode(encoded)


def test_an_older_url_safe_secret_decodes_with_its_own_alphabet():
    """Secrets issued before the scheme are URL-safe and unpadded: the key is what they encode."""
    raw = bytes(range(250, 256)) * 5 + b"\xfb\xff"
    old = "whsec_" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert "-" in old or "_" in old
    assert standard_webhooks.signing_key(old) == raw


@pytest.mark.parametrize("secret", ["whsec_", "", "whsec_!!!!", "whsec_a"])
def test_a_secret_that_is_not_base64_is_refused(secret):
    with pytest.raises(ValueError):
        standard_webhooks.signing_key(secret)


def test_the_header_carries_one_signature_per_secret_and_each_verifies():
    old, new = new_secret(), new_secret()
    header = standard_webhooks.signature_header([old, new], msg_id="dlv_1", timestamp=STAMP, body=BODY)
    parts = header.split(" ")
    assert len(parts) == 2 and all(part.startswith("v1,") for part in parts)
    for secret in (old, new):
        assert standard_webhooks.matches([secret], header, msg_id="dlv_1", timestamp=STAMP, body=BODY)
    assert not standard_webhooks.matches([new_secret()], header, msg_id="dlv_1", timestamp=STAMP, body=BODY)


@pytest.mark.parametrize(
    ("msg_id", "timestamp", "body"),
    [("dlv_2", STAMP, BODY), ("dlv_1", STAMP + 1, BODY), ("dlv_1", STAMP, BODY + b" ")],
)
def test_the_id_the_time_and_the_body_are_all_signed(msg_id, timestamp, body):
    secret = new_secret()
    header = standard_webhooks.signature_header([secret], msg_id="dlv_1", timestamp=STAMP, body=BODY)
    assert not standard_webhooks.matches([secret], header, msg_id=msg_id, timestamp=timestamp, body=body)


def test_no_secret_signs_nothing():
    with pytest.raises(ValueError):
        standard_webhooks.signature_header([], msg_id="dlv_1", timestamp=STAMP, body=BODY)
