"""The one tenant-scoping mechanism every tenant-owned query goes through.

A resource that exists but belongs to another tenant is indistinguishable from
one that does not exist: both are a 404 (spec: Authentication, tenant scoping).
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.expression import SelectOfScalar

from switchboard.domain.errors import NotFound

T = TypeVar("T", bound=SQLModel)


def owned(model: type[T], tenant_id: str) -> SelectOfScalar[T]:
    """``SELECT model WHERE tenant_id = :tenant_id``, to refine further."""
    # T is any SQLModel: mypy cannot know the model has tenant_id (every tenant-owned one does).
    return select(model).where(col(model.tenant_id) == tenant_id)  # type: ignore[attr-defined]


async def get_owned(
    session: AsyncSession, model: type[T], tenant_id: str, resource_id: str, *, resource: str, **by: Any
) -> T:
    """The tenant's row with this id (or the given column values), else NotFound."""
    stmt = owned(model, tenant_id)
    if by:
        for column, value in by.items():
            stmt = stmt.where(getattr(model, column) == value)
    else:
        stmt = stmt.where(col(model.id) == resource_id)  # type: ignore[attr-defined]  # as in owned()
    row = (await session.execute(stmt)).scalars().first()
    if row is None:
        raise NotFound(resource, resource_id)
    return row
