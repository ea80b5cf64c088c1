"""The service's outbound HTTP clients share one TLS context per process, and it still verifies.

Sharing (switchboard/tls.py) saves loading the CA bundle for every client; these tests check it
gives nothing away: a server on loopback with a certificate no trusted authority signed is refused
by the worker's client for the channel's API and by the guarded client that calls tenants' webhooks
and media links (the tool client's transport is the same guarded one).
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from switchboard.activities.tools.http_client import egress_client
from switchboard.store.database import create_engine
from switchboard.tls import client_ssl_context
from switchboard.worker import build_deps, close_deps


def _self_signed(directory: Path) -> ssl.SSLContext:
    """A server context for 127.0.0.1 with a certificate it signed itself."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    (directory / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (directory / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(directory / "cert.pem", directory / "key.pem")
    return context


@pytest.fixture
async def untrusted_server(tmp_path: Path) -> AsyncIterator[str]:
    """An HTTPS URL on loopback whose certificate nothing trusts; it answers 200 to whoever gets through."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=_self_signed(tmp_path))
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"https://127.0.0.1:{port}/hook"


def test_one_context_per_process_and_it_verifies():
    context = client_ssl_context()
    assert client_ssl_context() is context
    assert client_ssl_context(trust_env=False) is client_ssl_context(trust_env=False)
    for shared in (context, client_ssl_context(trust_env=False)):
        assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname


async def test_the_workers_clients_refuse_an_untrusted_certificate(settings, temporal_env, untrusted_server):
    engine = create_engine(settings.database_url)
    deps = build_deps(temporal_env.client, settings, engine)
    try:
        for client in (deps.http, deps.egress_http, egress_client(allow_private=True)):
            async with client:
                with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                    await client.post(untrusted_server, content=b"{}")
    finally:
        await close_deps(deps)
        await engine.dispose()


async def test_a_client_told_to_skip_verification_reaches_the_same_server(untrusted_server):
    """The refusals above are the certificate's doing: the server answers a client that does not verify."""
    async with httpx.AsyncClient(verify=False) as client:
        assert (await client.post(untrusted_server, content=b"{}")).text == "ok"
