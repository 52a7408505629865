"""SIGINT policy: a running cell gets KeyboardInterrupt, an idle kernel ignores it, and a protocol
write in progress is never torn (the interrupt waits until the line is out)."""

import signal
import threading
import unittest

from relm import interrupts


def _sigint():
    """SIGINT to this (main) thread; pthread_kill runs the Python handler before it returns."""
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


class InterruptTests(unittest.TestCase):
    def setUp(self):
        state = interrupts.state
        saved = (state.running, state.holding, state.pending, state.received)

        def restore():
            state.running, state.holding, state.pending, state.received = saved

        self.addCleanup(restore)
        previous = signal.getsignal(signal.SIGINT)
        self.addCleanup(signal.signal, signal.SIGINT, previous)
        interrupts.install()
        state.running, state.holding, state.pending = False, 0, False

    def test_an_idle_kernel_ignores_sigint(self):
        before = interrupts.state.received
        _sigint()
        self.assertEqual(interrupts.state.received, before)

    def test_a_running_cell_is_interrupted_and_counted(self):
        interrupts.state.running = True
        before = interrupts.state.received
        with self.assertRaises(KeyboardInterrupt):
            _sigint()
        self.assertEqual(interrupts.state.received, before + 1)

    def test_an_interrupt_during_a_deferred_section_arrives_at_its_end(self):
        interrupts.state.running = True
        reached_end_of_block = []
        with self.assertRaises(KeyboardInterrupt):
            with interrupts.deferred():
                _sigint()
                with interrupts.deferred():  # nested: still held
                    pass
                reached_end_of_block.append(True)
        self.assertEqual(reached_end_of_block, [True])
        self.assertFalse(interrupts.state.pending)

    def test_a_held_interrupt_is_dropped_if_the_cell_ended_meanwhile(self):
        interrupts.state.running = True
        with interrupts.deferred():
            _sigint()
            interrupts.state.running = False
        self.assertFalse(interrupts.state.pending)

    def test_deferred_is_a_no_op_off_the_main_thread(self):
        seen = []

        def other():
            with interrupts.deferred():
                seen.append(interrupts.state.holding)

        t = threading.Thread(target=other)
        t.start()
        t.join(10)
        self.assertEqual(seen, [0])


if __name__ == "__main__":
    unittest.main()
