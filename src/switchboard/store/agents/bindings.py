"""Agent bindings: deploy a version to the tenant, one customer or one phone number."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.errors import (
    Conflict,
    MissingRequiredField,
    NotFound,
    Unprocessable,
    ValidationFailed,
)
from switchboard.domain.tools import uses_base_url
from switchboard.models.agents import AgentBinding, AgentTool, AgentVersion, BindingScope
from switchboard.models.base import utcnow
from switchboard.models.tenancy import Customer, PhoneNumber
from switchboard.store.agents.versions import get_version
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned

PUBLIC_PHONE_ID_PREFIX = "pn_"


async def get_binding(session: AsyncSession, tenant_id: str, binding_id: str) -> AgentBinding:
    """The tenant's binding, else NotFound."""
    return await get_owned(session, AgentBinding, tenant_id, binding_id, resource="agent binding")


async def list_bindings(
    session: AsyncSession, tenant_id: str, *, page: int, per_page: int, **filters: Any
) -> tuple[list[AgentBinding], int]:
    """One page of the tenant's bindings, oldest first; ``filters`` are column equalities (None = any)."""
    stmt = owned(AgentBinding, tenant_id)
    for column, value in filters.items():
        if value is not None:
            stmt = stmt.where(getattr(AgentBinding, column) == value)
    return await paginate(session, stmt.order_by(AgentBinding.id), page=page, per_page=per_page)


async def binding_guardrails(
    session: AsyncSession, bindings: Iterable[AgentBinding]
) -> dict[str, dict[str, Any]]:
    """The guardrails_config of each binding's version, by version id (params override them)."""
    ids = {b.agent_version_id for b in bindings}
    if not ids:
        return {}
    rows = await session.execute(
        select(AgentVersion.id, AgentVersion.guardrails_config).where(col(AgentVersion.id).in_(ids))
    )
    return {version_id: config for version_id, config in rows.all()}


async def create_binding(
    session: AsyncSession,
    tenant_id: str,
    *,
    name: str,
    agent_version_id: str,
    scope: BindingScope,
    customer_id: str | None,
    phone_number_id: str | None,
    base_url: str | None,
    params: dict[str, Any],
    reglas: dict[str, Any],
    enabled: bool,
) -> AgentBinding:
    """Insert a binding after checking its version, its scope target and its params against the version."""
    version = await get_version(session, tenant_id, agent_version_id)
    customer_id, phone_number_id = await _scope_target(
        session, tenant_id, scope=scope, customer_id=customer_id, phone_number_id=phone_number_id
    )
    check_params(params, version)
    await check_base_url(session, tenant_id, base_url, version)
    binding = AgentBinding(
        tenant_id=tenant_id,
        name=name,
        agent_id=version.agent_id,
        agent_version_id=version.id,
        scope=scope,
        customer_id=customer_id,
        phone_number_id=phone_number_id,
        base_url=base_url,
        params=params,
        reglas=reglas,
        enabled=enabled,
    )
    session.add(binding)
    await session.flush()
    return binding


async def update_binding(
    session: AsyncSession, tenant_id: str, binding_id: str, changes: dict[str, Any]
) -> AgentBinding:
    """Apply changes (version, params, reglas, enabled, name, base_url) to the tenant's binding."""
    binding = await get_binding(session, tenant_id, binding_id)
    version_id = changes.get("agent_version_id", binding.agent_version_id)
    version = await get_version(session, tenant_id, version_id)
    check_params(changes.get("params", binding.params), version)
    if changes.keys() & {"agent_version_id", "params", "base_url"}:
        # Only changes of deployment config are checked, so a binding created before the rule can
        # still be renamed or disabled.
        await check_base_url(session, tenant_id, changes.get("base_url", binding.base_url), version)
    for field, value in changes.items():
        setattr(binding, field, value)
    binding.agent_id = version.agent_id
    binding.updated_at = utcnow()
    await session.flush()
    return binding


async def delete_binding(session: AsyncSession, tenant_id: str, binding_id: str) -> None:
    """Delete the tenant's binding (its sealed secrets go with it)."""
    binding = await get_binding(session, tenant_id, binding_id)
    await session.delete(binding)
    await session.flush()


def check_params(params: dict[str, Any], version: AgentVersion) -> None:
    """The wizard needs its reservation tool (one the deployed version lists) and a pedir_turno intent."""
    if not params.get("wizardEnabled"):
        return
    slug = params.get("wizardReserveToolSlug")
    if not slug:
        raise MissingRequiredField(
            "params.wizardReserveToolSlug",
            "params.wizardReserveToolSlug is required when wizardEnabled is true",
        )
    if slug not in version.tools:
        raise Unprocessable(
            f"wizardReserveToolSlug {slug} is not a tool of agent version {version.id}",
            code="UNKNOWN_TOOL",
            details={"field": "params.wizardReserveToolSlug", "slug": slug, "version_tools": version.tools},
        )
    intents = [
        intent.get("name")
        for intent in (version.routing or {}).get("intents") or []
        if isinstance(intent, dict)
    ]
    if "pedir_turno" not in intents:
        # CONTRACTS 7a: the wizard starts when the router lands on pedir_turno; without it it never would.
        raise Unprocessable(
            f"wizardEnabled needs a pedir_turno intent in the routing of agent version {version.id}",
            code="WIZARD_WITHOUT_INTENT",
            details={"field": "params.wizardEnabled", "intents": intents},
        )


async def check_base_url(
    session: AsyncSession, tenant_id: str, base_url: str | None, version: AgentVersion
) -> None:
    """A version whose tools read {{binding.base_url}} needs a binding that has one; else every call fails."""
    if base_url is not None or not version.tools:
        return
    rows = await session.execute(
        select(AgentTool.slug, AgentTool.declaration).where(
            AgentTool.tenant_id == tenant_id,
            col(AgentTool.is_current).is_(True),
            col(AgentTool.slug).in_(version.tools),
        )
    )
    needing = sorted(slug for slug, declaration in rows.all() if uses_base_url(declaration))
    if needing:
        raise Unprocessable(
            f"tools {', '.join(needing)} of agent version {version.id} call {{{{binding.base_url}}}}; "
            "set params.base_url (or base_url) on the binding",
            code="BASE_URL_REQUIRED",
            details={"field": "params.base_url", "tools": needing, "agent_version_id": version.id},
        )


async def _scope_target(
    session: AsyncSession,
    tenant_id: str,
    *,
    scope: BindingScope,
    customer_id: str | None,
    phone_number_id: str | None,
) -> tuple[str | None, str | None]:
    if scope == BindingScope.tenant:
        for field, value in (("customer_id", customer_id), ("phone_number_id", phone_number_id)):
            if value is not None:
                raise ValidationFailed(
                    f"{field} does not apply to scope tenant",
                    code="VALIDATION_FAILED",
                    details={"field": field},
                )
        return None, None
    if scope == BindingScope.customer:
        if customer_id is None:
            raise MissingRequiredField("customer_id", "customer_id is required for scope customer")
        if phone_number_id is not None:
            raise ValidationFailed(
                "phone_number_id does not apply to scope customer",
                code="VALIDATION_FAILED",
                details={"field": "phone_number_id"},
            )
        customer = await get_owned(session, Customer, tenant_id, customer_id, resource="customer")
        return customer.id, None
    if phone_number_id is None:
        raise MissingRequiredField("phone_number_id", "phone_number_id is required for scope phone_number")
    phone = await _tenant_phone(session, tenant_id, phone_number_id)
    if customer_id is not None:
        customer = await get_owned(session, Customer, tenant_id, customer_id, resource="customer")
        if phone.customer_id != customer.id:
            raise Conflict(
                f"phone number {phone.phone_number_id} does not belong to customer {customer.id}",
                code="PHONE_NUMBER_CUSTOMER_MISMATCH",
                details={
                    "field": "phone_number_id",
                    "phone_number_id": phone.phone_number_id,
                    "customer_id": customer.id,
                    "phone_customer_id": phone.customer_id,
                },
            )
    return customer_id, phone.phone_number_id


async def _tenant_phone(session: AsyncSession, tenant_id: str, reference: str) -> PhoneNumber:
    """A phone by its channel numeric id or its public ``pn_`` id; another tenant's is a 404."""
    stmt = owned(PhoneNumber, tenant_id)
    if reference.startswith(PUBLIC_PHONE_ID_PREFIX):
        stmt = stmt.where(PhoneNumber.id == reference)
    else:
        stmt = stmt.where(PhoneNumber.phone_number_id == reference)
    phone = (await session.execute(stmt)).scalars().first()
    if phone is None:
        raise NotFound("phone number", reference)
    return phone
