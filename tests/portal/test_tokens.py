"""Signed inbox links and sessions: genuine ones verify; tampered, foreign, mistyped or expired ones do not."""

from __future__ import annotations

import pytest

from switchboard.api.portal import tokens

KEY = b"\x01" * 32
NOW = 1_800_000_000


def _issue(**overrides: object) -> str:
    values: dict[str, object] = {
        "typ": tokens.LINK,
        "tenant_id": "ten_1",
        "key_id": "key_1",
        "require_agent_login": True,
        "phone_number_id": "106540352242922",
        "now": NOW,
        "ttl_seconds": 900,
    }
    values.update(overrides)
    token, _ = tokens.issue(KEY, **values)  # type: ignore[arg-type]
    return token


def test_a_genuine_link_verifies_with_its_claims() -> None:
    claims = tokens.verify(KEY, _issue(), typ=tokens.LINK, now=NOW + 899)
    assert (claims.tid, claims.kid, claims.ral, claims.pn, claims.exp) == (
        "ten_1",
        "key_1",
        True,
        "106540352242922",
        NOW + 900,
    )


def test_two_links_differ_even_with_the_same_claims() -> None:
    assert _issue() != _issue()


@pytest.mark.parametrize(
    ("token", "typ", "now", "reason"),
    [
        (_issue(), tokens.LINK, NOW + 900, "expired"),
        (_issue(), tokens.SESSION, NOW, "bad signature"),
        (_issue(typ=tokens.SESSION), tokens.LINK, NOW, "bad signature"),
        (_issue(now=NOW + 3600), tokens.LINK, NOW, "issued in the future"),
        ("", tokens.LINK, NOW, "malformed"),
        ("a.b.c", tokens.LINK, NOW, "malformed"),
        ("x" * 3000, tokens.LINK, NOW, "malformed"),
        (_issue().split(".")[0] + ".%%%", tokens.LINK, NOW, "malformed"),
    ],
)
def test_bad_tokens_are_refused(token: str, typ: str, now: int, reason: str) -> None:
    with pytest.raises(tokens.BadToken) as refused:
        tokens.verify(KEY, token, typ=typ, now=now)
    assert refused.value.reason == reason


def test_a_changed_claim_breaks_the_signature() -> None:
    body, signature = _issue().split(".")
    claims = tokens._unb64(body).replace(b'"ten_1"', b'"ten_2"')
    with pytest.raises(tokens.BadToken, match="bad signature"):
        tokens.verify(KEY, f"{tokens._b64(claims)}.{signature}", typ=tokens.LINK, now=NOW)


def test_another_secret_does_not_verify() -> None:
    with pytest.raises(tokens.BadToken, match="bad signature"):
        tokens.verify(b"\x02" * 32, _issue(), typ=tokens.LINK, now=NOW)


def test_csrf_values_are_bound_to_their_session() -> None:
    value = tokens.csrf_token(KEY, "jti-1")
    assert tokens.csrf_matches(KEY, "jti-1", value)
    assert not tokens.csrf_matches(KEY, "jti-2", value)
    assert not tokens.csrf_matches(KEY, "jti-1", None)
    assert not tokens.csrf_matches(b"\x02" * 32, "jti-1", value)
