from __future__ import annotations

import pytest

from switchboard.domain.signatures import (
    hub_signature,
    service_signature,
    verify_hub_signature,
    verify_service_signature,
)

# RFC 4231 test case 2: a published HMAC-SHA256 vector, independent of our code.
RFC_KEY = "Jefe"
RFC_BODY = b"what do ya want for nothing?"
RFC_HEX = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"

BODY = b'{"object":"whatsapp_business_account","entry":[]}'
SECRET = "app-secret"

SIGNERS = [
    pytest.param(hub_signature, verify_hub_signature, id="hub"),
    pytest.param(service_signature, verify_service_signature, id="service"),
]


@pytest.mark.parametrize(("sign", "verify"), SIGNERS)
def test_signature_matches_published_vector(sign, verify) -> None:
    assert sign(RFC_BODY, RFC_KEY) == "sha256=" + RFC_HEX
    assert verify(RFC_BODY, "sha256=" + RFC_HEX, RFC_KEY) is True


@pytest.mark.parametrize(("sign", "verify"), SIGNERS)
@pytest.mark.parametrize(
    ("header", "body", "secret", "expected"),
    [
        ("valid", BODY, SECRET, True),
        ("valid-upper-hex", BODY, SECRET, True),
        ("valid-padded", BODY, SECRET, True),
        ("valid", BODY + b" ", SECRET, False),
        ("valid", BODY, "other-secret", False),
        ("valid", BODY, "", False),
        (None, BODY, SECRET, False),
        ("", BODY, SECRET, False),
        ("sha256=", BODY, SECRET, False),
        ("sha1=abc", BODY, SECRET, False),
        ("no-prefix", BODY, SECRET, False),
        ("truncated", BODY, SECRET, False),
        ("non-hex", BODY, SECRET, False),
    ],
)
def test_verify_table(sign, verify, header, body, secret, expected) -> None:
    good = sign(BODY, SECRET)
    hex_part = good.removeprefix("sha256=")
    headers = {
        "valid": good,
        "valid-upper-hex": "sha256=" + hex_part.upper(),
        "valid-padded": f"  {good} ",
        "no-prefix": hex_part,
        "truncated": good[:-2],
        "non-hex": "sha256=" + "z" * 64,
    }
    value = headers.get(header, header)
    assert verify(body, value, secret) is expected


@pytest.mark.parametrize(("sign", "verify"), SIGNERS)
def test_signing_with_empty_secret_is_refused(sign, verify) -> None:
    with pytest.raises(ValueError):
        sign(BODY, "")


@pytest.mark.parametrize(("sign", "verify"), SIGNERS)
def test_signature_depends_on_every_byte(sign, verify) -> None:
    assert sign(b"a", SECRET) != sign(b"b", SECRET)
    assert sign(b"a", SECRET) != sign(b"a", SECRET + "x")
    assert sign(BODY, SECRET).startswith("sha256=")
    assert len(sign(BODY, SECRET)) == len("sha256=") + 64


def test_hub_and_service_signatures_share_the_format() -> None:
    assert hub_signature(BODY, SECRET) == service_signature(BODY, SECRET)
    assert verify_service_signature(BODY, hub_signature(BODY, SECRET), SECRET)
