"""Fallback engine when IPython cannot be imported: plain exec with IPython-like echo of a final
expression. `!cmd` and `%magics` are syntax errors here."""

import ast
import asyncio
import builtins
import inspect
import linecache
import os
import sys
import traceback


class PlainEngine:
    version = None

    def __init__(self, first_count=1):
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.hidden = {}
        self._next = first_count
        self._loop = None

    def run(self, code):
        """Runs one cell; returns (execution_count, error or None)."""
        count = self._next
        self._next += 1
        filename = f"<cell-{count}>"
        # Register the source so tracebacks can show the failing lines.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        try:
            tree = ast.parse(code, filename=filename)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            body = compile(tree, filename, "exec", flags=flags)
            expr = compile(last, filename, "eval", flags=flags) if last is not None else None
        except SyntaxError as e:
            traceback.print_exception(type(e), e, None, file=sys.stdout)
            return count, _err(e)
        try:
            self._eval(body)
            if expr is not None:
                value = self._eval(expr)
                if value is not None:
                    self.namespace["_"] = value
                    print(repr(value))
        except BaseException as e:  # noqa: BLE001 - the cell's, KeyboardInterrupt and SystemExit too
            tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
            while tb is not None and not tb.tb_frame.f_code.co_filename.startswith("<cell-"):
                tb = tb.tb_next
            _print_without_relm(e, tb)
            return count, _err(e)
        return count, None

    def next_count(self):
        return self._next

    def _eval(self, code):
        result = eval(code, self.namespace)
        if code.co_flags & inspect.CO_COROUTINE:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            result = self._loop.run_until_complete(result)
        return result


def _err(e):
    return {"name": type(e).__name__, "value": str(e)}


def _print_without_relm(e, tb):
    """The traceback from the cell's frame on, less relm's own frames (an Esc's KeyboardInterrupt is
    raised inside relm's SIGINT handler)."""
    # relm's own code (the interrupt handler a KeyboardInterrupt is raised in, the engine) is not the
    # person's. Its folder from a code object's file name, not __file__: a remote kernel's modules are
    # imported from memory (src/kernel/launchers/bootstrap.ts) and have none.
    relm_dir = os.path.dirname(_print_without_relm.__code__.co_filename) + os.sep
    te = traceback.TracebackException(type(e), e, tb)
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not f.filename.startswith(relm_dir)])
    sys.stdout.write("".join(te.format()))
