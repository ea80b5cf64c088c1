"""Agent bindings (deploy a version to a scope) and the operator-only call that sets their secrets."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, status
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.api.deps import Caller, Operator, OwnerOrAdmin, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import MissingRequiredField, ValidationFailed
from switchboard.models.agents import AgentBinding, BindingScope
from switchboard.models.agents_api import (
    SECRET_NAME_PATTERN,
    BindingCreate,
    BindingPublic,
    BindingSecretsSet,
    BindingUpdate,
    Deleted,
    chosen_base_url,
    effective_params,
    stored_params,
)
from switchboard.models.tenancy import Tenant
from switchboard.store import agents as store

router = APIRouter(prefix="/v1", tags=["agent bindings"], route_class=JsonRoute)

MAX_SECRETS = 50
MAX_SECRET_LENGTH = 16_384
_SECRET_NAME = re.compile(SECRET_NAME_PATTERN)


async def _public(
    session: AsyncSession, bindings: list[AgentBinding], *, default_days: int
) -> list[BindingPublic]:
    guardrails = await store.binding_guardrails(session, bindings)
    tenant = await session.get(Tenant, bindings[0].tenant_id) if bindings else None
    platform_managed = bool(tenant and tenant.platform_managed)
    return [
        BindingPublic.of(
            b,
            effective=effective_params(
                b.params,
                guardrails.get(b.agent_version_id, {}),
                default_inactive_reset_days=default_days,
                platform_managed=platform_managed,
            ),
        )
        for b in bindings
    ]


@router.post("/agent-bindings", status_code=status.HTTP_201_CREATED)
async def create_binding(
    body: BindingCreate, who: OwnerOrAdmin, session: Session, state: State
) -> BindingPublic:
    """Deploy a version to the tenant, a customer (customer_id) or a phone number (phone_number_id)."""
    _, base_url = chosen_base_url(body)
    binding = await store.create_binding(
        session,
        who.tenant_id,
        name=body.name,
        agent_version_id=body.agent_version_id,
        scope=body.scope,
        customer_id=body.customer_id,
        phone_number_id=body.phone_number_id,
        base_url=base_url,
        params=stored_params(body.params),
        reglas=body.reglas,
        enabled=body.enabled,
    )
    return (await _public(session, [binding], default_days=state.settings.agent_inactive_reset_days))[0]


@router.get("/agent-bindings")
async def list_bindings(
    who: Caller,
    session: Session,
    state: State,
    paging: Paging,
    scope: BindingScope | None = Query(default=None),
    enabled: bool | None = Query(default=None),
    agent_id: str | None = Query(default=None),
    agent_version_id: str | None = Query(default=None),
) -> dict[str, Any]:
    """List the tenant's bindings, optionally filtered by scope, enabled, agent or version."""
    rows, total = await store.list_bindings(
        session,
        who.tenant_id,
        page=paging.page,
        per_page=paging.per_page,
        scope=scope,
        enabled=enabled,
        agent_id=agent_id,
        agent_version_id=agent_version_id,
    )
    data = await _public(session, rows, default_days=state.settings.agent_inactive_reset_days)
    return envelope(data, paging=paging, total=total)


@router.get("/agent-bindings/{binding_id}")
async def get_binding(binding_id: str, who: Caller, session: Session, state: State) -> BindingPublic:
    """One binding, with has_secrets and never the secrets."""
    binding = await store.get_binding(session, who.tenant_id, binding_id)
    return (await _public(session, [binding], default_days=state.settings.agent_inactive_reset_days))[0]


@router.patch("/agent-bindings/{binding_id}")
async def update_binding(
    binding_id: str, body: BindingUpdate, who: OwnerOrAdmin, session: Session, state: State
) -> BindingPublic:
    """Change the deployed version, params (replaced whole; base_url kept unless named), reglas (replaced
    whole), enabled, name or base_url (top level or params.base_url; null clears it)."""
    changes = body.model_dump(exclude_unset=True)
    changes.pop("base_url", None)
    sets_base_url, base_url = chosen_base_url(body)
    if sets_base_url:
        changes["base_url"] = base_url
    if body.params is not None:
        changes["params"] = stored_params(body.params)
    binding = await store.update_binding(session, who.tenant_id, binding_id, changes)
    return (await _public(session, [binding], default_days=state.settings.agent_inactive_reset_days))[0]


@router.delete("/agent-bindings/{binding_id}")
async def delete_binding(binding_id: str, who: OwnerOrAdmin, session: Session) -> Deleted:
    """Delete a binding and its secrets."""
    await store.delete_binding(session, who.tenant_id, binding_id)
    return Deleted(id=binding_id)


@router.post("/admin/agent-bindings/{binding_id}/secrets")
async def set_binding_secrets(
    binding_id: str,
    _: Operator,
    who: OwnerOrAdmin,
    session: Session,
    state: State,
    payload: Annotated[Any, Body()],
) -> BindingSecretsSet:
    """Replace a binding's secrets (X-Admin-Key plus an owner or admin X-API-Key); they are never returned."""
    secrets = _secrets_from(payload)
    binding = await store.set_binding_secrets(
        session, who.tenant_id, binding_id, secrets, key=state.settings.secrets_key_bytes
    )
    names = sorted(binding.secrets_encrypted)
    return BindingSecretsSet(binding_id=binding.id, has_secrets=bool(names), secret_names=names)


def _secrets_from(payload: Any) -> dict[str, str]:
    """Check the body by hand so that no error message or detail can echo a secret value."""
    if not isinstance(payload, dict):
        raise ValidationFailed("the body must be an object with a secrets object", code="VALIDATION_FAILED")
    unknown = sorted(set(payload) - {"secrets"})
    if unknown:
        raise ValidationFailed(
            f"unknown field {unknown[0]}", code="VALIDATION_FAILED", details={"field": unknown[0]}
        )
    if "secrets" not in payload:
        raise MissingRequiredField("secrets")
    secrets = payload["secrets"]
    if not isinstance(secrets, dict):
        raise ValidationFailed(
            "secrets must be an object of name to string value",
            code="VALIDATION_FAILED",
            details={"field": "secrets"},
        )
    if len(secrets) > MAX_SECRETS:
        raise ValidationFailed(
            f"at most {MAX_SECRETS} secrets per binding",
            code="VALIDATION_FAILED",
            details={"field": "secrets"},
        )
    for name, value in secrets.items():
        field = f"secrets.{name}"
        if not _SECRET_NAME.match(name):
            raise ValidationFailed(
                "secret names are 1 to 64 letters, digits, _ or -, not starting with a digit or -",
                code="VALIDATION_FAILED",
                details={"field": "secrets", "name": name[:64]},
            )
        if not isinstance(value, str) or not value:
            raise ValidationFailed(
                f"{field} must be a non-empty string", code="VALIDATION_FAILED", details={"field": field}
            )
        if len(value) > MAX_SECRET_LENGTH:
            raise ValidationFailed(
                f"{field} is longer than {MAX_SECRET_LENGTH} characters",
                code="VALIDATION_FAILED",
                details={"field": field},
            )
    return dict(secrets)
