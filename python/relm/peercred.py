"""Who is on the other end of a session socket: `python -I -S peercred.py`, a helper of a session host (Linux).

Node cannot ask the kernel for a Unix socket's peer credentials (SO_PEERCRED), and relm installs
without a compiler, so the host hands each connection it needs to identify to this process over
Node's IPC channel (the fd travels with SCM_RIGHTS; Node's `child.send(message, handle)`), and this
answers with the pid of the process that connected. The host then reads /proc to tell whether that
process runs inside a relm kernel (src/host/peer.ts).

The channel speaks Node's IPC format: JSON lines; a line {"cmd": "NODE_HANDLE", "msg": {...}} carries
one fd and must be acknowledged with {"cmd": "NODE_HANDLE_ACK"} before Node sends the next handle.
Everything else that starts with NODE_ is Node's own business and ignored. Standalone on purpose:
started with -I -S, it imports nothing of relm's or the user's.
"""

import array
import json
import os
import socket
import struct

MAX_FDS = 64


def main():
    channel = socket.socket(fileno=int(os.environ["NODE_CHANNEL_FD"]))
    fds = []
    buffered = b""
    while True:
        data, ancillary, _, _ = channel.recvmsg(1 << 16, socket.CMSG_SPACE(MAX_FDS * 4))
        if not data:
            return  # the host is gone
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                received = array.array("i")
                received.frombytes(payload[: len(payload) - len(payload) % received.itemsize])
                fds.extend(received)
        buffered += data
        *lines, buffered = buffered.split(b"\n")
        for line in lines:
            if line.strip():
                _handle(channel, json.loads(line), fds)


def _handle(channel, message, fds):
    if message.get("cmd") != "NODE_HANDLE":
        return
    fd = fds.pop(0) if fds else None
    _send(channel, {"cmd": "NODE_HANDLE_ACK"})
    request = message.get("msg") or {}
    reply = {"id": request.get("id")}
    if fd is None:
        reply["error"] = "no file descriptor came with the request"
    else:
        peer = socket.socket(fileno=fd)
        try:
            creds = peer.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            reply["pid"], reply["uid"], _ = struct.unpack("3i", creds)
        except OSError as e:
            reply["error"] = f"SO_PEERCRED: {e.strerror}"
        finally:
            peer.close()  # our copy only; the host keeps its own
    _send(channel, reply)


def _send(channel, message):
    channel.sendall((json.dumps(message, separators=(",", ":")) + "\n").encode())


if __name__ == "__main__":
    main()
