"""Runs one cell end to end: capture, cap for the model, keep the full text in `_out`."""

import contextlib
import os

from . import display, interrupts, writegate

DEFAULT_CAP = 20_000
OUT_LIMIT_CHARS = 200_000_000  # `_out` keeps full outputs until they total about this much


class CellRunner:
    def __init__(self, engine, capture, streamer, output_dir=None):
        self.engine = engine
        self.capture = capture
        self.streamer = streamer
        self.output_dir = output_dir
        self.out = {}
        self._out_chars = 0
        engine.namespace["_out"] = self.out

    def execute(self, msg):
        cap = msg.get("cap") or DEFAULT_CAP
        writegate.arm(msg.get("gate"), msg.get("tree"))
        display.begin_cell()
        count = self.engine.next_count()
        self.streamer.begin(msg["id"], cap, count)
        state = interrupts.state
        state.pending = False
        state.running = True
        try:
            count, error = self.engine.run(msg["code"])
            state.running = False
        except KeyboardInterrupt:
            # Arrived outside the engine's own handling (e.g. while IPython was setting up the cell).
            state.running = False
            error = {"name": "KeyboardInterrupt", "value": ""}
        finally:
            state.running = False
            # Held only while the cell runs: the snapshot after it (its fork, its files) is not the cell's.
            writegate.arm(None, None)
        text = self.capture.end_cell()
        return self._result(msg["id"], count, text, cap, error)

    def _result(self, cell_id, count, text, cap, error):
        self._keep(count, text)
        status = "ok" if error is None else "error"
        result = {"type": "result", "id": cell_id, "count": count, "status": status}
        chars = len(text)
        if chars > cap:
            head = cap // 2
            tail = cap - head
            omitted = chars - cap
            where = f"_out[{count}]"
            path = self._write_full(count, text)
            if path is not None:
                result["path"] = path
                where += f" and in {path}"
            dropped = self.capture.dropped
            whole = f"the output (but for {dropped:,} characters not kept)" if dropped else "the full output"
            marker = f"\n[... {omitted:,} characters omitted; {whole} is in {where} ...]\n"
            result["output"] = text[:head] + marker + text[chars - tail :]
            result["truncated"] = True
            # Views say how many lines a cut output has (the UI folds to lines); counting is cheap.
            result["lines"] = text.count("\n") + (0 if text.endswith("\n") else 1)
        else:
            result["output"] = text
        result["chars"] = chars
        if error is not None:
            result["error"] = error
        shell_exit = getattr(self.engine, "shell_exit", None)
        if shell_exit is not None:
            result["shell_exit"] = shell_exit
        if display.images:
            result["images"] = list(display.images)
        return result

    def _keep(self, count, text):
        self.engine.namespace["_out"] = self.out  # in case the cell rebound or deleted it
        old = self.out.pop(count, None)
        if old is not None:
            self._out_chars -= len(old)
        self.out[count] = text
        self._out_chars += len(text)
        while self._out_chars > OUT_LIMIT_CHARS and len(self.out) > 1:
            oldest = next(iter(self.out))
            self._out_chars -= len(self.out.pop(oldest))

    def _write_full(self, count, text):
        if not self.output_dir:
            return None
        try:
            os.makedirs(self.output_dir, exist_ok=True)
            path = os.path.abspath(os.path.join(self.output_dir, f"cell-{count}.txt"))
            # A new file renamed over the name: whatever a cell put there (a FIFO, which open() would
            # wait on for a reader for ever) is replaced, never opened.
            tmp = f"{path}.{os.getpid()}.tmp"
            try:
                with open(tmp, "x", encoding="utf-8", errors="replace") as f:
                    f.write(text)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            return path
        except OSError:
            return None
