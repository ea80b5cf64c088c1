"""`switchboard admin`: operator provisioning that mirrors the /v1/admin endpoints.

The commands work directly on the database, so an operator can provision before any API runs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import typer

from switchboard.cli_settings import cli_settings
from switchboard.settings import Settings

admin = typer.Typer(help="Operator provisioning (mirrors /v1/admin endpoints).", no_args_is_help=True)


def _run_admin(operation: Callable[[Any, Settings], Awaitable[dict[str, Any]]], as_json: bool) -> None:
    from switchboard.store.database import create_engine, session_factory, unit_of_work

    settings = cli_settings()

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
