"""Offset pagination with a total count (CONTRACTS 6)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession


async def paginate(
    session: AsyncSession, stmt: Select[Any], *, page: int, per_page: int
) -> tuple[list[Any], int]:
    """One page of ``stmt``'s rows (already ordered) and the total row count."""
    total = (
        await session.execute(select(func.count()).select_from(stmt.order_by(None).subquery()))
    ).scalar_one()
    rows = (await session.execute(stmt.limit(per_page).offset((page - 1) * per_page))).scalars().all()
    return list(rows), int(total)
