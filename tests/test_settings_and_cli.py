"""Settings refuse insecure production starts; the `switchboard admin` commands provision."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest
from pydantic import ValidationError

from settings import Settings

GOOD = {
    "SWITCHBOARD_ENV": "production",
    "database_url": "postgresql+psycopg://u:p@db/switchboard",
    "switchboard_admin_key": "x" * 32,
    "switchboard_secrets_key": base64.b64encode(b"\x02" * 32).decode(),
    "channel_app_secret": "app-secret-value",
    "channel_verify_token": "verify-token-value",
}


def test_production_starts_with_real_secrets():
    assert Settings(**GOOD).environment == "production"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("switchboard_admin_key", ""),
        ("switchboard_admin_key", "admin"),
        ("switchboard_admin_key", "short"),
        ("switchboard_secrets_key", ""),
        ("switchboard_secrets_key", "bm90LTMyLWJ5dGVz"),
        ("channel_app_secret", ""),
        ("channel_verify_token", "changeme"),
        ("database_url", "sqlite+aiosqlite:///x.db"),
    ],
)
def test_production_refuses_missing_or_default_secrets(field, value):
    with pytest.raises(ValidationError, match="refusing to start in production"):
        Settings(**{**GOOD, field: value})


def test_development_tolerates_missing_secrets():
    assert Settings(SWITCHBOARD_ENV="development").switchboard_admin_key == ""


def _cli(*args: str, database_url: str, secrets_key: str) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "SWITCHBOARD_SECRETS_KEY": secrets_key,
        "SWITCHBOARD_ENV": "test",
        "LOG_LEVEL": "WARNING",
    }
    result = subprocess.run(
        [sys.executable, "-m", "cli", "admin", *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_admin_commands_provision_a_tenant(database_url):
    key = base64.b64encode(b"\x03" * 32).decode()
    tenant = _cli(
        "create-tenant", "Acme", "--plan", "high_volume", database_url=database_url, secrets_key=key
    )
    assert tenant["plan"] == "high_volume"
    api_key = _cli(
        "create-key",
        tenant["id"],
        "--mode",
        "test",
        "--role",
        "admin",
        database_url=database_url,
        secrets_key=key,
    )
    assert api_key["key"].startswith("gsk_test_") and api_key["role"] == "admin"
    customer = _cli("create-customer", tenant["id"], "Clinic", database_url=database_url, secrets_key=key)
    waba = _cli(
        "create-waba",
        tenant["id"],
        "555000111",
        "--access-token",
        "tok",
        database_url=database_url,
        secrets_key=key,
    )
    assert "access_token" not in waba
    phone = _cli(
        "create-phone-number",
        tenant["id"],
        "555000222",
        "+1 555",
        "555000111",
        "--customer-id",
        customer["id"],
        "--hidden-from-inbox",
        database_url=database_url,
        secrets_key=key,
    )
    assert phone["hidden_from_inbox"] is True and phone["id"].startswith("pn_")
    updated = _cli(
        "update-tenant",
        tenant["id"],
        "--cost-cap-day-usd",
        "75.5",
        "--notification-email",
        "o@x.test",
        database_url=database_url,
        secrets_key=key,
    )
    assert (Decimal(updated["cost_cap_day_usd"]), updated["notification_email"]) == (
        Decimal("75.5"),
        "o@x.test",
    )
    revoked = _cli("revoke-key", api_key["id"], database_url=database_url, secrets_key=key)
    assert revoked["revoked"] is True


def test_admin_command_errors_exit_non_zero(database_url):
    env = {**os.environ, "DATABASE_URL": database_url, "SWITCHBOARD_ENV": "test", "LOG_LEVEL": "WARNING"}
    result = subprocess.run(
        [sys.executable, "-m", "cli", "admin", "create-key", "ten_missing"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 1
    assert "tenant ten_missing not found" in result.stderr


@pytest.mark.parametrize(
    ("pasted", "used"),
    [
        ("postgresql://u:p@db:5432/sb", "postgresql+psycopg://u:p@db:5432/sb"),
        ("postgres://u:p@db/sb?sslmode=require", "postgresql+psycopg://u:p@db/sb?sslmode=require"),
        ("postgresql+psycopg://u:p@db/sb", "postgresql+psycopg://u:p@db/sb"),
        ("sqlite:////var/lib/sb.db", "sqlite+aiosqlite:////var/lib/sb.db"),
        ("sqlite:///relative.db", "sqlite+aiosqlite:///relative.db"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite:///x.db"),
        (" postgres://db/sb ", "postgresql+psycopg://db/sb"),
    ],
)
def test_database_url_accepts_pasted_forms(pasted, used):
    from settings import Settings

    assert Settings(database_url=pasted).database_url == used
