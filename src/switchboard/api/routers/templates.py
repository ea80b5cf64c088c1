"""Message templates of a WABA: create upstream, sync from upstream, list.

Status webhooks (``store.inbound.templates``) and the hourly ``SyncTemplates``
schedule keep statuses current without ``/sync``; the endpoint stays for an
immediate read and shares its paging and storing with the schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, cast

from fastapi import APIRouter, Body
from pydantic import BaseModel

from switchboard.activities.template_sync import pull_templates
from switchboard.api.deps import Caller, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.api.upstream import call_for_waba
from switchboard.domain.templates import (
    TemplateRecordFields,
    cloud_template_create_body,
    validate_template_definition,
)
from switchboard.models.base import iso_millis, new_id, utcnow
from switchboard.models.messaging import Template
from switchboard.store import templates, tenancy
from switchboard.store.database import unit_of_work
from switchboard.store.pagination import paginate

router = APIRouter(prefix="/v1/wabas/{waba_id}/templates", tags=["templates"], route_class=JsonRoute)


class TemplatePublic(BaseModel):
    id: str
    waba_id: str
    upstream_id: str | None
    name: str
    language: str
    category: str
    status: str
    parameter_format: str
    components: list[dict[str, Any]]
    updated_at: str

    @classmethod
    def of(cls, t: Template) -> TemplatePublic:
        return cls(
            id=t.id,
            waba_id=t.waba_id,
            upstream_id=t.upstream_id,
            name=t.name,
            language=t.language,
            category=t.category,
            status=t.status,
            parameter_format=t.parameter_format,
            components=t.components or [],
            updated_at=iso_millis(t.updated_at),
        )


@router.post("", status_code=201)
async def create_template(
    waba_id: str, state: State, who: Caller, body: Annotated[Any, Body()]
) -> TemplatePublic:
    """Validate a template, submit it upstream for approval and store it (status PENDING)."""
    definition = validate_template_definition(body)
    async with state.sessions() as session:
        waba = await tenancy.get_waba_for_tenant(session, who.tenant_id, waba_id)
    if who.is_sandbox:
        return _sandbox_template(waba_id, definition)
    answer = await call_for_waba(
        state, waba, "POST", f"{waba_id}/message_templates", json=cloud_template_create_body(definition)
    )
    fields = TemplateRecordFields(
        upstream_id=str(answer.get("id")) if answer.get("id") else None,
        name=definition.name,
        language=definition.language,
        category=answer.get("category") or definition.category,
        status=str(answer.get("status") or "PENDING").upper(),
        parameter_format=definition.parameter_format,
        components=definition.components,
    )
    async with unit_of_work(state.sessions) as session:
        row = await templates.upsert_template(
            session, tenant_id=who.tenant_id, waba_id=waba_id, fields=fields
        )
    return TemplatePublic.of(row)


@router.post("/sync")
async def sync_templates(waba_id: str, state: State, who: Caller) -> dict[str, Any]:
    """Pull every template of the WABA from the upstream, persisting status and parameter_format."""
    async with state.sessions() as session:
        waba = await tenancy.get_waba_for_tenant(session, who.tenant_id, waba_id)
    if who.is_sandbox:
        return {"synced": 0, "data": [], "sandbox": True}
    read_at = utcnow()

    async def get_page(params: dict[str, Any]) -> Mapping[str, Any]:
        page = await call_for_waba(state, waba, "GET", f"{waba_id}/message_templates", params=params)
        return cast(Mapping[str, Any], page)

    entries = await pull_templates(get_page)
    async with unit_of_work(state.sessions) as session:
        rows = await templates.record_read(
            session, tenant_id=who.tenant_id, waba_id=waba_id, entries=entries, read_at=read_at
        )
    return {"synced": len(rows), "data": [TemplatePublic.of(r).model_dump() for r in rows]}


@router.get("")
async def list_templates(waba_id: str, who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """The templates stored for this WABA (list envelope)."""
    await tenancy.get_waba_for_tenant(session, who.tenant_id, waba_id)
    rows, total = await paginate(
        session,
        templates.templates_of(tenant_id=who.tenant_id, waba_id=waba_id),
        page=paging.page,
        per_page=paging.per_page,
    )
    return envelope([TemplatePublic.of(r) for r in rows], paging=paging, total=total)


def _sandbox_template(waba_id: str, definition: Any) -> TemplatePublic:
    """A sandbox key's answer: validated like a live create, nothing sent or stored."""
    now = utcnow()
    return TemplatePublic(
        id=f"sandbox-{new_id('x', at=now)[2:]}",
        waba_id=waba_id,
        upstream_id=None,
        name=definition.name,
        language=definition.language,
        category=definition.category,
        status="PENDING",
        parameter_format=definition.parameter_format,
        components=definition.components,
        updated_at=iso_millis(now),
    )
