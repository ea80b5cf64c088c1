from __future__ import annotations

import hashlib

import pytest

from tests.simulator.support import AUTH, PHONE_ID, Sim, running_sim

JPEG = b"\xff\xd8\xff\xe0" + b"fake-jpeg-bytes" * 10


async def _upload(sim: Sim, data: bytes = JPEG, mime: str = "image/jpeg", **fields: str):
    form = {"messaging_product": "whatsapp", "type": mime} | fields
    return await sim.client.post(
        f"/v21.0/{PHONE_ID}/media", data=form, files={"file": ("photo.jpg", data, mime)}, headers=AUTH
    )


async def test_upload_retrieve_and_download(sim: Sim) -> None:
    upload = await _upload(sim)
    assert upload.status_code == 200
    media_id = upload.json()["id"]
    assert media_id.isdigit()

    info = await sim.client.get(f"/v21.0/{media_id}", headers=AUTH)
    assert info.status_code == 200
    body = info.json()
    assert body["id"] == media_id
    assert body["messaging_product"] == "whatsapp"
    assert body["mime_type"] == "image/jpeg"
    assert body["sha256"] == hashlib.sha256(JPEG).hexdigest()
    assert body["file_size"] == str(len(JPEG))

    download = await sim.client.get(body["url"], headers=AUTH)
    assert download.status_code == 200
    assert download.content == JPEG
    assert download.headers["content-type"] == "image/jpeg"


async def test_download_needs_the_bearer_token(sim: Sim) -> None:
    media_id = (await _upload(sim)).json()["id"]
    url = (await sim.client.get(f"/v21.0/{media_id}", headers=AUTH)).json()["url"]

    response = await sim.client.get(url)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == 190


async def test_tampered_download_url_is_404(sim: Sim) -> None:
    media_id = (await _upload(sim)).json()["id"]
    url = (await sim.client.get(f"/v21.0/{media_id}", headers=AUTH)).json()["url"]

    response = await sim.client.get(url[:-4] + "0000", headers=AUTH)

    assert response.status_code == 404


async def test_expired_download_url_is_404() -> None:
    async with running_sim(media_url_ttl_s=-1) as sim:
        media_id = (await _upload(sim)).json()["id"]
        url = (await sim.client.get(f"/v21.0/{media_id}", headers=AUTH)).json()["url"]
        response = await sim.client.get(url, headers=AUTH)
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("data", "mime", "needle"),
    [
        (b"GIF89a", "image/gif", "image/gif"),
        (b"", "image/jpeg", "empty"),
        (b"x" * (500 * 1024 + 1), "image/webp", "bytes"),
    ],
)
async def test_bad_upload_answers_131053(sim: Sim, data: bytes, mime: str, needle: str) -> None:
    response = await _upload(sim, data, mime)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == 131053
    assert needle in error["error_data"]["details"]


async def test_upload_without_messaging_product_is_refused(sim: Sim) -> None:
    response = await sim.client.post(
        f"/v21.0/{PHONE_ID}/media", data={"type": "image/jpeg"}, files={"file": ("a.jpg", JPEG)}, headers=AUTH
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == 131008


async def test_media_of_another_number_and_unknown_ids_are_graph_100(sim: Sim) -> None:
    media_id = (await _upload(sim)).json()["id"]

    foreign = await sim.client.get(f"/v21.0/{media_id}", params={"phone_number_id": "999"}, headers=AUTH)
    unknown = await sim.client.get("/v21.0/123456789", headers=AUTH)

    for response in (foreign, unknown):
        assert response.status_code == 400
        error = response.json()["error"]
        assert (error["code"], error["error_subcode"]) == (100, 33)


async def test_delete_media(sim: Sim) -> None:
    media_id = (await _upload(sim)).json()["id"]

    deleted = await sim.client.delete(f"/v21.0/{media_id}", headers=AUTH)
    again = await sim.client.get(f"/v21.0/{media_id}", headers=AUTH)

    assert deleted.json() == {"success": True}
    assert again.status_code == 400
