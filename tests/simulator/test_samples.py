"""The sample media under /_sim/media: well-formed files the service and the simulator accept."""

from __future__ import annotations

import re
import struct
import zlib

import pytest

from switchboard.domain.media import check_media, media_kind_for
from switchboard.simulator.media import upload_problem
from switchboard.simulator.samples import samples
from tests.simulator.support import AUTH, PHONE_ID, Sim


def _jpeg_markers(data: bytes) -> list[int]:
    markers, at = [], 2
    while data[at] == 0xFF and data[at + 1] != 0xDA:
        markers.append(data[at + 1])
        at += 2 + struct.unpack(">H", data[at + 2 : at + 4])[0]
    return markers


def test_jpeg_is_a_baseline_frame_with_its_tables():
    data = samples()["sample.jpg"].content
    assert data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9"
    assert _jpeg_markers(data) == [0xE0, 0xDB, 0xC0, 0xC4, 0xC4]


def test_png_chunks_carry_good_crcs_and_the_whole_image():
    data = samples()["sample.png"].content
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, {}
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length : at + 12 + length])[0] == zlib.crc32(kind + body)
        chunks[kind] = body
        at += 12 + length
    width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
    assert len(zlib.decompress(chunks[b"IDAT"])) == height * (1 + 3 * width)


def test_webp_riff_size_matches():
    data = samples()["sample.webp"].content
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    assert struct.unpack("<I", data[4:8])[0] == len(data) - 8


def test_pdf_cross_reference_points_at_each_object():
    data = samples()["sample.pdf"].content
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    startxref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    assert data[startxref:].startswith(b"xref")
    offsets = [int(m) for m in re.findall(rb"(\d{10}) 00000 n", data)]
    for number, offset in enumerate(offsets, start=1):
        assert data[offset:].startswith(b"%d 0 obj" % number)


def test_mp3_is_whole_frames():
    data = samples()["sample.mp3"].content
    assert len(data) % 417 == 0
    assert all(data[at : at + 2] == b"\xff\xfb" for at in range(0, len(data), 417))


def test_mp4_boxes_add_up():
    data = samples()["sample.mp4"].content
    at, kinds = 0, []
    while at < len(data):
        (size,) = struct.unpack(">I", data[at : at + 4])
        kinds.append(data[at + 4 : at + 8])
        at += size
    assert at == len(data) and kinds == [b"ftyp", b"moov"]
    assert data[40:44] == b"mvhd" and struct.unpack(">I", data[36:40])[0] == 108


@pytest.mark.parametrize("name", sorted(samples()))
def test_each_sample_passes_the_service_and_simulator_checks(name):
    sample = samples()[name]
    kind = media_kind_for(sample.mime_type)
    assert kind is not None
    assert check_media(kind, sample.mime_type, len(sample.content)) == sample.mime_type
    assert upload_problem(sample.mime_type, len(sample.content)) is None


async def test_served_with_its_content_type(sim: Sim):
    for name, sample in samples().items():
        response = await sim.client.get(f"/_sim/media/{name}")
        assert response.status_code == 200
        assert response.headers["content-type"] == sample.mime_type
        assert response.content == sample.content


async def test_unknown_sample_is_404_naming_the_samples(sim: Sim):
    response = await sim.client.get("/_sim/media/cat.gif")
    assert response.status_code == 404
    assert "sample.jpg" in response.json()["detail"]


async def test_a_sample_uploads_as_media(sim: Sim):
    jpeg = samples()["sample.jpg"]
    response = await sim.client.post(
        f"/v21.0/{PHONE_ID}/media",
        data={"messaging_product": "whatsapp", "type": jpeg.mime_type},
        files={"file": ("sample.jpg", jpeg.content, jpeg.mime_type)},
        headers=AUTH,
    )
    assert response.status_code == 200 and response.json()["id"].isdigit()
