"""NUL characters in JSON bodies are found, with the field that holds them."""

from __future__ import annotations

import json

import pytest

from switchboard.domain.inbound import decode_body
from switchboard.domain.nul_text import might_hold_nul, nul_path, strip_nul


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"a": "ok"}, None),
        ({"a": "x\x00y"}, "a"),
        ({"a": {"b": ["fine", "bad\x00"]}}, "a.b[1]"),
        ({"k\x00": 1}, "k\x00"),
        ("\x00", "$"),
        ([{"t": "\x00"}], "[0].t"),
        ({"a": 1, "b": None, "c": True, "d": [1.5]}, None),
        # A backslash followed by "u0000" is six ordinary characters, not a NUL.
        ({"a": "\\u0000"}, None),
    ],
)
def test_nul_path(body: object, path: str | None) -> None:
    assert nul_path(body) == path


def test_the_raw_precheck_lets_every_body_holding_a_nul_through() -> None:
    assert might_hold_nul(json.dumps({"a": "x\x00"}).encode())
    assert might_hold_nul(json.dumps({"a": "x\x00"}, ensure_ascii=False).encode())
    assert not might_hold_nul(json.dumps({"a": "plain ñ"}).encode())


def test_strip_nul_keeps_everything_else() -> None:
    assert strip_nul({"a\x00": ["x\x00y", 1, None, {"b": "\x00"}]}) == {"a": ["xy", 1, None, {"b": ""}]}


def test_a_channel_envelope_with_a_nul_in_a_text_is_read_without_it() -> None:
    raw = json.dumps({"object": "whatsapp_business_account", "entry": [{"text": "hola\x00 mundo"}]}).encode()
    assert decode_body(raw)["entry"][0]["text"] == "hola mundo"
