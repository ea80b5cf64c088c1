from __future__ import annotations

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.phone import (
    alternate_form,
    canonical_phone,
    is_bsuid,
    is_parent_bsuid,
    phone_variants,
    validate_recipient,
    validate_to,
)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("5491122334455", "541122334455"),  # Argentina: the mobile 9 is dropped
        ("541122334455", "541122334455"),
        ("+54 9 11 2233-4455", "541122334455"),
        ("5215512345678", "525512345678"),  # Mexico: the 1 is dropped
        ("525512345678", "525512345678"),
        ("551198765432", "5511998765432"),  # Brazil: old mobile form gains the 9
        ("5511998765432", "5511998765432"),
        ("551123456789", "551123456789"),  # Brazil landline (starts 2-5) stays
        ("14155550123", "14155550123"),
        ("447700900123", "447700900123"),
        ("54911223344", "54911223344"),  # wrong length for the AR rule: untouched
    ],
)
def test_canonical_phone(raw: str, canonical: str) -> None:
    assert canonical_phone(raw) == canonical


@pytest.mark.parametrize(
    ("phone", "variants"),
    [
        ("5491122334455", ["541122334455", "5491122334455"]),
        ("541122334455", ["541122334455", "5491122334455"]),
        ("5215512345678", ["525512345678", "5215512345678"]),
        ("525512345678", ["525512345678", "5215512345678"]),
        ("551198765432", ["5511998765432", "551198765432"]),
        ("5511998765432", ["5511998765432", "551198765432"]),
        ("5511923456789", ["5511923456789"]),
        ("551123456789", ["551123456789"]),
        ("14155550123", ["14155550123"]),
    ],
)
def test_phone_variants_canonical_first(phone: str, variants: list[str]) -> None:
    assert phone_variants(phone) == variants
    for variant in variants:
        assert phone_variants(variant) == variants


@pytest.mark.parametrize(
    ("phone", "alternate"),
    [
        ("541122334455", "5491122334455"),
        ("5491122334455", "541122334455"),
        ("525512345678", "5215512345678"),
        ("5215512345678", "525512345678"),
        ("5511998765432", "551198765432"),
        ("551198765432", "5511998765432"),
        ("+541122334455", "5491122334455"),
        ("14155550123", None),
        ("551123456789", None),
    ],
)
def test_alternate_form(phone: str, alternate: str | None) -> None:
    assert alternate_form(phone) == alternate


@pytest.mark.parametrize("raw", ["14155550123", "12345678", "123456789012345", "5491122334455"])
def test_validate_to_accepts_digits(raw: str) -> None:
    assert validate_to(raw) == raw


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("+14155550123", "INVALID_E164"),
        ("1 415 555 0123", "INVALID_E164"),
        ("1-415-555-0123", "INVALID_E164"),
        ("(1)4155550123", "INVALID_E164"),
        ("1.415.555.0123", "INVALID_E164"),
        ("+1 2", "INVALID_PHONE_NUMBER"),  # separators around too few digits: the length is the problem
        ("1234567", "INVALID_PHONE_NUMBER"),
        ("1234567890123456", "INVALID_PHONE_NUMBER"),
        ("14155abc123", "INVALID_PHONE_NUMBER"),
        ("", "INVALID_PHONE_NUMBER"),
        ("0123456789", "INVALID_PHONE_NUMBER"),  # no country code starts with 0
        ("2812345678", "INVALID_PHONE_NUMBER"),  # 2, 28, 281 are not calling codes
        ("١٢٣٤٥٦٧٨٩", "INVALID_PHONE_NUMBER"),  # non-ASCII digits
    ],
)
def test_validate_to_rejects(raw: str, code: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_to(raw)
    assert caught.value.code == code
    assert caught.value.status_code == 400
    assert caught.value.details == {"field": "to", "value": raw}


def test_validate_to_rejects_non_string() -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_to(14155550123)  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_PHONE_NUMBER"


@pytest.mark.parametrize(
    ("value", "bsuid", "parent"),
    [
        ("US.13491208655302741918", True, False),
        ("US.ENT.11815799212886844830", True, True),
        ("BR.abcDEF123", True, False),
        ("US." + "9" * 128, True, False),
        ("US." + "9" * 129, False, False),
        ("US.", False, False),
        ("us.123", False, False),
        ("USA.123", False, False),
        ("US-123", False, False),
        ("US.12_3", False, False),
        ("14155550123", False, False),
    ],
)
def test_is_bsuid(value: str, bsuid: bool, parent: bool) -> None:
    assert is_bsuid(value) is bsuid
    assert is_parent_bsuid(value) is parent


def test_validate_recipient() -> None:
    assert validate_recipient("US.ENT.1181") == "US.ENT.1181"
    with pytest.raises(ValidationFailed) as caught:
        validate_recipient("not-a-bsuid")
    assert caught.value.code == "INVALID_RECIPIENT"
    assert caught.value.details == {"field": "recipient", "value": "not-a-bsuid"}
