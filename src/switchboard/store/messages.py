"""SQL for outbound messages: resolution, persistence, send outcomes, listing, retries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any, cast

from sqlalchemy import and_, bindparam, func, insert, or_, update
from sqlalchemy import select as select_columns
from sqlalchemy.engine import CursorResult, Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlmodel import col, select

from switchboard.domain.errors import Forbidden, ValidationFailed
from switchboard.domain.message_status import QUEUED, RETRYABLE_STATUSES, send_outcome_status
from switchboard.domain.phone import phone_variants
from switchboard.models.messaging import Contact, Conversation, MediaAsset, Message, Template
from switchboard.models.send import UpstreamFailureInfo
from switchboard.models.tenancy import Customer, PhoneNumber, Waba
from switchboard.store.pagination import paginate
from switchboard.store.scoping import owned
from switchboard.store.untracked import copy_of, updated_copy

_messages = Message.__table__  # type: ignore[attr-defined]


# Built once, as every send runs them: constructing a statement costs more CPU than running it.
_PHONE = select(PhoneNumber).where(PhoneNumber.phone_number_id == bindparam("phone_number_id"))
# The number's columns with its customer's pause flag (a number may have no customer: the flag reads
# NULL). Columns, not the mapped class: the ORM's loading of one row cost more than the statement.
_phones = PhoneNumber.__table__  # type: ignore[attr-defined]
_customers = Customer.__table__  # type: ignore[attr-defined]
_SANDBOX_PHONE = (
    select_columns(_phones, _customers.c.sending_paused)
    .select_from(_phones.outerjoin(_customers, _customers.c.id == _phones.c.customer_id))
    .where(_phones.c.phone_number_id == bindparam("phone_number_id"))
)
# ... and how many sends wait on it, counted on ix_messages_phone_status.
_QUEUED = (
    select_columns(func.count())
    .select_from(_messages)
    .where(_messages.c.phone_number_id == _phones.c.phone_number_id, _messages.c.status == QUEUED)
    .correlate(_phones)
    .scalar_subquery()
    .label("queued")
)
_LIVE_PHONE = _SANDBOX_PHONE.add_columns(_QUEUED)
# ... and the number's conversation with the recipient, if it has one: by any form of the phone, or by
# the BSUID, as recipients.existing_conversation finds it.
_conversations = Conversation.__table__  # type: ignore[attr-defined]


def _live_phone_to(recipient_matches: Any) -> Any:
    return (
        select_columns(
            _phones,
            _customers.c.sending_paused,
            _QUEUED,
            _conversations.c.id.label("recipient_conversation_id"),
            _conversations.c.contact_id.label("recipient_contact_id"),
        )
        .select_from(
            _phones.outerjoin(_customers, _customers.c.id == _phones.c.customer_id).outerjoin(
                _conversations,
                and_(_conversations.c.phone_number_id == _phones.c.phone_number_id, recipient_matches),
            )
        )
        .where(_phones.c.phone_number_id == bindparam("phone_number_id"))
    )


_LIVE_PHONE_TO_PHONE = _live_phone_to(_conversations.c.contact_phone.in_(bindparam("phones", expanding=True)))
_LIVE_PHONE_TO_BSUID = _live_phone_to(_conversations.c.contact_bsuid == bindparam("bsuid"))
_INSERT_MESSAGE = insert(_messages)


@dataclass(frozen=True)
class KnownConversation:
    """The conversation a send's number already has with its recipient: where the message is filed."""

    id: str
    contact_id: str


@dataclass(frozen=True)
class PhoneFacts:
    """What a send's checks need beside its number, read with the number in one round trip.

    ``queued`` (sends waiting on the number) is read for live sends only: a sandbox send never queues.
    ``conversation`` is the number's conversation with the recipient, looked up for a live send when
    the caller names the recipient; None when it has none (or it was not looked up). The checks still
    run where they always did; only the reads moved.
    """

    customer_paused: bool
    queued: int | None = None
    conversation: KnownConversation | None = None


def owned_phone(phone: PhoneNumber | None, tenant_id: str, phone_number_id: str) -> PhoneNumber:
    """The number if it exists and is the tenant's (INVALID_PHONE_NUMBER_ID / PHONE_NUMBER_NOT_IN_TENANT).

    Public for the sandbox sends' cache of this read (api/sandbox_phones.py), which checks the tenant
    again on every request it answers from memory.
    """
    if phone is None:
        raise ValidationFailed(
            f"phone_number_id {phone_number_id} is not a number of this service",
            code="INVALID_PHONE_NUMBER_ID",
            details={"field": "phone_number_id", "value": phone_number_id},
        )
    if phone.tenant_id != tenant_id:
        raise Forbidden(
            f"phone_number_id {phone_number_id} does not belong to this tenant",
            code="PHONE_NUMBER_NOT_IN_TENANT",
            details={"field": "phone_number_id"},
        )
    return phone


async def phone_for_send(session: AsyncSession, tenant_id: str, phone_number_id: str) -> PhoneNumber:
    """The tenant's number with this channel id (INVALID_PHONE_NUMBER_ID / PHONE_NUMBER_NOT_IN_TENANT)."""
    phone = (await session.execute(_PHONE, {"phone_number_id": phone_number_id})).scalars().first()
    return owned_phone(phone, tenant_id, phone_number_id)


async def sending_phone(
    db: AsyncSession | AsyncConnection,
    tenant_id: str,
    phone_number_id: str,
    *,
    count_queued: bool,
    to_phone: str | None = None,
    bsuid: str | None = None,
) -> tuple[PhoneNumber, PhoneFacts]:
    """``phone_for_send`` and the facts its send's checks need, in one statement.

    A send read its number first, then its customer's flag and (live) its queue in its own
    transaction: three round trips, now one. Every sandbox send's only read, a live send's first.
    Neither figure was ever locked, so reading them a moment earlier changes no guarantee: the queue
    limit, as before, bounds what waits, not what concurrent sends see.

    A live send naming its recipient (``to_phone``, a canonical number, or else ``bsuid``) also reads
    the number's conversation with them (``PhoneFacts.conversation``), which its transaction read by
    itself before: nor was that read ever locked.

    ``db`` may be a bare connection (the API reads with one: no session to start and close). The
    number comes back as a copy that no session tracks, built from the row's columns: the send path
    only reads its attributes, and the session with its loading of the row (identity map, instance
    state) was about a third of the read's CPU (docs/decisions/0004-hot-statements-without-orm.md).
    """
    params: dict[str, Any] = {"phone_number_id": phone_number_id}
    stmt = _SANDBOX_PHONE
    if count_queued:
        stmt = _LIVE_PHONE
        if to_phone:
            stmt, params["phones"] = _LIVE_PHONE_TO_PHONE, phone_variants(to_phone)
        elif bsuid:
            stmt, params["bsuid"] = _LIVE_PHONE_TO_BSUID, bsuid
    row = (await db.execute(stmt, params)).first()
    phone = owned_phone(_phone_of(row), tenant_id, phone_number_id)
    assert row is not None  # owned_phone raised otherwise
    values = row._mapping
    conversation_id = values.get("recipient_conversation_id")
    facts = PhoneFacts(
        customer_paused=bool(row.sending_paused),
        queued=int(row.queued) if count_queued else None,
        conversation=(
            KnownConversation(id=conversation_id, contact_id=values["recipient_contact_id"])
            if conversation_id is not None
            else None
        ),
    )
    return phone, facts


async def store_queued(connection: AsyncConnection, message: Message) -> None:
    """Insert a queued send's message by itself: one statement, atomic with no transaction around it.

    For a send whose conversation exists (``PhoneFacts.conversation``) and that writes nothing else:
    no contact, conversation, event or idempotency key goes with it. Its transaction was three more
    round trips (BEGIN, the conversation's read, COMMIT) and a session's flush of one row.
    """
    await connection.execute(_INSERT_MESSAGE, message.model_dump())


def _phone_of(row: Row[Any] | None) -> PhoneNumber | None:
    """A PhoneNumber with the row's values, outside any session (its columns only; no validation)."""
    return None if row is None else copy_of(PhoneNumber, row._mapping)


async def sending_paused(session: AsyncSession, phone: PhoneNumber) -> bool:
    """Whether the phone's customer has its sending paused."""
    if phone.customer_id is None:
        return False
    customer = await session.get(Customer, phone.customer_id)
    return bool(customer and customer.sending_paused)


async def waba_of(session: AsyncSession, phone: PhoneNumber) -> Waba:
    """The WABA a phone number sends under."""
    return await waba_by_channel_id(session, phone.waba_id)


# Built once, likewise.
_WABA = select(Waba).where(Waba.waba_id == bindparam("waba_id"))
_contacts = Contact.__table__  # type: ignore[attr-defined]
# A send's message with its conversation and contact, as columns (each table's prefixed: they share names).
_SEND_WITH_CONTEXT = (
    select_columns(
        *(column.label(f"m_{column.name}") for column in _messages.c),
        *(column.label(f"v_{column.name}") for column in _conversations.c),
        *(column.label(f"c_{column.name}") for column in _contacts.c),
    )
    .select_from(
        _messages.outerjoin(_conversations, _conversations.c.id == _messages.c.conversation_id).outerjoin(
            _contacts, _contacts.c.id == _conversations.c.contact_id
        )
    )
    .where(_messages.c.id == bindparam("message_id"))
)
_MESSAGE_BY_ID = select_columns(_messages).where(_messages.c.id == bindparam("message_id"))


async def waba_by_channel_id(session: AsyncSession, waba_id: str) -> Waba:
    """A WABA by its channel id (it exists: phones and sends reference it)."""
    return (await session.execute(_WABA, {"waba_id": waba_id})).scalars().one()


async def cached_media(
    session: AsyncSession, *, phone_number_id: str, source_url: str, since: datetime
) -> MediaAsset | None:
    """The newest upload of this link for this phone, if recent enough to reuse."""
    stmt = (
        select(MediaAsset)
        .where(
            MediaAsset.phone_number_id == phone_number_id,
            MediaAsset.source_url == source_url,
            MediaAsset.created_at >= since,
        )
        .order_by(MediaAsset.created_at.desc())  # type: ignore[attr-defined]
    )
    return (await session.execute(stmt)).scalars().first()


async def mark_conversation_read(session: AsyncSession, *, phone_number_id: str, wa_message_id: str) -> None:
    """Clear the unread count of the conversation an inbound message belongs to."""
    conversation_id = (
        await session.execute(
            select(Message.conversation_id).where(
                Message.phone_number_id == phone_number_id,
                Message.wa_message_id == wa_message_id,
                Message.direction == "inbound",
            )
        )
    ).scalar_one_or_none()
    if conversation_id:
        await session.execute(
            update(Conversation).where(Conversation.id == conversation_id).values(unread_count=0)
        )


async def find_template(session: AsyncSession, *, waba_id: str, name: str, language: str) -> Template | None:
    """The stored template of this WABA, name and language, if synced or created here."""
    stmt = select(Template).where(
        Template.waba_id == waba_id, Template.name == name, Template.language == language
    )
    return (await session.execute(stmt)).scalars().first()


async def template_elsewhere(
    session: AsyncSession, *, tenant_id: str, name: str, language: str, not_waba_id: str
) -> bool:
    """Whether the tenant has this template under another of its WABAs."""
    stmt = select(Template.id).where(
        Template.tenant_id == tenant_id,
        Template.name == name,
        Template.language == language,
        Template.waba_id != not_waba_id,
    )
    return (await session.execute(stmt.limit(1))).first() is not None


async def queued_count(session: AsyncSession, phone_number_id: str) -> int:
    """How many sends wait on one phone number."""
    stmt = (
        select(func.count())
        .select_from(Message)
        .where(Message.phone_number_id == phone_number_id, Message.status == QUEUED)
    )
    return int((await session.execute(stmt)).scalar_one())


async def send_with_context(
    session: AsyncSession, message_id: str
) -> tuple[Message, Conversation | None, Contact | None]:
    """A send's message with its conversation and contact, fresh from the database, in one round trip.

    Copies no session tracks, built from the row's columns: the outcome's writes are statements of
    their own (``settle_send``, ``conversations.note_sent_message``), and loading three mapped rows
    into the session, to flush one of them back, cost the worker more CPU than the statements.
    """
    row = (await session.execute(_SEND_WITH_CONTEXT, {"message_id": message_id})).first()
    if row is None:
        raise RuntimeError(f"message {message_id} vanished")
    values = row._mapping
    message = copy_of(Message, values, "m_")
    assert message is not None  # the row is the message's
    return message, copy_of(Conversation, values, "v_"), copy_of(Contact, values, "c_")


@cache
def _settle_statement(columns: tuple[str, ...]) -> Any:
    """UPDATE a send's outcome columns while it is still queued; built once per set of columns."""
    return (
        update(_messages)
        .where(_messages.c.id == bindparam("of_id"), _messages.c.status == QUEUED)
        .values({name: bindparam(f"new_{name}") for name in columns})
    )


async def settle_send(
    session: AsyncSession,
    message: Message,
    *,
    now: datetime,
    wa_message_id: str | None = None,
    failure: UpstreamFailureInfo | None = None,
    transient: bool = False,
) -> tuple[bool, Message]:
    """Store what the upstream answered on a queued send; False when it is settled already.

    One UPDATE that changes the row only while it is still ``queued``, so that of two writers
    settling one send at the same time exactly one wins, on either database: a try whose run an
    operator terminated while it posted records its own success while the API records that run
    as not finished. The loser changes nothing, raises no event, and sees the row as stored.
    ``message`` is ``send_with_context``'s copy; the message as stored now comes back beside the flag.
    """
    if message.status != QUEUED:
        return False, message
    values: dict[str, Any] = {
        "status": send_outcome_status(failed=failure is not None, transient=transient),
        "status_updated_at": now,
    }
    if failure is None:
        # to_phone stays canonical even when the alternate form got through.
        values["wa_message_id"] = wa_message_id
    else:
        values |= {
            "error_code": failure.code,
            "error_title": failure.error_title,
            "error_message": failure.error_message,
        }
    params = {"of_id": message.id, **{f"new_{name}": value for name, value in values.items()}}
    result = await session.execute(_settle_statement(tuple(values)), params)
    if cast("CursorResult[Any]", result).rowcount != 1:
        stored = (await session.execute(_MESSAGE_BY_ID, {"message_id": message.id})).one()
        return False, updated_copy(message, stored._mapping)
    return True, updated_copy(message, values)


@dataclass(frozen=True)
class MessageFilters:
    phone_number_id: str | None = None
    direction: str | None = None
    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    contact_phone: str | None = None
    conversation_id: str | None = None


async def list_messages(
    session: AsyncSession, tenant_id: str, filters: MessageFilters, *, page: int, per_page: int
) -> tuple[list[Message], int]:
    """The tenant's messages, newest first, filtered."""
    stmt = owned(Message, tenant_id)
    if filters.phone_number_id:
        stmt = stmt.where(Message.phone_number_id == filters.phone_number_id)
    if filters.direction:
        stmt = stmt.where(Message.direction == filters.direction)
    if filters.status:
        stmt = stmt.where(Message.status == filters.status)
    if filters.since:
        stmt = stmt.where(Message.created_at >= filters.since)
    if filters.until:
        stmt = stmt.where(Message.created_at <= filters.until)
    if filters.conversation_id:
        stmt = stmt.where(Message.conversation_id == filters.conversation_id)
    if filters.contact_phone:
        forms = phone_variants(filters.contact_phone)
        stmt = stmt.where(or_(Message.to_phone.in_(forms), Message.from_phone.in_(forms)))  # type: ignore[union-attr]
    stmt = stmt.order_by(Message.created_at.desc(), Message.id.desc())  # type: ignore[attr-defined]
    return await paginate(session, stmt, page=page, per_page=per_page)


async def claim_retry(
    session: AsyncSession, message_id: str, *, now: datetime, guard: timedelta
) -> datetime | None:
    """Atomically note a retry request (across processes).

    None when this request got it; otherwise when the previous request was
    made, which is within ``guard`` of now.
    """
    result = await session.execute(
        update(_messages)
        .where(
            _messages.c.id == message_id,
            or_(
                _messages.c.last_retry_requested_at.is_(None),
                _messages.c.last_retry_requested_at <= now - guard,
            ),
        )
        .values(last_retry_requested_at=now)
        .returning(_messages.c.id)
    )
    if result.first() is not None:
        return None
    stmt = select(Message.last_retry_requested_at).where(Message.id == message_id)
    return (await session.execute(stmt)).scalar_one_or_none() or now


async def live_retry_of(session: AsyncSession, original_id: str) -> Message | None:
    """The newest retry of a message that has not failed (queued, sent, delivered or read), if any."""
    stmt = (
        select(Message)
        .where(
            Message.retry_of_message_id == original_id,
            Message.status.not_in(RETRYABLE_STATUSES),  # type: ignore[attr-defined]
        )
        .order_by(Message.created_at.desc(), Message.id.desc())  # type: ignore[attr-defined]
        .limit(1)
    )
    return (await session.execute(stmt)).scalars().first()


async def release_retry(session: AsyncSession, message_id: str) -> None:
    """Forget a retry request that was refused, so a corrected one may follow at once."""
    await session.execute(
        update(_messages).where(_messages.c.id == message_id).values(last_retry_requested_at=None)
    )


async def mark_workflow_started(session: AsyncSession, message_id: str, *, at: datetime) -> None:
    """Note that a message's send workflow exists (the sweeper skips such messages)."""
    await session.execute(
        update(_messages)
        .where(_messages.c.id == message_id, _messages.c.workflow_started_at.is_(None))
        .values(workflow_started_at=at)
    )


async def stale_queued(
    session: AsyncSession, *, unstarted_before: datetime, abandoned_before: datetime, limit: int
) -> list[tuple[Message, PhoneNumber]]:
    """Queued messages the sweeper acts on, oldest first, read in one pass.

    Those whose send workflow was never seen to start (created before ``unstarted_before``), and those
    whose workflow started before ``abandoned_before``: longer ago than any run can last, so their run
    ended without recording an outcome (``workflow_started_at`` tells the two apart).
    """
    stmt = stale_queued_statement(
        unstarted_before=unstarted_before, abandoned_before=abandoned_before, limit=limit
    )
    return [(row[0], row[1]) for row in (await session.execute(stmt)).all()]


def stale_queued_statement(*, unstarted_before: datetime, abandoned_before: datetime, limit: int) -> Any:
    """``stale_queued``'s query: one probe of ``ix_messages_phone_status`` a phone number, no scan of messages.

    ``tests/store/test_queued_sweep_index.py`` reads its plan on both databases.
    """
    started_at = col(Message.workflow_started_at)
    return (
        select(Message, PhoneNumber)
        .join(PhoneNumber, PhoneNumber.phone_number_id == Message.phone_number_id)  # type: ignore[arg-type]
        .where(
            Message.status == QUEUED,
            or_(
                and_(started_at.is_(None), col(Message.created_at) < unstarted_before),
                started_at < abandoned_before,
            ),
        )
        .order_by(Message.created_at)  # type: ignore[arg-type]
        .limit(limit)
    )
