"""One HTTP exchange with a model's server, held to the host contract: it ends by one
deadline whatever the server does, and reads a bounded number of bytes.

A model's server is as untrusted as agent code (a course's own cheap server, a proxy, a
hosted API having a bad day). So a `Call` is one deadline for a whole model call, every
try and every wait between tries included, and whoever holds it may end it at any moment
(`Call.stop`): the connection in use is shut down, which wakes a read blocked on it at
once, and no further try begins. Each exchange also has a watchdog that stops its call at
the deadline, so the bound holds whoever calls (the start-up check, a model agent's turn).
What is read is capped (MAX_BODY bytes of body; http.client's own bounds on the status
line and headers: 64 KiB a line, 100 headers), and the body is read a piece at a time, so
an endless answer is cut off at the cap, not held whole.

The standard library, not the openai client: that client (httpx underneath) bounds each
socket read rather than the exchange, so a server that sends a byte just within each read
timeout holds it for ever, and its error path reads a failed response's whole body into
memory before raising. Neither httpx nor the client hands out the socket before the
headers have come, so nothing outside could end an exchange. Here the socket is ours from
its first byte. A connection serves one exchange (`Connection: close`): a model answers
in seconds, and no pooled connection outlives a forked worker or a stopped call.
Compression is not asked for (`Accept-Encoding: identity`), and an answer compressed
anyway is refused: nothing is decompressed, so no small body can expand into a large one.
Proxies are taken from the environment (`https_proxy`, `http_proxy`, `no_proxy`), as the
usual HTTP clients do.
"""
from __future__ import annotations

import base64
import http.client
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from enum import Enum
from typing import NamedTuple

MAX_BODY = 4 * 1024 * 1024    # bytes of one answer's body, the list of models included
_PIECE = 64 * 1024            # bytes read at a time


class Failure(Enum):
    TIMEOUT = "the call's deadline passed (or it was stopped)"
    UNREACHABLE = "no connection could be made"
    LOST = "the connection broke before the answer was complete"
    INVALID = "the server's answer broke HTTP or the byte cap"


class ExchangeFailed(Exception):
    def __init__(self, failure: Failure, reason: str):
        super().__init__(reason)
        self.failure = failure
        self.reason = reason


class HttpAnswer(NamedTuple):
    status: int
    content_type: str | None
    body: bytes               # a 200's; an error's only as far as asked (`error_body`)


class Call:
    """One model call's deadline, and the way to end it from any thread."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._socket: socket.socket | None = None

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def over(self) -> bool:
        return self._stopped.is_set() or self.remaining() <= 0

    def stop(self) -> None:
        """End the call now: the connection in use is shut down (a read blocked on it
        returns at once) and no other try or wait begins. Idempotent."""
        with self._lock:
            self._stopped.set()
            held = self._socket
        if held is not None:
            _shut_down(held)

    def wait(self, seconds: float) -> bool:
        """Sleep (a backoff) unless the call ends first; False when it did."""
        if seconds >= self.remaining():
            return False
        return not self._stopped.wait(seconds) and not self.over

    def _hold(self, sock: socket.socket | None) -> None:
        """The socket a stop shuts down (None: the exchange is over with it)."""
        with self._lock:
            self._socket = sock
            stopped = self._stopped.is_set()
        if sock is not None and stopped:
            _shut_down(sock)


def _shut_down(sock: socket.socket) -> None:
    try:
        # the plain socket's shutdown, also for TLS: SSLSocket's own drops its TLS state,
        # which a read in another thread may be using
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass   # already closed, or never connected


def exchange(call: Call, method: str, url: str, headers: dict[str, str],
             body: bytes | None = None, error_body: int = 0) -> HttpAnswer:
    """Send one request and read its answer within `call`'s deadline; raises
    ExchangeFailed. The body of a 200 answer is read, at most MAX_BODY bytes; of another,
    its first `error_body` bytes at most (what it says of a refused field), else none."""
    if call.over:
        raise ExchangeFailed(Failure.TIMEOUT, f"no answer within {call.seconds:g} s")
    watchdog = threading.Timer(max(0.0, call.remaining()), call.stop)
    watchdog.daemon = True
    watchdog.start()
    connection: http.client.HTTPConnection | None = None
    try:
        connection, target = _connect(call, url)
        connection.request(method, target, body=body, headers={
            **headers, "Accept-Encoding": "identity", "Connection": "close"})
        response = connection.getresponse()
        if response.status != 200:
            said = _first_bytes(call, response, error_body) if error_body > 0 else b""
            if call.over:     # the body held the call to its deadline
                raise ExchangeFailed(Failure.TIMEOUT, f"no answer within {call.seconds:g} s")
            return HttpAnswer(response.status, None, said)
        encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
        if encoding != "identity":
            raise ExchangeFailed(Failure.INVALID, "a compressed answer, not asked for")
        return HttpAnswer(200, response.getheader("Content-Type"), _body(call, response))
    except ExchangeFailed:
        raise
    except (OSError, http.client.HTTPException, ValueError) as error:
        raise _failure(call, connection, error) from None
    finally:
        watchdog.cancel()
        call._hold(None)
        if connection is not None:
            connection.close()


def _body(call: Call, response: http.client.HTTPResponse) -> bytes:
    said = response.getheader("Content-Length", "").strip()
    length = int(said) if said.isascii() and said.isdigit() else None
    if length is not None and length > MAX_BODY:
        raise ExchangeFailed(Failure.INVALID, f"an answer of more than {_size(MAX_BODY)}")
    pieces: list[bytes] = []
    size = 0
    while True:
        piece = response.read(_PIECE)
        if not piece:
            break
        size += len(piece)
        if size > MAX_BODY:
            raise ExchangeFailed(Failure.INVALID, f"an answer of more than {_size(MAX_BODY)}")
        pieces.append(piece)
    # a read ends quietly at the end of the stream: a stop at the deadline ends it too
    if call.over:
        raise ExchangeFailed(Failure.TIMEOUT, f"no answer within {call.seconds:g} s")
    if length is not None and size < length:
        raise ExchangeFailed(Failure.INVALID, "an answer shorter than its Content-Length")
    return b"".join(pieces)


def _first_bytes(call: Call, response: http.client.HTTPResponse, most: int) -> bytes:
    """Up to `most` bytes of an error's body, within the deadline: whatever came by then
    (a body cut short, or one that never ends, is read no further)."""
    pieces: list[bytes] = []
    size = 0
    try:
        while size < most and not call.over:
            piece = response.read1(min(_PIECE, most - size))
            if not piece:
                break
            size += len(piece)
            pieces.append(piece)
    except (OSError, http.client.HTTPException, ValueError):
        pass
    return b"".join(pieces)


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB"


def _failure(call: Call, connection, error: Exception) -> ExchangeFailed:
    if call.over or isinstance(error, TimeoutError):
        return ExchangeFailed(Failure.TIMEOUT, f"no answer within {call.seconds:g} s")
    if connection is None:   # never connected (refused, no such host, TLS refused)
        reason = getattr(error, "reason", None) or getattr(error, "strerror", None)
        return ExchangeFailed(Failure.UNREACHABLE, str(reason or type(error).__name__))
    if isinstance(error, http.client.IncompleteRead):
        return ExchangeFailed(Failure.INVALID, "an answer shorter than its Content-Length")
    if isinstance(error, (http.client.RemoteDisconnected, ConnectionError)) or \
            type(error) is OSError or isinstance(error, ssl.SSLError):
        return ExchangeFailed(Failure.LOST, "lost the connection to the server")
    # a malformed status line or headers, too long or too many of them, a bad chunk size
    return ExchangeFailed(Failure.INVALID, f"an answer that breaks HTTP "
                                           f"({type(error).__name__})")


def _connect(call: Call, url: str) -> tuple[http.client.HTTPConnection, str]:
    """A connection to the server of `url` (through the environment's proxy, if any),
    its socket held by `call` from its first byte; and the request target to send."""
    parts = urllib.parse.urlsplit(url)
    secure = parts.scheme == "https"
    host, port = parts.hostname or "", parts.port or (443 if secure else 80)
    target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
    proxy = _proxy(parts.scheme, host)
    address = (host, port) if proxy is None else (proxy.hostname or "", proxy.port or 80)
    # the connection names the server (its Host header); its socket may go to a proxy
    connection = http.client.HTTPSConnection(host, port, context=_tls()) if secure \
        else http.client.HTTPConnection(host, port)
    sock = _open(call, address)
    try:
        connection.sock = sock          # http.client uses a socket it is given as it is
        if proxy is not None and not secure:
            return connection, url      # a plain proxy is sent the whole address
        if proxy is not None:
            _tunnel(connection, f"{host}:{port}", _proxy_authorization(proxy))
        if secure:
            tls = _tls().wrap_socket(
                sock, server_hostname=host, do_handshake_on_connect=False)
            call._hold(tls)
            connection.sock = tls
            tls.do_handshake()
    except BaseException:
        connection.close()
        sock.close()
        raise
    return connection, target


def _open(call: Call, address: tuple[str, int]) -> socket.socket:
    """A TCP connection to `address`, held by `call` while it connects (each address the
    name has, in turn, within the deadline, as socket.create_connection tries them)."""
    error: OSError = OSError("the name has no address")
    for family, kind, protocol, _, where in _addresses(call, address):
        sock = socket.socket(family, kind, protocol)
        call._hold(sock)
        try:
            sock.settimeout(max(0.001, call.remaining()))
            sock.connect(where)
            return sock
        except OSError as failed:
            sock.close()
            if call.over:
                raise
            error = failed
    raise error


def _addresses(call: Call, address: tuple[str, int]) -> list:
    """The name's addresses, looked up on a thread of its own: a lookup cannot be
    stopped, so the call waits for it only until its deadline."""
    found: list = []

    def look_up() -> None:
        try:
            found.append(socket.getaddrinfo(*address, type=socket.SOCK_STREAM))
        except OSError as error:   # socket.gaierror: no such name, no resolver
            found.append(error)

    lookup = threading.Thread(target=look_up, name="llm name lookup", daemon=True)
    lookup.start()
    lookup.join(max(0.0, call.remaining()))
    if not found:
        raise TimeoutError("the name lookup took the whole deadline")
    if isinstance(found[0], OSError):
        raise found[0]
    return found[0]


_TLS: list[ssl.SSLContext] = []


def _tls() -> ssl.SSLContext:
    """The system's certificates, verified (loaded once: a load takes milliseconds)."""
    if not _TLS:
        _TLS.append(ssl.create_default_context())
    return _TLS[0]


def _proxy(scheme: str, host: str):
    address = urllib.request.getproxies().get(scheme)
    if not address or urllib.request.proxy_bypass(host):
        return None
    return urllib.parse.urlsplit(address if "://" in address else f"http://{address}")


def _proxy_authorization(proxy) -> dict[str, str]:
    if proxy.username is None:
        return {}
    user = urllib.parse.unquote(proxy.username)
    password = urllib.parse.unquote(proxy.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Proxy-Authorization": f"Basic {token}"}


def _tunnel(connection: http.client.HTTPConnection, where: str, headers: dict) -> None:
    """CONNECT through the proxy, on the call's socket (so a stop ends it too)."""
    lines = [f"CONNECT {where} HTTP/1.1", f"Host: {where}",
             *(f"{name}: {value}" for name, value in headers.items())]
    connection.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    response = http.client.HTTPResponse(connection.sock, method="CONNECT")
    response.begin()
    if response.status != 200:
        raise ExchangeFailed(Failure.UNREACHABLE, f"the proxy answered HTTP {response.status}")
