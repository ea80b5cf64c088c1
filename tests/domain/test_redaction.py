"""Secret values are blanked out of text in every form an echo may carry them."""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

import pytest

from switchboard.domain.redaction import FRAGMENT_CHARS, REDACTED, Redactor, redact_secrets

KEY = "sk-proj-Ab3/De+Gh9=Jk_Lm0~Np"
TOKEN = "EAAGm0PX4ZCpsBAHZBwq2ZCWmZA8sZD"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Authorization: Bearer {KEY}", f"Authorization: Bearer {REDACTED}"),
        (f"{{'x-api-key': '{KEY}'}}", f"{{'x-api-key': '{REDACTED}'}}"),
        (f"?key={quote(KEY, safe='')}&alt=sse", f"?key={REDACTED}&alt=sse"),
        (
            f"?key={re.sub('%[0-9A-F]{2}', lambda m: m.group(0).lower(), quote(KEY, safe=''))}",
            f"?key={REDACTED}",
        ),
        (f"form: key={quote_plus(KEY)}", f"form: key={REDACTED}"),
        (json.dumps({"echo": KEY}), json.dumps({"echo": REDACTED})),
        ('{"echo": "' + KEY.replace("/", "\\/") + '"}', '{"echo": "' + REDACTED + '"}'),
        (f"b64 {base64.b64encode(KEY.encode()).decode()}", f"b64 {REDACTED}"),
        (f"b64 {base64.urlsafe_b64encode(KEY.encode()).decode().rstrip('=')}.", f"b64 {REDACTED}."),
        (f"Basic {base64.b64encode(f'api:{KEY}'.encode()).decode()}", f"Basic {REDACTED}"),
        (f"basic {base64.b64encode(f'{KEY}:'.encode()).decode()}", f"basic {REDACTED}"),
        # Cut off by a length limit: the start of the key survives at the end of the text.
        (f"bad key: Bearer {KEY[:20]}", f"bad key: Bearer {REDACTED}"),
        # Cut off at the front: the end of the key begins the text.
        (f"{KEY[-15:]} was refused", f"{REDACTED} was refused"),
        (f"{KEY} and again {KEY}", f"{REDACTED} and again {REDACTED}"),
        (f"two secrets: {KEY} {TOKEN}", f"two secrets: {REDACTED} {REDACTED}"),
    ],
)
def test_every_form_of_a_secret_is_blanked(text: str, expected: str) -> None:
    redacted = Redactor([KEY, TOKEN]).text(text)
    assert redacted == expected
    assert KEY not in redacted and KEY[:FRAGMENT_CHARS] not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "model not found",
        "Basic realm=api",
        f"Basic {base64.b64encode(b'someone:else-entirely').decode()}",
        f"a short piece {KEY[: FRAGMENT_CHARS - 1]} is kept",
        "the WABA access token is expired or invalid",
    ],
)
def test_text_without_the_secrets_is_unchanged(text: str) -> None:
    assert Redactor([KEY, TOKEN, "tok"]).text(text) == text


def test_short_and_empty_secrets_are_not_redacted() -> None:
    redactor = Redactor(["", None, "tok", "1234567"])
    assert not redactor
    assert redactor.text("token 1234567") == "token 1234567"


def test_json_like_values_are_redacted_in_keys_and_values() -> None:
    value = {"error": {"message": f"Bearer {KEY}", KEY: [TOKEN, 3, None]}, "n": 1}
    assert Redactor([KEY, TOKEN]).value(value) == {
        "error": {"message": f"Bearer {REDACTED}", REDACTED: [REDACTED, 3, None]},
        "n": 1,
    }


def test_the_function_form() -> None:
    assert redact_secrets(f"x-goog-api-key={TOKEN}", [TOKEN]) == f"x-goog-api-key={REDACTED}"
