"""Inside a sandbox with an --allow-net list: relays 127.0.0.1:PORT to the host's proxy socket.

`python -I -S netfwd.py SOCKET PORT`: binds, then forks into the background and exits. It starts beside
the kernel (src/kernel/sandbox/bwrap.ts), and the kernel waits with wait_listening() before it says it
is ready, so no cell finds the port closed. The host's proxy (src/kernel/sandbox/proxy.ts) decides what
each connection may reach; this only copies bytes. Run without site or relm imports.
"""

import os
import socket
import sys
import threading
import time


def _pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _relay(client, path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()
    _pump(client, upstream)


def _listening(port):
    """Whether 127.0.0.1:port listens in this network namespace (read, not connected to: a connection
    would reach the host's proxy)."""
    local = "0100007F:%04X" % port
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            return any(fields[1] == local and fields[3] == "0A" for fields in (line.split() for line in f))
    except (OSError, StopIteration, IndexError):
        return True  # nothing to read: do not hold the kernel up


def wait_listening(timeout=10.0):
    """Called by a kernel (or the warm template) before it says it is ready: the forwarder starts beside
    it (src/kernel/sandbox/bwrap.ts), and a cell must find the proxy's port listening. A forwarder that
    never listens holds nothing up past `timeout`: connections are then refused, as without a network."""
    port = os.environ.get("RELM_NETFWD_PORT")
    if not port:
        return
    deadline = time.monotonic() + timeout
    while not _listening(int(port)) and time.monotonic() < deadline:
        time.sleep(0.002)


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    if os.fork() != 0:
        os._exit(0)  # the parent: the port is listening, the kernel may start
    os.setsid()  # out of the kernel's way: its interrupts and group kills are not for the relay
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


if __name__ == "__main__":
    main()
