"""The network forwarder's readiness check (relm/netfwd.py): a sandboxed kernel starts beside its
forwarder and says it is ready only once the proxy's port listens. Against real sockets of this
network namespace: /proc/net/tcp is read, nothing connects."""

import os
import socket
import threading
import time
import unittest
from unittest import mock

from relm import netfwd


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@unittest.skipUnless(os.path.exists("/proc/net/tcp"), "Linux only")
class ListeningTest(unittest.TestCase):
    def test_a_listening_port_is_seen_and_a_closed_one_is_not(self):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        try:
            self.assertTrue(netfwd._listening(port))
        finally:
            listener.close()
        self.assertFalse(netfwd._listening(port))

    def test_a_bound_port_that_does_not_listen_yet_is_not_ready(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        try:
            self.assertFalse(netfwd._listening(s.getsockname()[1]))
        finally:
            s.close()

    def test_wait_returns_once_the_port_listens(self):
        port = _free_port()
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))

        def listen_later():
            time.sleep(0.2)  # the forwarder's interpreter starting beside the kernel
            listener.listen(1)

        t = threading.Thread(target=listen_later)
        t.start()
        try:
            with mock.patch.dict(os.environ, {"RELM_NETFWD_PORT": str(port)}):
                netfwd.wait_listening(timeout=10)
                self.assertTrue(netfwd._listening(port))
        finally:
            t.join()
            listener.close()

    def test_wait_gives_up_at_its_timeout_and_does_nothing_without_a_port(self):
        port = _free_port()
        with mock.patch.dict(os.environ, {"RELM_NETFWD_PORT": str(port)}):
            started = time.monotonic()
            netfwd.wait_listening(timeout=0.1)
            self.assertGreaterEqual(time.monotonic() - started, 0.1)
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("RELM_NETFWD_PORT", None)
            netfwd.wait_listening(timeout=10)  # returns at once


if __name__ == "__main__":
    unittest.main()
