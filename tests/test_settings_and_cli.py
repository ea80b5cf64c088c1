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

from switchboard.settings import Settings

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
        [sys.executable, "-m", "switchboard.cli", "admin", *args, "--json"],
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
        [sys.executable, "-m", "switchboard.cli", "admin", "create-key", "ten_missing"],
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
    from switchboard.settings import Settings

    assert Settings(database_url=pasted).database_url == used


def _settings_on(url: str) -> Settings:
    return Settings(
        SWITCHBOARD_ENV="test",
        database_url=url,
        switchboard_secrets_key=base64.b64encode(b"\x04" * 32).decode(),
    )


async def _known(url: str, demo: dict) -> bool:
    from switchboard.dev_demo import demo_is_known
    from switchboard.store.database import create_engine, session_factory, unit_of_work

    engine = create_engine(url)
    try:
        async with unit_of_work(session_factory(engine)) as session:
            return await demo_is_known(session, demo)
    finally:
        await engine.dispose()


async def test_dev_reuses_known_demo_keys_and_replaces_those_a_new_database_lacks(
    databases, tmp_path, monkeypatch
):
    from switchboard.dev_demo import DEMO_FILE, bootstrap_demo

    monkeypatch.chdir(tmp_path)
    DEMO_FILE.parent.mkdir()
    first_db, second_db = databases.fresh(), databases.fresh()
    try:
        demo, note = await bootstrap_demo(_settings_on(first_db))
        assert note is None and demo["live_key"].startswith("gsk_live_")
        assert json.loads(DEMO_FILE.read_text()) == demo

        again, note = await bootstrap_demo(_settings_on(first_db))
        assert (again, note) == (demo, None)

        # The database file was removed: a new, empty database knows none of the saved keys.
        fresh, note = await bootstrap_demo(_settings_on(second_db))
        assert note is not None and "unknown to the database" in note
        assert fresh["live_key"] != demo["live_key"] and fresh["tenant_id"] != demo["tenant_id"]
        assert json.loads(DEMO_FILE.read_text()) == fresh
        assert await _known(second_db, fresh) and not await _known(second_db, demo)
    finally:
        databases.drop(first_db)
        databases.drop(second_db)


async def test_dev_issues_new_keys_for_the_demo_tenant_when_its_saved_key_was_revoked(
    database_url, tmp_path, monkeypatch
):
    from switchboard.dev_demo import DEMO_FILE, bootstrap_demo
    from switchboard.domain.api_keys import hash_key
    from switchboard.models.base import utcnow
    from switchboard.store import tenancy
    from switchboard.store.database import create_engine, session_factory, unit_of_work

    monkeypatch.chdir(tmp_path)
    DEMO_FILE.parent.mkdir()
    demo, _ = await bootstrap_demo(_settings_on(database_url))
    engine = create_engine(database_url)
    async with unit_of_work(session_factory(engine)) as session:
        key, _ = await tenancy.find_key(session, hash_key(demo["live_key"]))
        await tenancy.revoke_key(session, key.id, at=utcnow())
    await engine.dispose()

    renewed, note = await bootstrap_demo(_settings_on(database_url))
    assert note is not None
    assert renewed["live_key"] != demo["live_key"]
    assert (renewed["tenant_id"], renewed["phone_id"]) == (demo["tenant_id"], demo["phone_id"])
    assert await _known(database_url, renewed)


_MIGRATE_IN_A_FRESH_PROCESS = """
import sys
from switchboard.logs import configure_logging
from switchboard.store.migrate import upgrade_to_head
configure_logging("INFO")
upgrade_to_head(sys.argv[1], quiet=sys.argv[2] == "quiet")
"""


@pytest.mark.parametrize("quiet", [True, False])
def test_dev_migrations_log_nothing_unless_verbose(tmp_path, quiet):
    # A fresh interpreter: Alembic logs its plugins at INFO when it is first imported.
    url = f"sqlite+aiosqlite:///{tmp_path / 'dev.db'}"
    result = subprocess.run(
        [sys.executable, "-c", _MIGRATE_IN_A_FRESH_PROCESS, url, "quiet" if quiet else "verbose"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    alembic_lines = [line for line in result.stderr.splitlines() if '"logger": "alembic' in line]
    if quiet:
        assert result.stderr == "" and result.stdout == ""
    else:
        assert any("Running upgrade" in line for line in alembic_lines)


def test_dev_points_api_simulator_and_temporal_at_each_others_ports():
    script = (
        "import os\nfrom switchboard import devstack\n"
        "devstack.use_ports(api_port=18001, sim_port=18101, temporal_port=17234)\n"
        "from switchboard.settings import Settings\n"
        "s = Settings()\n"
        "print(s.channel_api_base_url, s.simulator_webhook_url, s.public_base_url, s.temporal_address)\n"
    )
    env = {
        k: v for k, v in os.environ.items() if k.upper() not in {"CHANNEL_API_BASE_URL", "TEMPORAL_ADDRESS"}
    }
    env |= {"PUBLIC_BASE_URL": "https://sb.example"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "http://127.0.0.1:18101",
        "http://127.0.0.1:18001/channel/webhook",
        "https://sb.example",
        "127.0.0.1:17234",
    ]


@pytest.mark.parametrize(("environment", "taken"), [("development", True), ("production", False)])
def test_cli_takes_unset_dev_secrets_from_the_dev_env_file(tmp_path, environment, taken):
    env_file = tmp_path / "env"
    env_file.write_text("# generated\nSWITCHBOARD_ADMIN_KEY=adm_from_file\nCHANNEL_VERIFY_TOKEN=from-file\n")
    script = (
        "import os, sys, pathlib\nfrom switchboard import cli\n"
        "cli.use_dev_secrets(pathlib.Path(sys.argv[1]))\n"
        "print(os.environ.get('SWITCHBOARD_ADMIN_KEY'), os.environ.get('CHANNEL_VERIFY_TOKEN'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k.upper() != "SWITCHBOARD_ADMIN_KEY"}
    env |= {"SWITCHBOARD_ENV": environment, "CHANNEL_VERIFY_TOKEN": "from-environment"}
    result = subprocess.run(
        [sys.executable, "-c", script, str(env_file)], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "adm_from_file" if taken else "None",
        "from-environment",
    ]
