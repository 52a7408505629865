"""Capture of fds 1 and 2: Python prints, raw fd writes and subprocesses become one ordered text.

Capture takes over the process's standard fds, so each case runs in a child Python that reports
over the protocol fd Capture moved aside (exactly where a runner would send its messages).
"""

import json
import subprocess
import sys
import textwrap
import unittest

from .support import TIMEOUT, kernel_env

PRELUDE = """
import json, os, subprocess, sys
from relm import capture
cap = capture.Capture()
chunks = []
cap.on_text = chunks.append
def report(value):
    os.write(cap.proto_out, (json.dumps(value) + "\\n").encode())
"""


def run_child(body, stdin=b""):
    """Runs PRELUDE + body; returns the values it reported."""
    code = PRELUDE + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, env=kernel_env("plain"), timeout=TIMEOUT
    )
    if done.returncode != 0:
        raise AssertionError(f"child failed ({done.returncode}):\n{done.stderr.decode(errors='replace')}")
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


class CaptureTests(unittest.TestCase):
    def test_python_fd_and_subprocess_output_arrive_in_order(self):
        [text, streamed] = run_child(
            """
            print("py-out")
            print("py-err", file=sys.stderr)
            os.write(1, b"fd1\\n")
            os.write(2, b"fd2\\n")
            subprocess.run("echo sub-out; echo sub-err >&2", shell=True)
            os.system("echo system")
            sys.stdout.write("no newline")
            text = cap.end_cell()
            report(text)
            report("".join(chunks))
            """
        )
        self.assertEqual(text, "py-out\npy-err\nfd1\nfd2\nsub-out\nsub-err\nsystem\nno newline")
        self.assertEqual(streamed, text)  # on_text saw every chunk

    def test_each_cell_gets_only_what_was_written_since_the_last(self):
        results = run_child(
            """
            print("one")
            report(cap.end_cell())
            report(cap.end_cell())
            print("two")
            report(cap.end_cell())
            """
        )
        self.assertEqual(results, ["one\n", "", "two\n"])

    def test_output_larger_than_a_pipe_buffer_does_not_block_the_writer(self):
        [length, tail] = run_child(
            """
            subprocess.run([sys.executable, "-c", "import sys; sys.stdout.write('x' * 3_000_000 + 'end')"])
            text = cap.end_cell()
            report(len(text))
            report(text[-3:])
            """
        )
        self.assertEqual((length, tail), (3_000_003, "end"))

    def test_a_cell_that_prints_without_end_keeps_its_head_and_tail_only(self):
        # `!yes` until the cell timeout once held every character: gigabytes in the kernel's memory.
        [text, again, small, streamed] = run_child(
            """
            cap.keep = 1_000_000
            script = "import sys; sys.stdout.write('HEAD' + 'x' * 3_000_000 + 'TAIL')"
            subprocess.run([sys.executable, "-c", script])
            report(cap.end_cell())
            report(cap.end_cell())
            print("small")
            report(cap.end_cell())
            report(sum(len(c) for c in chunks))
            """
        )
        head, marker, tail = text.partition("\n[relm: 2,000,008 characters")
        self.assertTrue(marker, text[:200])
        self.assertEqual((len(head), head[:4]), (500_000, "HEAD"))
        self.assertTrue(tail.endswith("x" * 499_996 + "TAIL"))
        self.assertIn("first and last 500,000", tail[:300])
        self.assertEqual((again, small), ("", "small\n"))
        self.assertEqual(streamed, 3_000_008 + 6)  # the live stream still saw all of it

    def test_a_character_split_across_writes_is_not_mangled(self):
        [first, second] = run_child(
            """
            data = "é✓".encode()
            os.write(1, data[:1])
            report(cap.end_cell())
            os.write(1, data[1:])
            report(cap.end_cell())
            """
        )
        self.assertEqual((first, second), ("", "é✓"))

    def test_a_cell_that_closes_or_redirects_its_fds_does_not_lose_later_output(self):
        [after] = run_child(
            """
            os.close(1)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            os.system("echo lost; echo lost-too >&2")
            cap.end_cell()
            print("after")
            os.system("echo child-after >&2")
            report(cap.end_cell())
            """
        )
        self.assertEqual(after, "after\nchild-after\n")

    def test_stdin_is_empty_and_the_protocol_input_is_out_of_reach(self):
        [stdin_text, child_read, proto_line, inheritable] = run_child(
            """
            report(sys.stdin.read())
            report(subprocess.run(["cat"], capture_output=True).stdout.decode())
            with os.fdopen(cap.proto_in, "rb") as f:
                report(f.readline().decode())
            report([os.get_inheritable(fd) for fd in (cap.proto_out, cap.diag)])
            """,
            stdin=b'{"type":"execute"}\n',
        )
        self.assertEqual((stdin_text, child_read), ("", ""))
        self.assertEqual(proto_line, '{"type":"execute"}\n')
        self.assertEqual(inheritable, [False, False])  # subprocesses never hold the protocol

    def test_on_cell_end_runs_once_the_output_is_complete(self):
        [events] = run_child(
            """
            events = []
            cap.on_cell_end = lambda: events.append(("end", len(chunks)))
            print("x" * 10)
            cap.end_cell()
            report(events)
            """
        )
        self.assertEqual(events, [["end", 1]])


if __name__ == "__main__":
    unittest.main()
