"""A user message's business number and its ledger claim in one statement, on PostgreSQL.

Every user message first reads the number it was sent to (which tenant, which
customer, whether the tenant has an agent) and then claims its key in the
applied-items ledger. The key is known before the read (the item names its
number), so on PostgreSQL both go in one round trip: the claim is a
data-modifying CTE that inserts only if the number is provisioned here, and
the number's row says whether it did. A number not provisioned claims nothing,
as before. The same statement reads the tenant's active webhooks along (the
events the item raises ask which ones want them), which saves the transaction
their own read. SQLite has no data-modifying CTEs and keeps the statements
(there a statement is a call into the library, not a round trip).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, TypeGuard

from sqlalchemy import bindparam, exists, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from switchboard.domain.inbound import InboundItem, InboundMessage
from switchboard.models.inbound import InboundItemRecord
from switchboard.models.tenancy import PhoneNumber
from switchboard.store.inbound.business import BUSINESS_BY_ID, Business, business_of_row
from switchboard.store.tables import table_of
from switchboard.store.webhooks.active import active_webhooks_as_json, keep_active_webhooks


def claims_with_number(item: InboundItem, session: AsyncSession) -> TypeGuard[InboundMessage]:
    """Whether this item's number read and ledger claim go as one statement (a user message, on PostgreSQL)."""
    return (
        isinstance(item, InboundMessage)
        and bool(item.phone_number_id)
        and session.get_bind().dialect.name == "postgresql"
    )


@cache
def _number_and_claim() -> Any:
    """The number's columns (``BUSINESS_BY_ID``), ``claimed`` and the tenant's ``webhooks``; built once (every user message runs it)."""
    items = table_of(InboundItemRecord)
    provisioned = exists().where(col(PhoneNumber.phone_number_id) == bindparam("phone_number_id"))
    wanted = select(
        bindparam("key", type_=items.c.key.type),
        bindparam("payload_id", type_=items.c.payload_id.type),
        bindparam("applied_at", type_=items.c.applied_at.type),
    ).where(provisioned)
    claim = (
        postgresql.insert(items)
        .from_select(["key", "payload_id", "applied_at"], wanted)
        .on_conflict_do_nothing(index_elements=[items.c.key])
        .returning(items.c.key)
        .cte("claim")
    )
    return BUSINESS_BY_ID.add_columns(
        exists(select(claim.c.key)).label("claimed"),
        active_webhooks_as_json(table_of(PhoneNumber).c.tenant_id).label("webhooks"),
    )


async def number_and_claim(
    session: AsyncSession, item: InboundMessage, *, key: str, payload_id: str | None, at: datetime
) -> tuple[Business | None, bool]:
    """The business number of a user message and whether this call claimed ``key``.

    (None, False) when the number is not provisioned here (nothing is claimed); (business, False) when
    the key was claimed before: the item is a duplicate.
    """
    params = {"phone_number_id": item.phone_number_id, "key": key, "payload_id": payload_id, "applied_at": at}
    row = (await session.execute(_number_and_claim(), params)).first()
    if row is None:
        return None, False
    business = business_of_row(row)
    keep_active_webhooks(session, business.tenant_id, row.webhooks)
    return business, bool(row.claimed)
