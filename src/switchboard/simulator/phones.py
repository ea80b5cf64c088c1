"""How the channel turns a send's ``to`` into the ``wa_id`` it reports.

The real channel answers with a normalised ``wa_id`` that can differ from the
input: Argentina gains the mobile 9 after 54, Mexico the 1 after 52 (the forms
inbound messages arrive with), and Brazilian mobiles gain the ninth digit. The
simulator reproduces that divergence so the service's matching is exercised.
"""

from __future__ import annotations

import re

_NATIONAL_AR_MX = 10
_BR_LEGACY_LENGTH = 12
_BR_MOBILE_FIRST = "6789"


def digits_of(raw: str) -> str:
    """The digits of a phone number as typed (``+``, spaces, dashes and brackets dropped)."""
    return re.sub(r"\D", "", raw)


def wa_id_for(raw: str) -> str:
    """The ``wa_id`` the channel reports for a send to ``raw``."""
    digits = digits_of(raw)
    if digits.startswith("54") and not digits.startswith("549") and len(digits) == 2 + _NATIONAL_AR_MX:
        return "549" + digits[2:]
    if digits.startswith("52") and not digits.startswith("521") and len(digits) == 2 + _NATIONAL_AR_MX:
        return "521" + digits[2:]
    if digits.startswith("55") and len(digits) == _BR_LEGACY_LENGTH and digits[4] in _BR_MOBILE_FIRST:
        return digits[:4] + "9" + digits[4:]
    return digits
