"""The `switchboard` command (CONTRACTS 1).

Every process reads its configuration from the environment (settings.py).
`admin` subcommands mirror the operator provisioning endpoints and work
directly on the database, so an operator can provision before any API runs.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import typer
import uvicorn

from switchboard.logs import configure_logging
from switchboard.settings import Settings

app = typer.Typer(help="Switchboard: multi-tenant messaging with an AI-agents runtime.", no_args_is_help=True)
admin = typer.Typer(help="Operator provisioning (mirrors /v1/admin endpoints).", no_args_is_help=True)
app.add_typer(admin, name="admin")


DEV_ENV_FILE = Path(".switchboard") / "env"


def use_dev_secrets(env_file: Path = DEV_ENV_FILE) -> None:
    """Outside production, take variables still unset from the file `switchboard dev` generated.

    So `switchboard admin create-waba` next to `make dev` seals tokens with the same secrets key as
    the running service. The environment wins; production never reads the file.
    """
    # Settings reads the environment case-insensitively; so do these checks.
    present = {key.upper(): value for key, value in os.environ.items()}
    if present.get("SWITCHBOARD_ENV", "").strip().lower() == "production" or not env_file.is_file():
        return
    for line in env_file.read_text().splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.startswith("#") and name.strip().upper() not in present:
            os.environ[name.strip()] = value


def _settings() -> Settings:
    use_dev_secrets()
    settings = Settings()
    configure_logging(settings.log_level)
    return settings


@app.command()
def dev(
    api_port: int = 8000,
    simulator_port: int = 8100,
    temporal_port: int = 7233,
    temporal_ui_port: int = 8233,
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="also log the migrations applied at start-up"
    ),
) -> None:
    """Run everything on embedded defaults (Temporal dev server, SQLite, API, worker, simulator)."""
    from switchboard.devstack import ensure_dev_env, run_dev

    ensure_dev_env()
    configure_logging(Settings().log_level)
    asyncio.run(
        run_dev(
            api_port=api_port,
            sim_port=simulator_port,
            temporal_port=temporal_port,
            temporal_ui_port=temporal_ui_port,
            verbose=verbose,
        )
    )


@app.command()
def api(host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Run the HTTP API."""
    settings = _settings()
    if workers > 1:
        uvicorn.run("switchboard.api.asgi:app", host=host, port=port, workers=workers, log_level="warning")
        return
    from switchboard.api.app import create_app

    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning")


@app.command()
def worker() -> None:
    """Run a Temporal worker (same as `python -m switchboard.worker`)."""
    from switchboard.worker import run_worker

    asyncio.run(run_worker(_settings()))


@app.command()
def simulator(host: str = "127.0.0.1", port: int = 8100) -> None:
    """Run the channel simulator (a Cloud API subset for development and tests)."""
    from switchboard.simulator.app import SimulatorConfig, create_simulator_app

    settings = _settings()
    config = SimulatorConfig(
        app_secret=settings.channel_app_secret, webhook_url=settings.simulator_webhook_url
    )
    uvicorn.run(create_simulator_app(config), host=host, port=port, log_level="warning")


@app.command()
def migrate() -> None:
    """Apply database migrations up to the newest revision."""
    from switchboard.store.migrate import upgrade_to_head

    upgrade_to_head(_settings().database_url)
    typer.echo("database is at the newest revision")


def _run_admin(operation: Callable[[Any, Settings], Awaitable[dict[str, Any]]], as_json: bool) -> None:
    from switchboard.store.database import create_engine, session_factory, unit_of_work

    settings = _settings()

    async def go() -> dict[str, Any]:
        engine = create_engine(settings.database_url)
        try:
            async with unit_of_work(session_factory(engine)) as session:
                return await operation(session, settings)
        finally:
            await engine.dispose()

    try:
        result = asyncio.run(go())
    except Exception as exc:  # reported to the operator, exit non-zero
        typer.echo(f"error: {getattr(exc, 'message', exc)}", err=True)
        raise typer.Exit(1) from exc
    if as_json:
        typer.echo(json.dumps(result, default=str, indent=2))
    else:
        for key, value in result.items():
            typer.echo(f"{key}: {value}")


JSON_OPT = typer.Option(False, "--json", help="print the result as JSON")


@admin.command("create-tenant")
def create_tenant(
    name: str,
    plan: str = "standard",
    notification_email: str | None = None,
    cost_cap_thread_usd: str | None = None,
    cost_cap_day_usd: str | None = None,
    cost_cap_month_usd: str | None = None,
    as_json: bool = JSON_OPT,
) -> None:
    """Create a tenant (POST /v1/admin/tenants)."""
    from switchboard.models.tenancy_api import TenantCreate, TenantPublic
    from switchboard.store import provisioning

    body = TenantCreate(
        name=name,
        plan=plan,
        notification_email=notification_email,
        cost_cap_thread_usd=Decimal(cost_cap_thread_usd) if cost_cap_thread_usd else None,
        cost_cap_day_usd=Decimal(cost_cap_day_usd) if cost_cap_day_usd else None,
        cost_cap_month_usd=Decimal(cost_cap_month_usd) if cost_cap_month_usd else None,
    )

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        return TenantPublic.of(await provisioning.create_tenant(session, body)).model_dump()

    _run_admin(op, as_json)


@admin.command("update-tenant")
def update_tenant(
    tenant_id: str,
    plan: str | None = None,
    notification_email: str | None = None,
    rate_limit_per_second: int | None = None,
    rate_limit_per_day: int | None = None,
    cost_cap_thread_usd: str | None = None,
    cost_cap_day_usd: str | None = None,
    cost_cap_month_usd: str | None = None,
    as_json: bool = JSON_OPT,
) -> None:
    """Change a tenant (PATCH /v1/admin/tenants/{tenant_id})."""
    from switchboard.models.tenancy_api import TenantPublic, TenantUpdate
    from switchboard.store import provisioning

    fields = {
        "plan": plan,
        "notification_email": notification_email,
        "rate_limit_per_second": rate_limit_per_second,
        "rate_limit_per_day": rate_limit_per_day,
        "cost_cap_thread_usd": Decimal(cost_cap_thread_usd) if cost_cap_thread_usd else None,
        "cost_cap_day_usd": Decimal(cost_cap_day_usd) if cost_cap_day_usd else None,
        "cost_cap_month_usd": Decimal(cost_cap_month_usd) if cost_cap_month_usd else None,
    }
    body = TenantUpdate(**{k: v for k, v in fields.items() if v is not None})

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        return TenantPublic.of(await provisioning.update_tenant(session, tenant_id, body)).model_dump()

    _run_admin(op, as_json)


@admin.command("create-key")
def create_key(tenant_id: str, mode: str = "live", role: str = "member", as_json: bool = JSON_OPT) -> None:
    """Issue an API key (POST /v1/admin/tenants/{tenant_id}/api-keys); shown only now."""
    from switchboard.models.tenancy_api import ApiKeyCreate
    from switchboard.store import provisioning

    body = ApiKeyCreate(mode=mode, role=role)

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        key, plaintext = await provisioning.create_api_key(session, tenant_id, body)
        return {"id": key.id, "key": plaintext, "mode": key.mode, "role": key.role, "tenant_id": tenant_id}

    _run_admin(op, as_json)


@admin.command("revoke-key")
def revoke_key(key_id: str, as_json: bool = JSON_OPT) -> None:
    """Revoke an API key (DELETE /v1/admin/api-keys/{key_id})."""
    from switchboard.models.base import utcnow
    from switchboard.store import tenancy

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        key = await tenancy.revoke_key(session, key_id, at=utcnow())
        return {"id": key.id, "revoked": True, "revoked_at": key.revoked_at}

    _run_admin(op, as_json)


@admin.command("create-customer")
def create_customer(tenant_id: str, name: str, as_json: bool = JSON_OPT) -> None:
    """Create a customer (POST /v1/admin/tenants/{tenant_id}/customers)."""
    from switchboard.models.tenancy_api import CustomerCreate, CustomerPublic
    from switchboard.store import provisioning

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        customer = await provisioning.create_customer(session, tenant_id, CustomerCreate(name=name))
        return CustomerPublic.of(customer).model_dump()

    _run_admin(op, as_json)


@admin.command("update-customer")
def update_customer(
    tenant_id: str,
    customer_id: str,
    sending_paused: bool = typer.Option(..., "--sending-paused/--sending-resumed"),
    as_json: bool = JSON_OPT,
) -> None:
    """Pause or resume a customer's sending (PATCH .../customers/{customer_id})."""
    from switchboard.models.tenancy_api import CustomerPublic, CustomerUpdate
    from switchboard.store import provisioning

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        body = CustomerUpdate(sending_paused=sending_paused)
        return CustomerPublic.of(
            await provisioning.update_customer(session, tenant_id, customer_id, body)
        ).model_dump()

    _run_admin(op, as_json)


@admin.command("create-waba")
def create_waba(
    tenant_id: str,
    waba_id: str,
    access_token: str = typer.Option(..., prompt=True, hide_input=True),
    messaging_tier: str = "tier_1",
    as_json: bool = JSON_OPT,
) -> None:
    """Register a WABA (POST .../wabas); the token is stored encrypted."""
    from switchboard.models.tenancy_api import WabaCreate, WabaPublic
    from switchboard.store import provisioning

    body = WabaCreate(waba_id=waba_id, access_token=access_token, messaging_tier=messaging_tier)

    async def op(session: Any, settings: Settings) -> dict[str, Any]:
        waba = await provisioning.create_waba(
            session, tenant_id, body, secrets_key=settings.secrets_key_bytes
        )
        return WabaPublic.of(waba).model_dump()

    _run_admin(op, as_json)


@admin.command("create-phone-number")
def create_phone_number(
    tenant_id: str,
    phone_number_id: str,
    display_phone_number: str,
    waba_id: str,
    customer_id: str | None = None,
    throughput_tier: str = "standard",
    hidden_from_inbox: bool = False,
    as_json: bool = JSON_OPT,
) -> None:
    """Register a phone number (POST .../phone-numbers)."""
    from switchboard.models.tenancy_api import PhoneNumberCreate, PhoneNumberPublic
    from switchboard.store import provisioning

    body = PhoneNumberCreate(
        phone_number_id=phone_number_id,
        display_phone_number=display_phone_number,
        waba_id=waba_id,
        customer_id=customer_id,
        throughput_tier=throughput_tier,
        hidden_from_inbox=hidden_from_inbox,
    )

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        return PhoneNumberPublic.of(
            await provisioning.create_phone_number(session, tenant_id, body)
        ).model_dump()

    _run_admin(op, as_json)


@admin.command("update-phone-number")
def update_phone_number(
    tenant_id: str,
    phone_id: str,
    hidden_from_inbox: bool | None = typer.Option(None, "--hidden-from-inbox/--visible-in-inbox"),
    throughput_tier: str | None = None,
    as_json: bool = JSON_OPT,
) -> None:
    """Change a number's inbox visibility or throughput tier (PATCH .../phone-numbers/{phone_id})."""
    from switchboard.models.tenancy_api import PhoneNumberPublic, PhoneNumberUpdate
    from switchboard.store import provisioning

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        body = PhoneNumberUpdate(hidden_from_inbox=hidden_from_inbox, throughput_tier=throughput_tier)
        phone = await provisioning.update_phone_number(session, tenant_id, phone_id, body)
        return PhoneNumberPublic.of(phone).model_dump()

    _run_admin(op, as_json)


@admin.command("update-waba")
def update_waba(
    tenant_id: str,
    waba_id: str,
    messaging_tier: str | None = None,
    new_access_token: bool = typer.Option(False, "--access-token", help="prompt for a new access token"),
    as_json: bool = JSON_OPT,
) -> None:
    """Change a WABA's messaging tier or access token (PATCH .../wabas/{waba_id}); the token is sealed."""
    from switchboard.models.tenancy_api import WabaPublic, WabaUpdate
    from switchboard.store import provisioning

    token = typer.prompt("Access token", hide_input=True) if new_access_token else None

    async def op(session: Any, settings: Settings) -> dict[str, Any]:
        body = WabaUpdate(messaging_tier=messaging_tier, access_token=token)
        waba = await provisioning.update_waba(
            session, tenant_id, waba_id, body, secrets_key=settings.secrets_key_bytes
        )
        return WabaPublic.of(waba).model_dump()

    _run_admin(op, as_json)


@admin.command("delete-customer")
def delete_customer(
    tenant_id: str,
    customer_id: str,
    yes: bool = typer.Option(False, "--yes", help="do not ask for confirmation"),
    as_json: bool = JSON_OPT,
) -> None:
    """Delete a customer with its contacts and conversations (DELETE .../customers/{customer_id})."""
    from switchboard.store import provisioning

    if not yes:
        typer.confirm(f"Delete customer {customer_id} with its contacts and conversations?", abort=True)

    async def op(session: Any, _: Settings) -> dict[str, Any]:
        return (await provisioning.delete_customer(session, tenant_id, customer_id)).model_dump()

    _run_admin(op, as_json)


if __name__ == "__main__":
    app()
