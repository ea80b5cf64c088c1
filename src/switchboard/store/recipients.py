"""The contact and conversation an outbound message is filed under.

Every outbound message belongs to a conversation, so it shows in the inbox and
in the conversation's history, counts for the business-initiated tiers, and
later inbound messages of the same person land next to it. The conversation is
the one this number already has with the recipient (any form of the phone, or
the BSUID); otherwise the customer's contact is found or created and a
conversation opened for it, raising ``conversation.created`` once, exactly as
a first inbound message would.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.events import conversation_created_event
from switchboard.domain.phone import phone_variants
from switchboard.models.messaging import Contact, Conversation
from switchboard.models.tenancy import PhoneNumber
from switchboard.store.contacts import ContactFacts, ensure_default_customer, upsert_contact
from switchboard.store.conversations import open_conversation
from switchboard.store.inbound.events import NO_DELIVERY, conversation_facts, emit


@dataclass
class Filed:
    """Where a send is filed, and the events (conversation.created) to dispatch after the commit."""

    conversation: Conversation
    event_ids: list[str] = field(default_factory=list)


# Built once with bound parameters: building the query per send cost the API more CPU than running it
# (py-spy, deployed live sends).
_BY_PHONE = select(Conversation).where(
    Conversation.phone_number_id == bindparam("phone_number_id"),
    col(Conversation.contact_phone).in_(bindparam("phones", expanding=True)),
)
_BY_BSUID = select(Conversation).where(
    Conversation.phone_number_id == bindparam("phone_number_id"),
    col(Conversation.contact_bsuid) == bindparam("bsuid"),
)


async def existing_conversation(
    session: AsyncSession, phone_number_id: str, *, to_phone: str | None, bsuid: str | None
) -> Conversation | None:
    """This number's conversation with the recipient: by any form of the phone, else by BSUID."""
    if to_phone:
        stmt, params = _BY_PHONE, {"phone_number_id": phone_number_id, "phones": phone_variants(to_phone)}
    elif bsuid:
        stmt, params = _BY_BSUID, {"phone_number_id": phone_number_id, "bsuid": bsuid}
    else:
        return None
    return (await session.execute(stmt, params)).scalars().first()


async def _open(
    session: AsyncSession, phone: PhoneNumber, facts: ContactFacts
) -> tuple[Contact, Conversation, bool]:
    customer_id = phone.customer_id or await ensure_default_customer(session, phone.tenant_id)
    contact, new_contact = await upsert_contact(
        session, tenant_id=phone.tenant_id, customer_id=customer_id, facts=facts
    )
    conversation, created = await open_conversation(
        session,
        tenant_id=phone.tenant_id,
        customer_id=customer_id,
        phone_number_id=phone.phone_number_id,
        contact=contact,
        new_contact=new_contact,
    )
    return contact, conversation, created


async def file_send(
    session: AsyncSession, phone: PhoneNumber, *, to_phone: str | None, bsuid: str | None
) -> Filed:
    """The conversation a send to this recipient belongs to, created (with its contact) if new."""
    found = await existing_conversation(session, phone.phone_number_id, to_phone=to_phone, bsuid=bsuid)
    if found is not None:
        return Filed(conversation=found)
    facts = ContactFacts(phone=to_phone, bsuid=bsuid if to_phone is None else None)
    # A concurrent first message to or from this person may create them first: the unique
    # constraints then raise IntegrityError, and the caller runs its unit of work again.
    contact, conversation, created = await _open(session, phone, facts)
    filed = Filed(conversation=conversation)
    if created:
        envelope = conversation_created_event(
            conversation_facts(conversation, contact),
            tenant_id=phone.tenant_id,
            phone_number_id=phone.phone_number_id,
            delivery_id=NO_DELIVERY,
            occurred_at=conversation.created_at,
        )
        filed.event_ids.append(
            await emit(
                session,
                envelope,
                tenant_id=phone.tenant_id,
                occurred_at=conversation.created_at,
                phone_number_id=phone.phone_number_id,
            )
        )
    return filed
