"""Phone forms and recipient addressing.

The channel accepts and reports some numbers in two spellings: Argentina with
or without the mobile 9 after 54, Mexico with or without the 1 after 52, Brazil
with or without the ninth digit after the area code. The service stores one
canonical form, matches lookups on every form, and retries a send rejected with
131030 using the other form.
"""

from __future__ import annotations

import re

from phonenumbers import COUNTRY_CODE_TO_REGION_CODE

from switchboard.domain.errors import ValidationFailed

TO_MIN_DIGITS = 8
TO_MAX_DIGITS = 15
BSUID_MAX_CHARS = 128

# Characters people type inside a phone number; the `to` rule refuses them
# with INVALID_E164 because the number itself is recoverable.
_SEPARATORS = re.compile(r"[+\s\-().]")
_BSUID = re.compile(r"^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}$")
_PARENT_BSUID_PREFIX = re.compile(r"^[A-Z]{2}\.ENT\.")

_AR = "54"
_MX = "52"
_BR = "55"
# National significant number lengths that make the two spellings unambiguous.
_AR_MX_NATIONAL = 10
_BR_AREA = 2
_BR_OLD_MOBILE_FIRST = "6789"


def _digits(raw: str) -> str:
    return re.sub(r"\D", "", raw)


def canonical_phone(raw: str) -> str:
    """Return the canonical stored form of a phone number (digits only)."""
    digits = _digits(raw)
    if digits.startswith(_AR + "9") and len(digits) == len(_AR) + 1 + _AR_MX_NATIONAL:
        return _AR + digits[3:]
    if digits.startswith(_MX + "1") and len(digits) == len(_MX) + 1 + _AR_MX_NATIONAL:
        return _MX + digits[3:]
    if digits.startswith(_BR) and len(digits) == len(_BR) + _BR_AREA + 8:
        subscriber = digits[len(_BR) + _BR_AREA :]
        # Only mobile ranges gained the ninth digit; 8-digit landlines stay as they are.
        if subscriber[0] in _BR_OLD_MOBILE_FIRST:
            return digits[: len(_BR) + _BR_AREA] + "9" + subscriber
    return digits


def _other_forms(canonical: str) -> list[str]:
    if canonical.startswith(_AR) and len(canonical) == len(_AR) + _AR_MX_NATIONAL:
        return [_AR + "9" + canonical[2:]]
    if canonical.startswith(_MX) and len(canonical) == len(_MX) + _AR_MX_NATIONAL:
        return [_MX + "1" + canonical[2:]]
    if canonical.startswith(_BR) and len(canonical) == len(_BR) + _BR_AREA + 9:
        subscriber = canonical[len(_BR) + _BR_AREA :]
        if subscriber[0] == "9" and subscriber[1] in _BR_OLD_MOBILE_FIRST:
            return [canonical[: len(_BR) + _BR_AREA] + subscriber[1:]]
    return []


def phone_variants(phone: str) -> list[str]:
    """Return every equivalent spelling of a number, canonical first, for lookups."""
    canonical = canonical_phone(phone)
    return [canonical, *_other_forms(canonical)]


def alternate_form(phone: str) -> str | None:
    """Return the other spelling to retry a send with after upstream 131030, if any."""
    digits = _digits(phone)
    for variant in phone_variants(digits):
        if variant != digits:
            return variant
    return None


def _has_country_code(digits: str) -> bool:
    if digits.startswith("0"):
        return False
    return any(int(digits[:size]) in COUNTRY_CODE_TO_REGION_CODE for size in (1, 2, 3))


def validate_to(raw: object, *, field: str = "to") -> str:
    """Check the send `to` rule (8 to 15 digits, nothing else) and return the digits.

    A value that is a phone number written with ``+``, spaces or separators is
    INVALID_E164; anything else that is not 8 to 15 digits with a real country
    code is INVALID_PHONE_NUMBER.
    """
    value = raw.strip() if isinstance(raw, str) else ""
    if not isinstance(raw, str) or not value:
        raise ValidationFailed(
            f"{field} must be a string of 8 to 15 digits",
            code="INVALID_PHONE_NUMBER",
            details={"field": field, "value": raw},
        )
    if value.isdigit() and value.isascii():
        digits = value
    else:
        stripped = _SEPARATORS.sub("", value)
        if stripped.isdigit() and stripped.isascii() and TO_MIN_DIGITS <= len(stripped) <= TO_MAX_DIGITS:
            raise ValidationFailed(
                f"{field} must be E.164 digits without +, spaces or separators (e.g. {stripped})",
                code="INVALID_E164",
                details={"field": field, "value": raw},
            )
        raise ValidationFailed(
            f"{field} must contain only digits (8 to 15)",
            code="INVALID_PHONE_NUMBER",
            details={"field": field, "value": raw},
        )
    if not TO_MIN_DIGITS <= len(digits) <= TO_MAX_DIGITS:
        raise ValidationFailed(
            f"{field} must have 8 to 15 digits, got {len(digits)}",
            code="INVALID_PHONE_NUMBER",
            details={"field": field, "value": raw},
        )
    if not _has_country_code(digits):
        raise ValidationFailed(
            f"{field} does not start with a known country calling code",
            code="INVALID_PHONE_NUMBER",
            details={"field": field, "value": raw},
        )
    return digits


def is_bsuid(value: object) -> bool:
    """Tell whether a value is a business-scoped user id (``US.<id>`` or ``US.ENT.<id>``)."""
    return isinstance(value, str) and _BSUID.fullmatch(value) is not None


def is_parent_bsuid(value: object) -> bool:
    """Tell whether a BSUID is the enterprise parent form (``<CC>.ENT.<id>``)."""
    return isinstance(value, str) and is_bsuid(value) and _PARENT_BSUID_PREFIX.match(value) is not None


def validate_recipient(raw: object, *, field: str = "recipient") -> str:
    """Check the send `recipient` rule (a BSUID) and return it unchanged."""
    if not isinstance(raw, str) or not is_bsuid(raw):
        raise ValidationFailed(
            f"{field} must be a BSUID: a country code, a period, then up to "
            f"{BSUID_MAX_CHARS} letters or digits (e.g. US.13491208655302741918 or US.ENT.1181579921)",
            code="INVALID_RECIPIENT",
            details={"field": field, "value": raw},
        )
    return raw
