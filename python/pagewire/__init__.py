"""pagewire for Python: drive Chromium through a pagewire server.

``await pagewire.connect(url)`` is the asyncio client over the WebSocket; ``pagewire.Client(url)``
is the synchronous one over POST /rpc. Both take the URL of the server's ready line
(``ws://127.0.0.1:9333/?token=…``). Results are the wire's dicts, typed (``pagewire.types``).
"""

from __future__ import annotations

from . import types
from ._backoff import Backoff
from ._common import Screenshot
from .aio import AsyncClient, AsyncEventStream, AsyncSession, connect
from .errors import PagewireError, RpcError, TransportError, is_pagewire_error
from .sync import Client, Session

__version__ = types.VERSION

__all__ = [
    "AsyncClient",
    "AsyncEventStream",
    "AsyncSession",
    "Backoff",
    "Client",
    "PagewireError",
    "RpcError",
    "Screenshot",
    "Session",
    "TransportError",
    "connect",
    "is_pagewire_error",
    "types",
]
