"""Build a send workflow's input from a stored message (API start, or the sweeper's resume)."""

from __future__ import annotations

from switchboard.domain.phone import alternate_form
from switchboard.domain.send_payload import MEDIA_TYPES, SendRequest, cloud_api_body
from switchboard.domain.throughput import TierRates, per_second
from switchboard.models.messaging import Message
from switchboard.models.send import SendInput
from switchboard.models.tenancy import PhoneNumber
from switchboard.settings import Settings


def tier_rates(settings: Settings) -> TierRates:
    """The deployment's per-tier messages/s."""
    return TierRates(
        settings.throughput_standard_per_second,
        settings.throughput_medium_per_second,
        settings.throughput_high_per_second,
    )


def send_input_for(
    message: Message, send: SendRequest, phone: PhoneNumber, *, rates: TierRates, retry_window_seconds: int
) -> SendInput:
    """Everything the SendMessage workflow needs, from the message and its validated request."""
    media = getattr(send, send.type) if send.type in MEDIA_TYPES else None
    link = media.link if media is not None and media.link else None
    return SendInput(
        message_id=message.id,
        tenant_id=message.tenant_id,
        phone_number_id=phone.phone_number_id,
        waba_id=phone.waba_id,
        body=cloud_api_body(send),
        alternate_to=alternate_form(message.to_phone) if message.to_phone else None,
        media_link=link,
        media_type=send.type if link else None,
        per_second=per_second(phone.throughput_tier, rates),
        idempotency_key=message.idempotency_key,
        retry_window_seconds=retry_window_seconds,
    )
