"""Sample media files served at ``GET /_sim/media/{name}`` for offline examples and tests.

The docs' media sends point at these URLs (``$SIM/_sim/media/sample.jpg``) so they work under
``switchboard dev`` without reaching the internet. Each file is tiny and well-formed for its
type, and the service's MIME checks accept it; the images, PDF and MP3 open in any viewer, while
the MP4 is a container with no tracks (nothing to play). They are built here rather than kept as
binary files so that what they contain stays readable.
"""

from __future__ import annotations

import base64
import struct
import zlib
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Sample:
    """One sample file: its bytes and the content type it is served with."""

    content: bytes
    mime_type: str


def _segment(marker: int, payload: bytes) -> bytes:
    return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload


def jpeg_grey(width: int = 16, height: int = 16) -> bytes:
    """A baseline greyscale JPEG of one flat mid-grey (every DCT coefficient zero)."""
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    # One-symbol Huffman tables: DC "difference 0" and AC "end of block", each coded as the bit 0.
    one_code = bytes([1] + [0] * 15)
    # Every block is two 0 bits; the last byte is padded with 1 bits, as the format requires.
    bits = "00" * blocks
    bits += "1" * (-len(bits) % 8)
    scan = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8)).replace(b"\xff", b"\xff\x00")
    return b"".join(
        (
            b"\xff\xd8",
            _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"),
            _segment(0xDB, b"\x00" + bytes([1] * 64)),
            _segment(0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00"),
            _segment(0xC4, b"\x00" + one_code + b"\x00"),
            _segment(0xC4, b"\x10" + one_code + b"\x00"),
            _segment(0xDA, b"\x01\x01\x00\x00\x3f\x00"),
            scan,
            b"\xff\xd9",
        )
    )


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_solid(width: int = 16, height: int = 16, rgb: tuple[int, int, int] = (37, 99, 235)) -> bytes:
    """An RGB PNG of one flat colour."""
    row = b"\x00" + bytes(rgb) * width
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
            _png_chunk(b"IDAT", zlib.compress(row * height)),
            _png_chunk(b"IEND", b""),
        )
    )


# A 1x1 lossless WebP: the probe image browsers' WebP feature detection has long used.
_WEBP_1X1 = base64.b64decode("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")


def pdf_one_page(text: str = "Switchboard sample invoice") -> bytes:
    """A one-page PDF 1.4 that shows ``text`` (ASCII), with a correct cross-reference table."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 18 Tf 72 720 Td ({escaped}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def mp3_silence(frames: int = 38) -> bytes:
    """About one second of silent MPEG-1 Layer III (128 kbit/s, 44.1 kHz, mono).

    A frame whose side information is all zero carries no audio data: every granule decodes
    to silence.
    """
    header = b"\xff\xfb\x90\xc4"  # sync, MPEG-1 layer III no CRC; 128 kbit/s 44.1 kHz; mono
    frame_length = 144 * 128_000 // 44_100
    return (header + bytes(frame_length - len(header))) * frames


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def mp4_empty() -> bytes:
    """An MP4 (ISO BMFF) with a movie header and no tracks: well-formed, but nothing to play.

    Enough for MIME and size checks and for uploads; not a video anyone can watch.
    """
    identity = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    mvhd = (
        struct.pack(">I4IIH10x", 0, 0, 0, 1000, 0, 0x10000, 0x100)
        + identity
        + bytes(24)
        + b"\x00\x00\x00\x01"
    )
    return _box(b"ftyp", b"isom" + struct.pack(">I", 0x200) + b"isomiso2mp41") + _box(
        b"moov", _box(b"mvhd", mvhd)
    )


@cache
def samples() -> dict[str, Sample]:
    """Every sample by file name."""
    return {
        "sample.jpg": Sample(jpeg_grey(), "image/jpeg"),
        "sample.png": Sample(png_solid(), "image/png"),
        "sample.webp": Sample(_WEBP_1X1, "image/webp"),
        "sample.pdf": Sample(pdf_one_page(), "application/pdf"),
        "sample.mp3": Sample(mp3_silence(), "audio/mpeg"),
        "sample.mp4": Sample(mp4_empty(), "video/mp4"),
    }
