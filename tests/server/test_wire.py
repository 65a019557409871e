"""`server.wire.WireProtocol`, uvicorn's WebSocket protocol with a direct way out (`write_now`) and in
(`listen`) for the table's frames: what it writes and when it declines, and that messages keep their
order when the app starts listening.
"""

from __future__ import annotations

import asyncio

import pytest
import uvicorn
from livekit import LiveServer
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.streams import StreamReader

from server.app import create_app
from server.lobby import Lobby
from server.wire import UVICORN_OPTIONS, WireProtocol

pytestmark = pytest.mark.asyncio


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.reading = True

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


def _wire() -> tuple[WireProtocol, _Transport]:
    config = uvicorn.Config(create_app(Lobby()), log_level="warning", **UVICORN_OPTIONS)
    config.load()
    wire = WireProtocol(config, ServerState(), {}, asyncio.get_running_loop())
    transport = _Transport()
    wire.transport = transport  # type: ignore[assignment]
    return wire, transport


def _open(wire: WireProtocol) -> None:
    """As after the app accepted the socket (no extension negotiated)."""
    wire.handshake_complete = True
    wire.conn.state = State.OPEN


async def test_write_now_frames_the_text_at_once_and_declines_while_it_cannot_write() -> None:
    wire, transport = _wire()
    assert not wire.write_now("early")  # not accepted yet
    _open(wire)
    assert wire.write_now("hi")
    assert transport.written == [b"\x81\x02hi"]  # one unmasked text frame, written without waiting
    wire.pause_writing()  # the transport's buffer is over its high-water mark
    assert not wire.write_now("later")
    wire.resume_writing()
    wire.close_sent = True  # the app closed the socket
    assert not wire.write_now("after close")
    assert transport.written == [b"\x81\x02hi"]


async def test_listening_takes_queued_text_first_and_leaves_the_rest_in_order() -> None:
    wire, transport = _wire()
    _open(wire)
    wire.handle_text(Frame(Opcode.TEXT, b"one"))  # nobody listens: queued for receive(), reading paused
    wire.handle_text(Frame(Opcode.TEXT, b"two"))
    assert not transport.reading
    heard: list[str] = []
    wire.listen(heard.append)
    assert heard == ["one", "two"] and wire.queue.empty() and transport.reading
    wire.handle_text(Frame(Opcode.TEXT, b"three"))
    assert heard == ["one", "two", "three"] and wire.queue.empty()
    wire.listen(None)
    wire.handle_text(Frame(Opcode.TEXT, b"four"))
    assert heard == ["one", "two", "three"]
    assert await wire.queue.get() == {"type": "websocket.receive", "text": "four"}


async def test_listening_stops_at_a_message_of_another_kind() -> None:
    wire, _ = _wire()
    _open(wire)
    wire.handle_text(Frame(Opcode.TEXT, b"one"))
    wire.handle_bytes(Frame(Opcode.BINARY, b"\x00"))
    wire.handle_text(Frame(Opcode.TEXT, b"two"))
    heard: list[str] = []
    wire.listen(heard.append)
    assert heard == ["one"]  # "two" must not overtake the binary message the app has not read yet
    assert await wire.queue.get() == {"type": "websocket.receive", "bytes": b"\x00"}
    assert await wire.queue.get() == {"type": "websocket.receive", "text": "two"}


async def test_a_live_server_sends_and_reads_every_seat_through_the_wire() -> None:
    async with LiveServer.running() as live:
        table_id, clients = await live.playing()
        table = live.table(table_id)
        assert len(table.connections) == 4
        assert all(isinstance(conn.sink, WireProtocol) for conn in table.connections)
        assert all(conn.queue.empty() for conn in table.connections)  # nothing waited for a writer
        answer = await clients[0].request("chat", {"text": "hello"})  # read by the listener, acked through the sink
        assert answer["t"] == "ack"
        other = clients[1]
        await other.wait_for(lambda: [line["text"] for line in other.state["chat"]] == ["hello"], "the chat line")
        assert all(conn.queue.empty() for conn in table.connections)


async def test_write_now_compresses_as_websockets_would_and_a_client_reads_every_message() -> None:
    wire, transport = _wire()
    _open(wire)
    # permessage-deflate as negotiated with a browser: context kept from message to message
    wire.conn.extensions = [PerMessageDeflate(False, False, 15, 15, {"memLevel": 5})]
    reference = PerMessageDeflate(False, False, 15, 15, {"memLevel": 5})  # websockets' own framing, in step
    client = PerMessageDeflate(False, False, 15, 15)  # the client's side of the same connection
    texts = ['{"t":"diff","d":{"seq":1}}', '{"t":"diff","d":{"seq":2}}', "é" * 200, "x" * 70_000]
    for text in texts:
        assert wire.write_now(text)
        assert transport.written[-1] == Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[reference])
    reader = StreamReader()
    for data in transport.written:
        reader.feed_data(data)
    reader.feed_eof()
    read = []
    for _ in texts:
        parser = Frame.parse(reader.read_exact, mask=False, extensions=[client])
        try:
            next(parser)
        except StopIteration as done:
            frame = done.value
        assert frame.fin and frame.opcode is Opcode.TEXT
        read.append(bytes(frame.data).decode())
    assert read == texts
    assert len(transport.written[1]) < len(transport.written[0])  # the second diff leans on the first


async def test_write_now_leaves_other_extensions_to_websockets() -> None:
    wire, transport = _wire()
    _open(wire)
    wire.conn.extensions = [PerMessageDeflate(False, True, 15, 15)]  # a fresh context per message
    assert wire.write_now("hello")
    fresh = PerMessageDeflate(False, True, 15, 15)
    assert transport.written == [Frame(Opcode.TEXT, b"hello").serialize(mask=False, extensions=[fresh])]
