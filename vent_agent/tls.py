"""The TLS context of the service's HTTP clients (the models' endpoints, the mine's system, its user
service), made once per process and shared: httpx builds a new one for every client that is not given
one, loading the CA certificates each time (~60 ms of CPU)."""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def tls_context() -> ssl.SSLContext:
    """httpx's default verifying context (certifi's CA certificates, or ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` when set), created on first use; pass it as ``verify=`` to ``httpx.AsyncClient`` or
    ``httpx.AsyncHTTPTransport``."""
    return httpx.create_ssl_context()
