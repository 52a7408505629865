"""The network forwarder a sandboxed kernel forks off itself (relm/netfwd.py start_beside): the port
listens when the call returns, bytes go both ways to the proxy's Unix socket, and the forwarder holds no
file of the kernel's (the host sees the kernel's pipes close when the kernel ends). Real sockets, a real
fork; the "proxy" is an echo server on a Unix socket."""

import os
import signal
import socket
import tempfile
import threading
import unittest
from unittest import mock

from relm import netfwd


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class _EchoProxy:
    """Stands in for the host's proxy: answers each connection with what it read, upper-cased."""

    def __init__(self, path):
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(4)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(conn.recv(1024).upper())


@unittest.skipUnless(hasattr(os, "fork") and os.path.isdir("/proc/self/fd"), "Linux only")
class StartBesideTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "proxy.sock")
        self.proxy = _EchoProxy(self.path)
        self.port = _free_port()
        self.pid = None

    def tearDown(self):
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        self.proxy.server.close()

    def start(self):
        with mock.patch.dict(os.environ, {"RELM_NETFWD": "%s %d" % (self.path, self.port)}):
            self.pid = netfwd.start_beside()
        self.assertIsNotNone(self.pid)

    def test_relays_to_the_proxy_socket_as_soon_as_it_returns(self):
        self.start()
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as c:
            c.sendall(b"get http://example.org/")
            self.assertEqual(c.recv(1024), b"GET HTTP://EXAMPLE.ORG/")

    def test_holds_none_of_the_kernels_files(self):
        r, w = os.pipe()  # a protocol pipe of the kernel's
        try:
            self.start()
            os.close(w)
            w = None
            self.assertEqual(os.read(r, 1), b"")  # EOF: nobody else holds the write end
        finally:
            os.close(r)
            if w is not None:
                os.close(w)

    def test_starts_nothing_without_a_spec_or_when_the_port_is_taken(self):
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("RELM_NETFWD", None)
            self.assertIsNone(netfwd.start_beside())
        taken = socket.socket()
        taken.bind(("127.0.0.1", self.port))
        taken.listen(1)
        try:
            with mock.patch.dict(os.environ, {"RELM_NETFWD": "%s %d" % (self.path, self.port)}):
                self.assertIsNone(netfwd.start_beside())
        finally:
            taken.close()


if __name__ == "__main__":
    unittest.main()
