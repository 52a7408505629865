"""Inside a sandbox with an --allow-net list: relays 127.0.0.1:PORT to the host's proxy socket.

A kernel or warm template forks it off itself before anything else (start_beside); any other sandboxed
command gets `python -I -S netfwd.py SOCKET PORT` in front of it (main). Either way the port listens
before the sandboxed code runs. The host's proxy (src/kernel/sandbox/proxy.ts) decides what each
connection may reach; this only copies bytes. No site or relm imports: it also runs as a bare script.
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


def _bind(port):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
    except OSError:
        listener.close()
        raise
    return listener


def _serve(listener, path):
    """The forwarder's life, in a process of its own: out of the kernel's way (its interrupts and group
    kills are not for the relay), holding no file of the process it came from but the listener."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    keep = {0, 1, 2, listener.fileno()}
    for name in os.listdir("/proc/self/fd"):
        if int(name) not in keep:
            try:
                os.close(int(name))
            except OSError:
                pass  # the listing's own fd, gone already
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def start_beside():
    """Called first thing by a sandboxed kernel or warm template (`python -m relm.runner` /
    `relm.template`) when RELM_NETFWD is "SOCKET PORT": binds the port, forks the forwarder off and
    returns in the kernel. The port listens before the kernel runs anything, and no second interpreter
    starts (src/kernel/sandbox/bwrap.ts; other sandboxed commands get `main` in front of them instead).
    Returns the forwarder's pid, or None when none was started."""
    spec = os.environ.get("RELM_NETFWD")
    if not spec:
        return None
    path, _, port = spec.rpartition(" ")
    try:
        listener = _bind(int(port))
    except (OSError, ValueError):
        return None  # something listens already, or a bad spec: connections are then refused, as with no network
    pid = os.fork()
    if pid == 0:
        try:
            _serve(listener, path)
        finally:
            os._exit(0)
    listener.close()
    return pid


def main():
    """`python -I -S netfwd.py SOCKET PORT`, in front of a sandboxed command that is not a kernel (a gate,
    a hook, an MCP server): binds, then forks into the background and exits, so the command started after
    it finds the port listening."""
    path, port = sys.argv[1], int(sys.argv[2])
    listener = _bind(port)
    if os.fork() != 0:
        os._exit(0)  # the parent: the port is listening, the command may start
    _serve(listener, path)


if __name__ == "__main__":
    main()
