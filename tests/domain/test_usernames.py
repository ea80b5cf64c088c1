from __future__ import annotations

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.usernames import (
    username_error,
    username_request_body,
    username_status,
    validate_transfer_action,
    validate_username,
)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("abc", "abc"),
        ("lucky_shrimp", "lucky_shrimp"),
        ("Lucky.Shrimp", "lucky.shrimp"),
        ("a12", "a12"),
        ("_x_", "_x_"),
        ("x" * 35, "x" * 35),
        ("shop.company", "shop.company"),
        ("mywww", "mywww"),
    ],
)
def test_valid_usernames(raw: str, normalized: str) -> None:
    assert validate_username(raw) == normalized


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("ab", "3 to 35"),
        ("x" * 36, "3 to 35"),
        ("lucky shrimp", "only letters"),
        ("lucky-shrimp", "only letters"),
        ("señor", "only letters"),
        ("123", "at least one letter"),
        ("1_2.3", "at least one letter"),
        ("lucky..shrimp", "consecutive periods"),
        (".lucky", "start or end with a period"),
        ("lucky.", "start or end with a period"),
        ("wwwshop", "www"),
        ("WWW.shop", "www"),
        ("luckyshrimp.com", "domain suffix"),
        (12345, "must be a string"),
    ],
)
def test_invalid_usernames(raw: object, fragment: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_username(raw)
    assert caught.value.code == "INVALID_USERNAME"
    assert caught.value.status_code == 400
    assert caught.value.details == {"field": "username", "value": raw}
    assert fragment in caught.value.message


@pytest.mark.parametrize("raw", [None, "", "  "])
def test_missing_username(raw: object) -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_username(raw)
    assert caught.value.code == "MISSING_REQUIRED_FIELD"
    assert caught.value.details == {"field": "username"}


@pytest.mark.parametrize(
    ("raw", "action"), [(None, "none"), ("", "none"), ("none", "none"), ("force_transfer", "force_transfer")]
)
def test_transfer_action(raw: object, action: str) -> None:
    assert validate_transfer_action(raw) == action


@pytest.mark.parametrize("raw", ["force", "FORCE_TRANSFER", 1])
def test_bad_transfer_action(raw: object) -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_transfer_action(raw)
    assert caught.value.details == {"field": "transferAction", "value": raw}


def test_username_request_body() -> None:
    assert username_request_body("luckyshrimp") == {"username": "luckyshrimp", "transfer_action": "none"}
    assert username_request_body("luckyshrimp", transfer_action="force_transfer") == {
        "username": "luckyshrimp",
        "transfer_action": "force_transfer",
    }


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"status": "approved"}, "approved"),
        ({"status": "APPROVED"}, "approved"),
        ({"status": "reserved"}, "reserved"),
        ({"status": "pending"}, "reserved"),
        ({}, "reserved"),
        (None, "reserved"),
    ],
)
def test_username_status(body: object, status: str) -> None:
    assert username_status(body) == status


@pytest.mark.parametrize(
    ("upstream", "status", "code", "fragment"),
    [
        (147001, 409, "USERNAME_TAKEN", "taken by another business"),
        (147002, 403, "USERNAME_NOT_ELIGIBLE", "insufficient messaging tier"),
        (147003, 400, "INVALID_USERNAME", "format"),
        (147004, 409, "USERNAME_TRANSFER_NOT_ALLOWED", "cannot be transferred"),
        (147005, 409, "USERNAME_IN_USE_ON_OTHER_PHONE", "retry with transferAction force_transfer"),
    ],
)
def test_username_errors(upstream: int, status: int, code: str, fragment: str) -> None:
    error = username_error(upstream, upstream_message=f"(#{upstream}) upstream text")
    assert error is not None
    assert (error.status_code, error.code) == (status, code)
    assert fragment in error.message
    assert error.details is not None and error.details["upstream_code"] == upstream
    assert error.extra == {"error_message": f"(#{upstream}) upstream text"}


def test_147005_says_how_to_retry() -> None:
    error = username_error(147005)
    assert error is not None and error.details is not None
    assert error.details["retry_with"] == {"transferAction": "force_transfer"}


@pytest.mark.parametrize("upstream", [None, 100, 131000, 147000, 147006])
def test_other_codes_are_left_to_the_general_mapping(upstream: int | None) -> None:
    assert username_error(upstream) is None
