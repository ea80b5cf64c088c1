"""Direct upstream calls the API makes itself (short, idempotent, not message sends)."""

from __future__ import annotations

from typing import Any

import httpx

from api.state import AppState
from domain.errors import UpstreamUnavailable
from domain.secrets_box import open_sealed
from domain.upstream_errors import classify_transport_failure, classify_upstream_error
from models.tenancy import PhoneNumber, Waba
from store import messages
from store.database import unit_of_work


async def upstream_call(
    state: AppState, phone: PhoneNumber, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    """One authenticated call with the phone's WABA token; transport failures are 503/504."""
    async with state.sessions() as session:
        waba = await messages.waba_of(session, phone)
    return await upstream_call_waba(state, waba, method, path, **kwargs)


async def upstream_call_waba(
    state: AppState, waba: Waba, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    """One authenticated call with this WABA's token."""
    token = open_sealed(
        state.settings.secrets_key_bytes, waba.access_token_encrypted, associated_data=f"waba:{waba.waba_id}"
    )
    base = f"{state.settings.channel_api_base_url.rstrip('/')}/{state.settings.channel_api_version}"
    try:
        return await state.http.request(
            method,
            f"{base}/{path.lstrip('/')}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=15.0,
            **kwargs,
        )
    except httpx.TimeoutException as exc:
        raise classify_transport_failure(timed_out=True).to_service_error() from exc
    except httpx.TransportError as exc:
        raise classify_transport_failure(timed_out=False).to_service_error() from exc


def raise_for_upstream(response: httpx.Response) -> None:
    """Turn an upstream error envelope into the spec's error."""
    if response.is_success:
        return
    try:
        body = response.json()
    except ValueError:
        raise UpstreamUnavailable(f"upstream answered {response.status_code}") from None
    raise classify_upstream_error(response.status_code, body).to_service_error()


async def mark_read_upstream(state: AppState, phone: PhoneNumber, wa_message_id: str) -> None:
    """Tell the upstream a message was read, and clear the conversation's unread count."""
    response = await upstream_call(
        state,
        phone,
        "POST",
        f"{phone.phone_number_id}/messages",
        json={"messaging_product": "whatsapp", "status": "read", "message_id": wa_message_id},
    )
    raise_for_upstream(response)
    async with unit_of_work(state.sessions) as session:
        await messages.mark_conversation_read(
            session, phone_number_id=phone.phone_number_id, wa_message_id=wa_message_id
        )
