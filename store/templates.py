"""SQL for message templates."""

from __future__ import annotations

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import select

from domain.templates import TemplateRecordFields
from models.base import utcnow
from models.messaging import Template


async def upsert_template(
    session: AsyncSession, *, tenant_id: str, waba_id: str, fields: TemplateRecordFields
) -> Template:
    """Insert or refresh the template of (waba, name, language) from upstream facts."""
    row = (
        (
            await session.execute(
                select(Template).where(
                    Template.waba_id == waba_id,
                    Template.name == fields.name,
                    Template.language == fields.language,
                )
            )
        )
        .scalars()
        .first()
    )
    if row is None:
        row = Template(
            tenant_id=tenant_id,
            waba_id=waba_id,
            name=fields.name,
            language=fields.language,
            category=fields.category or "UTILITY",
        )
        session.add(row)
    row.upstream_id = fields.upstream_id or row.upstream_id
    row.category = fields.category or row.category
    row.status = fields.status
    row.parameter_format = fields.parameter_format
    row.components = fields.components
    row.updated_at = utcnow()
    await session.flush()
    return row


def templates_of(*, tenant_id: str, waba_id: str) -> Select[tuple[Template]]:
    """The stored templates of one of the tenant's WABAs, by name and language."""
    return (
        select(Template)
        .where(Template.tenant_id == tenant_id, Template.waba_id == waba_id)
        .order_by(Template.name, Template.language)
    )
