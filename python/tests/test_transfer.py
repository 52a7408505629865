"""Files moved over the protocol for kernels that share no disk with the host (relm.transfer)."""

import base64
import os
import stat
import unittest

from relm import transfer


class TransferTests(unittest.TestCase):
    def setUp(self):
        from .support import temp_dir

        self.dir = temp_dir(self)
        self.sent = []

    def ask(self, **msg):
        transfer.handle({"id": len(self.sent) + 1, **msg}, self.sent.append)
        return self.sent[-1]

    def test_writes_in_pieces_into_new_private_directories_and_reads_back_by_offset(self):
        path = os.path.join(self.dir, "in", "deep", "x.bin")
        first, second = bytes(range(256)) * 10, b"tail"
        reply = self.ask(type="file_write", path=path, data=base64.b64encode(first).decode())
        self.assertEqual(reply, {"type": "file", "id": 1})
        self.ask(type="file_write", path=path, data=base64.b64encode(second).decode(), append=True)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode), 0o700)
        reply = self.ask(type="file_read", path=path, offset=2550, length=100)
        self.assertEqual(reply["size"], len(first) + len(second))
        self.assertEqual(base64.b64decode(reply["data"]), (first + second)[2550:])
        # A write that is not an append starts the file over.
        self.ask(type="file_write", path=path, data=base64.b64encode(b"new").decode())
        self.assertEqual(open(path, "rb").read(), b"new")

    def test_remove_is_quiet_about_a_missing_file_and_errors_are_answered(self):
        path = os.path.join(self.dir, "gone")
        self.assertEqual(self.ask(type="file_remove", path=path), {"type": "file", "id": 1})
        reply = self.ask(type="file_read", path=path, offset=0, length=10)
        self.assertEqual(reply["id"], 2)
        self.assertIn("gone", reply["error"])


if __name__ == "__main__":
    unittest.main()
