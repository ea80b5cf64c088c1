"""Pure foundation rules: key formats, limits, windows, secret sealing, media caps, tiers."""

from __future__ import annotations

import base64

import pytest

from switchboard.domain.api_keys import display_prefix, generate_key, hash_key, key_mode
from switchboard.domain.errors import Unauthorized, ValidationFailed
from switchboard.domain.media import check_media, media_kind_for
from switchboard.domain.rate_limits import Limits, limits_for, windows_at
from switchboard.domain.secrets_box import SecretDecryptionError, open_sealed, seal
from switchboard.domain.throughput import TierRates, per_second

KEY = b"\x07" * 32


@pytest.mark.parametrize(
    ("key", "mode"),
    [("gsk_live_" + "a" * 43, "live"), ("gsk_test_" + "B-_9" * 10, "test")],
)
def test_key_mode_from_prefix(key: str, mode: str):
    assert key_mode(key) == mode


@pytest.mark.parametrize(
    "key",
    [
        "",
        "gsk_live_",
        "gsk_live_short",
        "gsk_prod_" + "a" * 40,
        "GSK_LIVE_" + "a" * 40,
        "gsk_live_" + "a" * 30 + "!",
        "gsk_live_" + "a" * 129,
    ],
)
def test_malformed_keys(key: str):
    with pytest.raises(Unauthorized) as err:
        key_mode(key)
    assert err.value.code == "MALFORMED_API_KEY"


def test_generated_keys_are_valid_and_hash_stably():
    key = generate_key("live", b"\x01" * 32)
    assert key_mode(key) == "live"
    assert hash_key(key) == hash_key(key) and len(hash_key(key)) == 64
    assert display_prefix(key) == key[:13] and len(display_prefix(key)) < len(key)
    with pytest.raises(ValueError):
        generate_key("test", b"\x01" * 8)


@pytest.mark.parametrize(
    ("mode", "plan", "custom", "expected"),
    [
        ("test", "high_volume", (None, None), Limits(10, 1_000)),
        ("live", "standard", (None, None), Limits(100, 100_000)),
        ("live", "high_volume", (None, None), Limits(500, 1_000_000)),
        ("live", "enterprise", (None, None), Limits(500, 1_000_000)),
        ("live", "enterprise", (2_000, 50_000_000), Limits(2_000, 50_000_000)),
        ("live", "standard", (2_000, 50_000_000), Limits(100, 100_000)),
    ],
)
def test_limits_by_mode_and_plan(mode, plan, custom, expected):
    assert limits_for(mode=mode, plan=plan, custom_per_second=custom[0], custom_per_day=custom[1]) == expected


def test_windows_at_second_and_utc_day():
    windows = windows_at("key_1", 86_400 * 3 + 5.7)
    assert windows.second_bucket == "key_1:s:259205" and windows.second_reset == 259_206
    assert windows.day_bucket == "key_1:d:3" and windows.day_reset == 86_400 * 4


def test_seal_round_trip_and_fresh_nonce():
    one = seal(KEY, "token", associated_data="binding_1")
    two = seal(KEY, "token", associated_data="binding_1")
    assert one != two
    assert open_sealed(KEY, one, associated_data="binding_1") == "token"
    assert "token" not in base64.b64decode(one).decode(errors="ignore")


@pytest.mark.parametrize(
    ("key", "aad", "token"),
    [(b"\x08" * 32, "binding_1", None), (KEY, "binding_2", None), (KEY, "binding_1", "bm90IHNlYWxlZA==")],
    ids=["wrong-key", "wrong-associated-data", "not-sealed"],
)
def test_open_refuses_wrong_key_aad_or_garbage(key, aad, token):
    sealed = token or seal(KEY, "token", associated_data="binding_1")
    with pytest.raises(SecretDecryptionError):
        open_sealed(key, sealed, associated_data=aad)


@pytest.mark.parametrize(
    ("media_type", "mime", "size", "ok"),
    [
        ("image", "image/jpeg", 1000, True),
        ("image", "image/png; charset=x", 5 * 1024 * 1024, True),
        ("image", "image/png", 5 * 1024 * 1024 + 1, False),
        ("image", "image/gif", 10, False),
        ("sticker", "image/webp", 500 * 1024, True),
        ("document", "application/pdf", 100, True),
        ("audio", "audio/ogg", 0, False),
        ("video", "video/mp4", 16 * 1024 * 1024, True),
    ],
)
def test_media_rules(media_type, mime, size, ok):
    if ok:
        assert check_media(media_type, mime, size) == mime.split(";")[0]
    else:
        with pytest.raises(ValidationFailed):
            check_media(media_type, mime, size)


def test_media_kind_for_mime():
    assert media_kind_for("application/pdf") == "document"
    assert media_kind_for("image/webp") == "sticker"
    assert media_kind_for("application/zip") is None


@pytest.mark.parametrize(
    ("tier", "expected"), [("standard", 80), ("medium", 200), ("high", 1000), ("unlimited", None)]
)
def test_throughput_tiers(tier, expected):
    assert per_second(tier, TierRates()) == expected
