"""Template items: approvals and other status changes, category and quality changes, as they arrive.

A template approved upstream must become sendable without anyone calling
``/sync``, so ``message_template_status_update`` moves the stored status at
once. Each change is applied once (its key goes into the ``inbound_items``
ledger, scoped to the WABA) and in time order: a status change older than the
status held (``Template.updated_at``, see ``domain.template_status``) and a
category change older than the newest one applied change nothing. The three
kinds are ordered separately, so a category change never hides an approval
that happened a second earlier. Changes for a WABA or template this service
does not hold are logged and left to the periodic sync, which imports them.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.inbound import TemplateUpdate
from switchboard.domain.template_status import event_as_of, event_is_current, later, status_after_event
from switchboard.models.messaging import Template
from switchboard.models.tenancy import Waba
from switchboard.store.inbound.outcome import APPLIED, DUPLICATE, IGNORED, UNCHANGED, ItemOutcome
from switchboard.store.inbound.raw import advance_watermark, claim_item
from switchboard.store.templates import template_for_update

log = logging.getLogger("switchboard.inbound")


def ledger_prefix(waba_id: str) -> str:
    """WABA-level items are keyed by WABA (phone-level items by business number)."""
    return f"waba:{waba_id}|"


def _status(item: TemplateUpdate, row: Template) -> bool:
    status = status_after_event(item.event)
    if status is None or not event_is_current(item.occurred_at, row.updated_at):
        return False
    row.status = status
    row.updated_at = later(event_as_of(item.occurred_at), row.updated_at)
    return True


async def _category(session: AsyncSession, item: TemplateUpdate, row: Template, *, prefix: str) -> bool:
    if item.category is None:
        return False
    newest = await advance_watermark(session, key=f"{prefix}{item.order_prefix()}newest", at=item.occurred_at)
    if not newest:
        return False
    row.category = item.category
    return True


async def apply_template_update(
    session: AsyncSession, item: TemplateUpdate, *, payload_id: str | None, now: datetime
) -> ItemOutcome:
    """Apply one template change once, unless a newer fact about the same attribute is stored."""
    context = {
        "waba_id": item.waba_id,
        "template_id": item.template_id,
        "template": item.name,
        "language": item.language,
        "change": item.change_field,
        "value": item.new_value,
        "payload_id": payload_id,
    }
    waba = None
    if item.waba_id:
        waba = (
            (await session.execute(select(Waba).where(col(Waba.waba_id) == item.waba_id))).scalars().first()
        )
    if waba is None:
        log.info("template change for a WABA not provisioned here; ignored", extra=context)
        return ItemOutcome(IGNORED)
    row = await template_for_update(
        session, waba_id=waba.waba_id, upstream_id=item.template_id, name=item.name, language=item.language
    )
    if row is None:
        log.info("template change for a template not stored yet; the periodic sync imports it", extra=context)
        return ItemOutcome(IGNORED)
    prefix = ledger_prefix(waba.waba_id)
    if not await claim_item(session, key=f"{prefix}{item.dedup_key()}", payload_id=payload_id, at=now):
        return ItemOutcome(DUPLICATE)
    row.upstream_id = row.upstream_id or item.template_id
    if item.attribute == "quality":
        # No column holds a template's quality score; a RED score comes with its own PAUSED status change.
        log.warning("template quality changed", extra={**context, "previous": item.previous_quality_score})
        return ItemOutcome(UNCHANGED)
    if item.attribute == "status":
        changed = _status(item, row)
    else:
        changed = await _category(session, item, row, prefix=prefix)
    await session.flush()
    if not changed:
        log.info("template change older than the stored state, or not a state; unchanged", extra=context)
        return ItemOutcome(UNCHANGED)
    return ItemOutcome(APPLIED)
