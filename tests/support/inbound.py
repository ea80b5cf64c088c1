"""Helpers for inbound webhook tests: provision the fixture number, post signed payloads, read rows."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client

from switchboard.activities.workflow_starts import inbound_workflow_id
from switchboard.domain.inbound import payload_id
from switchboard.domain.signatures import HUB_SIGNATURE_HEADER, hub_signature
from switchboard.models.base import utcnow
from switchboard.models.events import Event
from switchboard.models.inbound import InboundSummary
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.workflows.inbound import ProcessInboundWorkflow
from tests.conftest import ADMIN_KEY, APP_SECRET
from tests.fixtures.channel import DISPLAY_PHONE_NUMBER, PHONE_NUMBER_ID, WABA_ID
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def provision_fixture_number(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    *,
    waba_id: str = WABA_ID,
    phone_number_id: str = PHONE_NUMBER_ID,
    display: str = DISPLAY_PHONE_NUMBER,
    with_customer: bool = True,
    hidden_from_inbox: bool = False,
) -> dict[str, Any]:
    """Give the tenant the business number the channel fixtures are addressed to."""
    response = await client.post(
        f"/v1/admin/tenants/{tenant.id}/wabas",
        json={"waba_id": waba_id, "access_token": "tok"},
        headers=ADMIN,
    )
    assert response.status_code in (201, 409), response.text
    body: dict[str, Any] = {
        "phone_number_id": phone_number_id,
        "display_phone_number": display,
        "waba_id": waba_id,
        "hidden_from_inbox": hidden_from_inbox,
    }
    if with_customer:
        body["customer_id"] = tenant.customer_id
    response = await client.post(f"/v1/admin/tenants/{tenant.id}/phone-numbers", json=body, headers=ADMIN)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def post_webhook(
    client: httpx.AsyncClient, body: bytes, *, secret: str | None = APP_SECRET, signature: str | None = None
) -> httpx.Response:
    """POST a body to /channel/webhook signed as the channel signs it (or with the given header)."""
    headers = {"Content-Type": "application/json"}
    if signature is not None:
        headers[HUB_SIGNATURE_HEADER] = signature
    elif secret is not None:
        headers[HUB_SIGNATURE_HEADER] = hub_signature(body, secret)
    return await client.post("/channel/webhook", content=body, headers=headers)


async def processed(temporal: Client, body: bytes, *, task_queue: str) -> InboundSummary:
    """Wait for the ProcessInbound run of this body and return its summary."""
    workflow_id = inbound_workflow_id(payload_id(body), task_queue=task_queue)
    return await temporal.get_workflow_handle_for(ProcessInboundWorkflow.run, workflow_id).result()


async def applied(
    temporal: Client, response: httpx.Response, body: bytes, *, task_queue: str
) -> InboundSummary:
    """How the endpoint's answer says the payload was applied, waiting for ProcessInbound when it took over."""
    assert response.status_code == 200, response.text
    receipt = response.json()
    if receipt["summary"] is None or receipt["summary"]["deferred"]:
        return await processed(temporal, body, task_queue=task_queue)
    return InboundSummary(**{k: v for k, v in receipt["summary"].items() if k != "deferred"})


async def deliver(
    client: httpx.AsyncClient, temporal: Client, body: bytes, *, settings: Settings
) -> InboundSummary:
    """Post a signed payload and return how it was applied (by the endpoint, or by ProcessInbound)."""
    response = await post_webhook(client, body)
    return await applied(temporal, response, body, task_queue=settings.temporal_task_queue)


@asynccontextmanager
async def db(settings: Settings) -> AsyncIterator[AsyncSession]:
    """A committed session on the test's database."""
    engine = create_engine(settings.database_url)
    try:
        async with unit_of_work(session_factory(engine)) as session:
            yield session
    finally:
        await engine.dispose()


async def rows(settings: Settings, model: type, *where: Any, order: Any = None) -> list[Any]:
    """All rows of a table matching the conditions."""
    async with db(settings) as session:
        stmt: Any = select(model).where(*where)
        if order is not None:
            stmt = stmt.order_by(order)
        return list((await session.execute(stmt)).scalars().all())


async def events(settings: Settings, tenant_id: str) -> list[Event]:
    """The tenant's outbox events in the order they were written."""
    return await rows(settings, Event, Event.tenant_id == tenant_id, order=Event.id)


async def messages(settings: Settings, tenant_id: str) -> list[Message]:
    """The tenant's messages in creation order."""
    return await rows(settings, Message, Message.tenant_id == tenant_id, order=Message.id)


async def conversations(settings: Settings, tenant_id: str) -> list[Conversation]:
    """The tenant's conversations."""
    return await rows(settings, Conversation, Conversation.tenant_id == tenant_id, order=Conversation.id)


async def contacts(settings: Settings, tenant_id: str) -> list[Contact]:
    """The tenant's contacts."""
    return await rows(settings, Contact, Contact.tenant_id == tenant_id, order=Contact.id)


async def add_outbound(
    settings: Settings,
    tenant: TenantFixture,
    wa_message_id: str,
    *,
    status: str = "sent",
    to_phone: str | None = "16505551234",
    recipient_bsuid: str | None = None,
    phone_number_id: str = PHONE_NUMBER_ID,
    occurred_at: datetime | None = None,
) -> Message:
    """An outbound message as the send path stores it once the upstream accepted it."""
    message = Message(
        tenant_id=tenant.id,
        phone_number_id=phone_number_id,
        direction="outbound",
        message_type="text",
        wa_message_id=wa_message_id,
        status=status,
        from_phone=DISPLAY_PHONE_NUMBER,
        to_phone=to_phone,
        recipient_bsuid=recipient_bsuid,
        source="API",
        payload={"type": "text", "text": {"body": "Hi there"}},
        content="Hi there",
        occurred_at=occurred_at or utcnow(),
    )
    async with db(settings) as session:
        session.add(message)
    return message


def envelope(value: dict[str, Any], *, field: str = "messages", waba_id: str = WABA_ID) -> bytes:
    """A Cloud API webhook body with one change."""
    return json.dumps(
        {
            "object": "whatsapp_business_account",
            "entry": [{"id": waba_id, "changes": [{"field": field, "value": value}]}],
        }
    ).encode()


def metadata(phone_number_id: str = PHONE_NUMBER_ID, display: str = DISPLAY_PHONE_NUMBER) -> dict[str, Any]:
    """The ``value.metadata`` naming a business number."""
    return {"display_phone_number": display, "phone_number_id": phone_number_id}


def text_payload(
    wamid: str,
    *,
    body: str = "hello",
    at: datetime | None = None,
    from_phone: str | None = "16505551234",
    user_id: str | None = None,
    username: str | None = None,
    phone_number_id: str = PHONE_NUMBER_ID,
) -> bytes:
    """A user text message to a business number."""
    contact: dict[str, Any] = {"profile": {"name": "Test Name"}}
    message: dict[str, Any] = {
        "id": wamid,
        "timestamp": str(int((at or utcnow()).timestamp())),
        "type": "text",
        "text": {"body": body},
    }
    if from_phone:
        contact["wa_id"] = from_phone
        message["from"] = from_phone
    if user_id:
        contact["user_id"] = user_id
        message["from_user_id"] = user_id
    if username:
        contact["profile"]["username"] = username
    value = {
        "messaging_product": "whatsapp",
        "metadata": metadata(phone_number_id),
        "contacts": [contact],
        "messages": [message],
    }
    return envelope(value)


def status_payload(wamid: str, status: str, *, at: datetime | None = None, **extra: Any) -> bytes:
    """One status update of an outbound message."""
    entry = {
        "id": wamid,
        "status": status,
        "timestamp": str(int((at or utcnow()).timestamp())),
        "recipient_id": "16505551234",
        **extra,
    }
    return envelope({"messaging_product": "whatsapp", "metadata": metadata(), "statuses": [entry]})


@dataclass
class Channel:
    """The channel's side of the webhook: posts signed payloads and waits for the worker to apply them."""

    client: httpx.AsyncClient
    temporal: Client
    settings: Settings

    async def deliver(self, body: bytes) -> InboundSummary:
        """Post a signed payload and return the summary of its processing."""
        return await deliver(self.client, self.temporal, body, settings=self.settings)


@pytest.fixture(name="channel")
def channel_fixture(
    app_client: httpx.AsyncClient, worker: Any, temporal_env: Any, settings: Settings
) -> Channel:
    """Post channel webhooks to the API with the real worker applying them (import into a test module)."""
    return Channel(client=app_client, temporal=temporal_env.client, settings=settings)


def of_kind(recorded: list[Event], kind: str) -> list[Event]:
    """The events of one kind (ids order events only to the millisecond, so never rely on ties)."""
    return [event for event in recorded if event.kind == kind]


def by_wamid(stored: list[Message]) -> dict[str | None, Message]:
    """Messages keyed by their channel id."""
    return {message.wa_message_id: message for message in stored}
