"""Identity items: a shared phone, a rotated BSUID, a changed number, a business username decision."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.events import identity_changed_event, phone_received_event
from switchboard.domain.inbound import IdentityChange, PhoneNumberChange, SharedContactPhone, UsernameUpdate
from switchboard.domain.phone import phone_variants
from switchboard.models.base import utcnow
from switchboard.models.messaging import Contact
from switchboard.store.contacts import contact_by_bsuid, contact_by_phone
from switchboard.store.conversations import backfill_contact_phone, replace_contact_fields
from switchboard.store.inbound.business import Business, phone_for_item
from switchboard.store.inbound.events import NO_DELIVERY, emit
from switchboard.store.inbound.outcome import APPLIED, DUPLICATE, IGNORED, UNCHANGED, ItemOutcome

log = logging.getLogger("switchboard.inbound")


async def apply_shared_phone(session: AsyncSession, item: SharedContactPhone, biz: Business) -> ItemOutcome:
    """Backfill Contact.phone and Conversation.contact_phone where empty; raise phone_received."""
    customer_id = await biz.customer_for_contacts(session)
    contact = None
    if item.user_id:
        contact = await contact_by_bsuid(
            session, tenant_id=biz.tenant_id, customer_id=customer_id, bsuid=item.user_id
        )
    if contact is None and item.from_phone:
        contact = await contact_by_phone(
            session, tenant_id=biz.tenant_id, customer_id=customer_id, phone=item.from_phone
        )
    previous = contact.phone if contact is not None else None
    if contact is not None and not contact.phone:
        holder = await contact_by_phone(
            session, tenant_id=biz.tenant_id, customer_id=customer_id, phone=item.phone, lock=False
        )
        if holder is None:
            contact.phone = item.phone
            contact.wa_id = contact.wa_id or item.shared_wa_id
            contact.updated_at = utcnow()
            await session.flush()
        else:
            log.warning(
                "shared phone already belongs to another contact; not backfilled",
                extra={"tenant_id": biz.tenant_id, "contact_id": contact.id, "other_contact_id": holder.id},
            )
    if contact is not None and contact.phone:
        await backfill_contact_phone(session, contact_id=contact.id, phone=contact.phone)
    envelope = phone_received_event(
        tenant_id=biz.tenant_id,
        waba_id=biz.waba_id,
        phone_number_id=biz.phone_number_id,
        business_scoped_user_id=item.user_id or (contact.bsuid if contact else None),
        previous_phone=previous,
        current_phone=item.phone,
        delivery_id=NO_DELIVERY,
        occurred_at=item.occurred_at,
    )
    event_id = await emit(
        session,
        envelope,
        tenant_id=biz.tenant_id,
        occurred_at=item.occurred_at,
        phone_number_id=biz.phone_number_id,
    )
    return ItemOutcome(APPLIED, [event_id])


async def _contacts_of_user(session: AsyncSession, item: IdentityChange, biz: Business) -> list[Contact]:
    """Every contact of the tenant the rotation is about (one per customer at most)."""
    stmt = select(Contact).where(col(Contact.tenant_id) == biz.tenant_id)
    if item.previous_user_id:
        stmt = stmt.where(col(Contact.bsuid) == item.previous_user_id)
    elif item.phone:
        stmt = stmt.where(col(Contact.phone).in_(phone_variants(item.phone)))
    else:
        return []
    return list((await session.execute(stmt.with_for_update())).scalars().all())


async def apply_identity_change(session: AsyncSession, item: IdentityChange, biz: Business) -> ItemOutcome:
    """Move the user's contacts to the new BSUID (idempotent) and raise identity_changed once."""
    changed = 0
    for contact in await _contacts_of_user(session, item, biz):
        if contact.bsuid == item.current_user_id:
            continue
        clash = await contact_by_bsuid(
            session,
            tenant_id=biz.tenant_id,
            customer_id=contact.customer_id,
            bsuid=item.current_user_id,
            lock=False,
        )
        if clash is not None:
            log.warning(
                "new BSUID already on another contact; contacts left unmerged",
                extra={"tenant_id": biz.tenant_id, "contact_id": contact.id, "other_contact_id": clash.id},
            )
            continue
        contact.bsuid = item.current_user_id
        if item.current_parent_user_id is not None:
            contact.parent_bsuid = item.current_parent_user_id
        contact.updated_at = utcnow()
        await session.flush()
        await replace_contact_fields(session, contact_id=contact.id, contact_bsuid=item.current_user_id)
        changed += 1
    if changed == 0:
        known = await session.execute(
            select(Contact.id).where(
                col(Contact.tenant_id) == biz.tenant_id, col(Contact.bsuid) == item.current_user_id
            )
        )
        if known.first() is not None:
            # The other upstream signal of a rotation already applied.
            return ItemOutcome(DUPLICATE)
    envelope = identity_changed_event(
        tenant_id=biz.tenant_id,
        waba_id=biz.waba_id,
        phone_number_id=biz.phone_number_id,
        wa_id=item.wa_id,
        previous_user_id=item.previous_user_id,
        current_user_id=item.current_user_id,
        previous_parent_user_id=item.previous_parent_user_id,
        current_parent_user_id=item.current_parent_user_id,
        delivery_id=NO_DELIVERY,
        occurred_at=item.occurred_at,
    )
    event_id = await emit(
        session,
        envelope,
        tenant_id=biz.tenant_id,
        occurred_at=item.occurred_at,
        phone_number_id=biz.phone_number_id,
    )
    return ItemOutcome(APPLIED, [event_id])


async def apply_phone_change(session: AsyncSession, item: PhoneNumberChange, biz: Business) -> ItemOutcome:
    """The user moved to a new number: contacts on the old number take the new one (no event in the spec)."""
    if not item.previous_phone:
        return ItemOutcome(UNCHANGED)
    stmt = select(Contact).where(
        col(Contact.tenant_id) == biz.tenant_id,
        col(Contact.phone).in_(phone_variants(item.previous_phone)),
    )
    moved = 0
    for contact in (await session.execute(stmt.with_for_update())).scalars().all():
        taken = await contact_by_phone(
            session,
            tenant_id=biz.tenant_id,
            customer_id=contact.customer_id,
            phone=item.current_phone,
            lock=False,
        )
        if taken is not None:
            continue
        contact.phone = item.current_phone
        contact.wa_id = item.current_phone
        contact.updated_at = utcnow()
        await session.flush()
        await replace_contact_fields(session, contact_id=contact.id, contact_phone=item.current_phone)
        moved += 1
    return ItemOutcome(APPLIED if moved else UNCHANGED)


async def apply_username_update(session: AsyncSession, item: UsernameUpdate, biz: Business) -> ItemOutcome:
    """Record the upstream's decision on the number's business username (approved, reserved, deleted)."""
    phone = await phone_for_item(session, item)
    if phone is None:
        return ItemOutcome(IGNORED)
    phone.username_status = item.status
    phone.username = None if item.status == "deleted" else (item.username or phone.username)
    phone.updated_at = utcnow()
    session.add(phone)
    await session.flush()
    return ItemOutcome(APPLIED)
