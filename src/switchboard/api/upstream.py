"""The API's own upstream calls (short and idempotent, never message sends), through the one channel client.

Here a channel failure becomes the spec's error body: no answer is 503/504,
an error envelope is classified as for sends, and an error that is not JSON
at all is a plain 503 (there is nothing to classify).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from switchboard.activities.channel_client import ChannelClient, ChannelError, ChannelRefused
from switchboard.api.state import AppState
from switchboard.domain.errors import ServiceError, UpstreamUnavailable
from switchboard.models.tenancy import PhoneNumber, Waba
from switchboard.store import messages
from switchboard.store.database import unit_of_work

# The API waits at most this long for the upstream before answering 504.
API_UPSTREAM_TIMEOUT_SECONDS = 15.0


def channel(state: AppState) -> ChannelClient:
    """The channel client on the API's pooled HTTP client."""
    return ChannelClient(state.http, state.settings, timeout=API_UPSTREAM_TIMEOUT_SECONDS)


def service_error(exc: ChannelError) -> ServiceError:
    """The spec's error for a channel failure."""
    if isinstance(exc, ChannelRefused) and exc.body is None:
        return UpstreamUnavailable(f"upstream answered {exc.status_code}")
    return exc.failure.to_service_error()


@contextmanager
def as_service_errors() -> Iterator[None]:
    """Render a channel failure raised inside the block as the spec's error."""
    try:
        yield
    except ChannelError as exc:
        raise service_error(exc) from exc


async def waba_of_phone(state: AppState, phone: PhoneNumber) -> Waba:
    """The WABA whose token authenticates calls for this phone."""
    async with state.sessions() as session:
        return await messages.waba_of(session, phone)


async def call_for_phone(state: AppState, phone: PhoneNumber, method: str, path: str, **kwargs: Any) -> Any:
    """One call with the phone's WABA token; the JSON answer, or the spec's error raised."""
    waba = await waba_of_phone(state, phone)
    with as_service_errors():
        return await channel(state).call(waba, method, path, **kwargs)


async def call_for_waba(state: AppState, waba: Waba, method: str, path: str, **kwargs: Any) -> Any:
    """One call with this WABA's token; the JSON answer, or the spec's error raised."""
    with as_service_errors():
        return await channel(state).call(waba, method, path, **kwargs)


async def upload_media(
    state: AppState, phone: PhoneNumber, *, content: bytes, mime_type: str, filename: str
) -> str:
    """Upload a client's file for this phone; the upstream's media id."""
    waba = await waba_of_phone(state, phone)
    with as_service_errors():
        return await channel(state).upload_media(
            waba,
            phone_number_id=phone.phone_number_id,
            content=content,
            mime_type=mime_type,
            filename=filename,
        )


async def mark_read_upstream(
    state: AppState, phone: PhoneNumber, wa_message_id: str, *, typing_indicator: dict[str, str] | None = None
) -> None:
    """Tell the upstream a message was read (showing the typing indicator when asked), and clear the
    conversation's unread count."""
    body: dict[str, Any] = {"messaging_product": "whatsapp", "status": "read", "message_id": wa_message_id}
    if typing_indicator is not None:
        body["typing_indicator"] = typing_indicator
    await call_for_phone(state, phone, "POST", f"{phone.phone_number_id}/messages", json=body)
    async with unit_of_work(state.sessions) as session:
        await messages.mark_conversation_read(
            session, phone_number_id=phone.phone_number_id, wa_message_id=wa_message_id
        )
