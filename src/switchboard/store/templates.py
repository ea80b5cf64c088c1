"""SQL for message templates.

``Template.updated_at`` is the as-of time of the status a row holds (see
``domain.template_status``): a full read of the upstream (create, ``/sync``,
the periodic sync) and a status webhook each move it forward, never back, and
a fact older than it never overwrites the status.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import select
from sqlmodel.sql.expression import SelectOfScalar

from switchboard.domain.template_status import later, read_is_current
from switchboard.domain.templates import TemplateRecordFields
from switchboard.models.base import utcnow
from switchboard.models.messaging import Template


async def _by_name(
    session: AsyncSession, *, waba_id: str, name: str, language: str, lock: bool = False
) -> Template | None:
    stmt = select(Template).where(
        Template.waba_id == waba_id, Template.name == name, Template.language == language
    )
    if lock:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def upsert_template(
    session: AsyncSession,
    *,
    tenant_id: str,
    waba_id: str,
    fields: TemplateRecordFields,
    read_at: datetime | None = None,
) -> Template:
    """Insert or refresh the template of (waba, name, language) from an upstream read started at ``read_at``.

    The definition (components, parameter_format, category, upstream id) is
    always refreshed; the status only when no newer fact (a webhook received
    while the read was under way) is already stored.
    """
    read_at = read_at or utcnow()
    row = await _by_name(session, waba_id=waba_id, name=fields.name, language=fields.language, lock=True)
    if row is None:
        row = Template(
            tenant_id=tenant_id,
            waba_id=waba_id,
            name=fields.name,
            language=fields.language,
            category=fields.category or "UTILITY",
            status=fields.status,
            updated_at=read_at,
        )
        session.add(row)
    row.upstream_id = fields.upstream_id or row.upstream_id
    row.category = fields.category or row.category
    row.parameter_format = fields.parameter_format
    row.components = fields.components
    if read_is_current(read_at, row.updated_at):
        row.status = fields.status
        row.updated_at = later(read_at, row.updated_at)
    await session.flush()
    return row


async def record_read(
    session: AsyncSession,
    *,
    tenant_id: str,
    waba_id: str,
    entries: Iterable[TemplateRecordFields],
    read_at: datetime,
) -> list[Template]:
    """Store one full read of a WABA's templates (``/sync`` and the periodic sync share it)."""
    return [
        await upsert_template(session, tenant_id=tenant_id, waba_id=waba_id, fields=fields, read_at=read_at)
        for fields in entries
        if fields.name and fields.language
    ]


async def template_for_update(
    session: AsyncSession, *, waba_id: str, upstream_id: str | None, name: str | None, language: str | None
) -> Template | None:
    """The stored template a webhook names (by upstream id, else name and language), locked."""
    if upstream_id:
        stmt = (
            select(Template)
            .where(Template.waba_id == waba_id, Template.upstream_id == upstream_id)
            .with_for_update()
        )
        found = (await session.execute(stmt)).scalars().first()
        if found is not None:
            return found
    if name and language:
        return await _by_name(session, waba_id=waba_id, name=name, language=language, lock=True)
    return None


def templates_of(*, tenant_id: str, waba_id: str) -> SelectOfScalar[Template]:
    """The stored templates of one of the tenant's WABAs, by name and language."""
    return (
        select(Template)
        .where(Template.tenant_id == tenant_id, Template.waba_id == waba_id)
        .order_by(Template.name, Template.language)
    )
