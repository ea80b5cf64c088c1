"""One TLS context per process for the service's outbound HTTP clients.

Building a context loads a whole CA bundle (certifi's, or the one SSL_CERT_FILE or SSL_CERT_DIR
names): about 40 ms of CPU on the bench machine. httpx builds one for every client and every
transport unless it is handed one, so a worker's start-up built five and the test suite, which
starts a worker and an API per test, spent most of a worker's construction on them. A context is
safe to share: its settings are fixed once it is built, each connection wraps its own socket
with it, and it verifies certificates and host names as httpx's default does.
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def client_ssl_context(*, trust_env: bool = True) -> ssl.SSLContext:
    """httpx's default verifying context, built once; ``trust_env`` as httpx's (SSL_CERT_FILE, SSL_CERT_DIR)."""
    return httpx.create_ssl_context(trust_env=trust_env)
