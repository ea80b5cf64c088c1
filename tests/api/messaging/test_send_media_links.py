"""Link media: the service downloads the link once, uploads it, and sends the media id."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.workflow_starts import send_workflow_id
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.media_files import FILES, FileServer
from tests.support.tenants import TenantFixture

TO = "14155550100"


async def send(
    client: httpx.AsyncClient, tenant: TenantFixture, kind: str, obj: dict[str, Any]
) -> httpx.Response:
    payload = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": kind, kind: obj}
    return await client.post("/v1/messages", json=payload, headers=tenant.headers())


@pytest.mark.parametrize(
    ("kind", "name", "extra"),
    [
        ("image", "photo.jpg", {"caption": "Your receipt"}),
        ("video", "clip.mp4", {"caption": "Tour"}),
        ("audio", "voice.ogg", {}),
        ("document", "invoice.pdf", {"caption": "Invoice", "filename": "invoice-17.pdf"}),
        ("sticker", "smile.webp", {}),
    ],
)
async def test_link_is_downloaded_uploaded_and_sent_as_id(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,
    channel: FakeChannel,
    files: FileServer,
    kind: str,
    name: str,
    extra: dict[str, Any],
):
    response = await send(app_client, tenant, kind, {"link": files.link(name), **extra})
    assert response.status_code == 201, response.text
    mime, content = FILES[name]
    assert files.hits[name] == 1
    assert channel.uploads == [
        {"phone_number_id": tenant.phone_number_id, "type": mime, "size": len(content), "filename": name}
    ]
    assert len(channel.sends) == 1
    sent = channel.sends[0]
    assert sent["type"] == kind and sent["to"] == "+" + TO
    media_id = sent[kind].pop("id")
    assert media_id.startswith("media-")
    assert sent[kind] == extra, "the link is replaced by the id; caption and filename are kept"
    assert response.json()["status"] == "sent"


async def test_same_link_twice_is_downloaded_once(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, files: FileServer
):
    for caption in ("first", "second"):
        response = await send(
            app_client, tenant, "image", {"link": files.link("photo.jpg"), "caption": caption}
        )
        assert response.status_code == 201, response.text
    assert files.hits["photo.jpg"] == 1
    assert len(channel.uploads) == 1
    ids = [s["image"]["id"] for s in channel.sends]
    assert len(ids) == 2 and ids[0] == ids[1]
    assert [s["image"]["caption"] for s in channel.sends] == ["first", "second"]
    assert all("link" not in s["image"] for s in channel.sends)


async def test_unreachable_link_fails_without_contacting_the_upstream(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, files: FileServer
):
    response = await send(app_client, tenant, "image", {"link": files.link("missing.jpg")})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "MEDIA_DOWNLOAD_FAILED"
    assert body["error_message"]
    assert channel.sends == [] and channel.uploads == []
    stored = (await app_client.get(f"/v1/messages/{body['message_id']}", headers=tenant.headers())).json()
    assert (stored["status"], stored["error_code"]) == ("failed", "MEDIA_DOWNLOAD_FAILED")


async def test_link_of_the_wrong_content_type_is_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, files: FileServer
):
    response = await send(app_client, tenant, "image", {"link": files.link("invoice.pdf")})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert channel.sends == [] and channel.uploads == []


async def test_a_link_the_upstream_never_takes_fails_the_send_transiently(
    skipping_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    files: FileServer,
    time_skipping_env: WorkflowEnvironment,
):
    """Uploads failing for MEDIA_TRANSFER's whole hour end the send as failed_transient, not a failed run.

    A failed run left the message queued for good: nothing resumes a started send, so it counted against
    the phone's queue and a retry of it answered with the queued message that would never go out.
    """
    channel.upload_answer = Scripted(503, cloud_error(131000, "Something went wrong"))
    response = await send(skipping_client, tenant, "image", {"link": files.link("photo.jpg")})
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["code"] == "UPSTREAM_UNAVAILABLE"
    assert channel.refused_uploads > 1, "the upload was retried before the send gave up"
    assert channel.sends == []
    stored = (
        await skipping_client.get(f"/v1/messages/{body['message_id']}", headers=tenant.headers())
    ).json()
    assert (stored["status"], stored["error_code"]) == ("failed_transient", "UPSTREAM_UNAVAILABLE")
    history = await time_skipping_env.client.get_workflow_handle(
        send_workflow_id(body["message_id"])
    ).fetch_history()
    assert history.events[-1].event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
