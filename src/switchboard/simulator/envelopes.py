"""Cloud API webhook envelopes: statuses, inbound messages, template and username updates."""

from __future__ import annotations

from typing import Any

from switchboard.simulator.config import SimPhoneNumber

ONE_DAY_S = 24 * 60 * 60


def _envelope(
    waba_id: str, field: str, value: dict[str, Any], *, time_s: int | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": waba_id, "changes": [{"value": value, "field": field}]}
    if time_s is not None:
        entry["time"] = time_s
    return {"object": "whatsapp_business_account", "entry": [entry]}


def _metadata(phone_number_id: str, phone: SimPhoneNumber) -> dict[str, str]:
    return {"display_phone_number": phone.display_phone_number, "phone_number_id": phone_number_id}


def contact_entry(
    *,
    wa_id: str | None,
    name: str | None = None,
    username: str | None = None,
    user_id: str | None = None,
    parent_user_id: str | None = None,
) -> dict[str, Any]:
    """One ``contacts[]`` item; absent fields are left out, as the channel does."""
    profile = {key: value for key, value in (("name", name), ("username", username)) if value}
    contact: dict[str, Any] = {}
    if profile:
        contact["profile"] = profile
    for key, value in (("wa_id", wa_id), ("user_id", user_id), ("parent_user_id", parent_user_id)):
        if value:
            contact[key] = value
    return contact


def pricing(*, category: str, billable: bool) -> dict[str, Any]:
    """The per-message pricing object (per-message pricing model)."""
    return {
        "billable": billable,
        "pricing_model": "PMP",
        "type": "regular" if billable else "free_customer_service",
        "category": category,
    }


def conversation(conversation_id: str, *, category: str, expires_at: int | None) -> dict[str, Any]:
    """The conversation object of sent (with expiry) and delivered statuses."""
    value: dict[str, Any] = {"id": conversation_id, "origin": {"type": category}}
    if expires_at is not None:
        value["expiration_timestamp"] = str(expires_at)
    return value


def status_envelope(
    *,
    phone_number_id: str,
    phone: SimPhoneNumber,
    status: dict[str, Any],
    contacts: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A ``messages`` webhook carrying one ``statuses[]`` item."""
    value: dict[str, Any] = {"messaging_product": "whatsapp", "metadata": _metadata(phone_number_id, phone)}
    if contacts:
        value["contacts"] = contacts
    value["statuses"] = [status]
    return _envelope(phone.waba_id, "messages", value)


def inbound_envelope(
    *,
    phone_number_id: str,
    phone: SimPhoneNumber,
    contact: dict[str, Any],
    message: dict[str, Any],
) -> dict[str, Any]:
    """A ``messages`` webhook carrying one customer message and its contact."""
    value = {
        "messaging_product": "whatsapp",
        "metadata": _metadata(phone_number_id, phone),
        "contacts": [contact],
        "messages": [message],
    }
    return _envelope(phone.waba_id, "messages", value)


def template_status_envelope(
    *,
    waba_id: str,
    template_id: str,
    name: str,
    language: str,
    category: str,
    event: str,
    reason: str | None,
    now: int,
) -> dict[str, Any]:
    """A ``message_template_status_update`` webhook (the template id is an integer here)."""
    value = {
        "event": event,
        "message_template_id": int(template_id),
        "message_template_name": name,
        "message_template_language": language,
        "reason": reason if reason is not None else "NONE",
        "message_template_category": category,
    }
    return _envelope(waba_id, "message_template_status_update", value, time_s=now)


def username_update_envelope(
    *, phone: SimPhoneNumber, username: str | None, status: str, now: int
) -> dict[str, Any]:
    """A ``business_username_updates`` webhook; ``username`` is left out once deleted."""
    value: dict[str, Any] = {"display_phone_number": phone.display_phone_number, "status": status}
    if status != "deleted" and username:
        value["username"] = username
    return _envelope(phone.waba_id, "business_username_updates", value, time_s=now)
