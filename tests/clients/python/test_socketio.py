"""python-socketio's AsyncClient against the socketio_echo example server.

The server binary comes from SOCKETIO_ECHO_BIN, else
$CARGO_TARGET_DIR/debug/examples/socketio_echo (CARGO_TARGET_DIR defaults to
the repository's target/).
"""

import asyncio
import os
import pathlib
import socket
import subprocess

import pytest
import pytest_asyncio
import socketio

REPO = pathlib.Path(__file__).resolve().parents[3]
TIMEOUT = 5


def echo_binary() -> str:
    if os.environ.get("SOCKETIO_ECHO_BIN"):
        return os.environ["SOCKETIO_ECHO_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR") or str(REPO / "target")
    return os.path.join(target, "debug", "examples", "socketio_echo")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    port = free_port()
    proc = subprocess.Popen(
        [echo_binary()],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert "listening" in line, f"server did not start: {line!r}"
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait()


class Recorder:
    """Collects events per (namespace, name) into queues."""

    def __init__(self, client: socketio.AsyncClient):
        self.client = client
        self.queues = {}

    def listen(self, event: str, namespace: str = "/"):
        queue = self.queues.setdefault((namespace, event), asyncio.Queue())

        async def handler(*args):
            await queue.put(list(args))

        self.client.on(event, handler, namespace=namespace)

    async def next(self, event: str, namespace: str = "/"):
        return await asyncio.wait_for(self.queues[(namespace, event)].get(), TIMEOUT)


def make_client():
    client = socketio.AsyncClient(reconnection=False)
    rec = Recorder(client)
    for nsp in ("/", "/custom"):
        rec.listen("auth", nsp)
    rec.listen("message-back")
    return client, rec


@pytest.mark.asyncio
async def test_default_transports_upgrade_to_websocket(server_url):
    client, rec = make_client()
    await client.connect(server_url, auth={"token": "abc"}, wait_timeout=TIMEOUT)
    assert await rec.next("auth") == [{"token": "abc"}]
    assert client.transport() == "websocket"
    await client.emit("message", ("after upgrade", 42))
    assert await rec.next("message-back") == ["after upgrade", 42]
    await client.disconnect()


@pytest.mark.asyncio
@pytest.mark.parametrize("transports", [["websocket"], ["polling"]])
async def test_auth_on_main_and_custom_namespace(server_url, transports):
    client, rec = make_client()
    await client.connect(
        server_url,
        namespaces=["/", "/custom"],
        auth={"token": "xyz"},
        transports=transports,
        wait_timeout=TIMEOUT,
    )
    assert await rec.next("auth") == [{"token": "xyz"}]
    assert await rec.next("auth", "/custom") == [{"token": "xyz"}]
    await client.disconnect()


@pytest.mark.asyncio
@pytest.mark.parametrize("transports", [["websocket"], ["polling"]])
async def test_message_ack_and_binary(server_url, transports):
    client, rec = make_client()
    await client.connect(server_url, transports=transports, wait_timeout=TIMEOUT)
    assert await rec.next("auth") == [{}]

    # A tuple carries several arguments; a list would be one argument.
    await client.emit("message", (1, "2", {"3": [True]}))
    assert await rec.next("message-back") == [1, "2", {"3": [True]}]

    ack = await client.call("message-with-ack", (1, "2"), timeout=TIMEOUT)
    assert list(ack) == [1, "2"]

    await client.emit("message", (b"\x01\x02\x03", {"nested": b"\x04\x05"}))
    assert await rec.next("message-back") == [b"\x01\x02\x03", {"nested": b"\x04\x05"}]

    ack = await client.call("message-with-ack", b"\x09\x08", timeout=TIMEOUT)
    assert ack == b"\x09\x08"

    await client.disconnect()
    assert not client.connected
