"""Status items: move an outbound message forward on sent < delivered < read, failed terminal.

The row is locked while the next status is computed, so two statuses of one
message applied at the same time (separate payloads, separate workflows) still
end at the furthest status, and each change raises its event exactly once.
A late ``failed`` (the upstream accepted the send, then could not deliver it)
is classified by the same table as a synchronous refusal, so the message and
its ``channel.message.failed`` carry the spec's code with the upstream number
beside it, exactly as when the send was refused at once.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.inbound import StatusUpdate
from switchboard.domain.message_status import FAILED, apply_status_update
from switchboard.domain.upstream_errors import classify_status_error
from switchboard.models.base import utcnow
from switchboard.store.inbound.business import Business
from switchboard.store.inbound.events import emit_about_stored, message_facts
from switchboard.store.inbound.messages import stored_message
from switchboard.store.inbound.outcome import APPLIED, DEFERRED, UNCHANGED, ItemOutcome


async def status_target_exists(session: AsyncSession, item: StatusUpdate, biz: Business) -> bool:
    """Whether the outbound message a status names is stored (if not, the status is deferred)."""
    found = await stored_message(
        session, phone_number_id=biz.phone_number_id, wa_message_id=item.wa_message_id, direction="outbound"
    )
    return found is not None


async def apply_status(session: AsyncSession, item: StatusUpdate, biz: Business) -> ItemOutcome:
    """Apply one upstream status to its outbound message and raise the status event if it changed."""
    message = await stored_message(
        session,
        phone_number_id=biz.phone_number_id,
        wa_message_id=item.wa_message_id,
        direction="outbound",
        lock=True,
    )
    if message is None:
        return ItemOutcome(DEFERRED)
    if item.recipient_user_id and not message.recipient_bsuid:
        message.recipient_bsuid = item.recipient_user_id
    transition = apply_status_update(message.status, item.status)
    if transition is None:
        await session.flush()
        return ItemOutcome(UNCHANGED)
    message.status = transition.status
    message.status_updated_at = utcnow()
    if transition.status == FAILED:
        failure = classify_status_error(
            code=item.error_code,
            title=item.error_title,
            message=item.error_message,
            details=item.error_details,
        )
        message.error_code = failure.code or message.error_code
        message.error_title = failure.error_title
        message.error_message = failure.error_message
    await session.flush()
    facts = message_facts(
        message,
        # A send addressed by BSUID keeps naming its recipient even when the status omits it.
        recipient_user_id=item.recipient_user_id or message.recipient_bsuid,
        recipient_parent_user_id=item.recipient_parent_user_id,
        biz_opaque_callback_data=item.biz_opaque_callback_data,
        pricing=item.pricing,
        channel_conversation=item.conversation,
        # The upstream's number goes in errors[].code, beside the spec code the row now holds.
        **({"error_code": item.error_code} if transition.status == FAILED else {}),
    )
    event_id = await emit_about_stored(
        session, transition.event, message, facts, occurred_at=item.occurred_at
    )
    return ItemOutcome(APPLIED, [event_id])
