"""Inside a sandbox with an --allow-net list: relays 127.0.0.1:PORT to the host's proxy socket.

`python -I -S netfwd.py SOCKET PORT`: binds first, then forks into the background and exits, so the
kernel started after it finds the port listening. The host's proxy (src/kernel/sandbox/proxy.ts)
decides what each connection may reach; this only copies bytes. Run without site or relm imports.
"""

import os
import socket
import sys
import threading


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
