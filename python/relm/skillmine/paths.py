"""Which literals of a chain name files it reads and files it writes: the written ones become parameters
(a skill leaves its side effects to its caller), the read ones are the smoke test's inputs.

A literal names a file when it is the path argument of a call that reads or writes one, directly, through
`Path(...)`, or through a variable the chain bound to it (`out = "report.csv"` ... `open(out, "w")`).
"""

import ast
import re

READERS = re.compile(r"^(?:open|read\w*|load\w*|Path|loadtxt|genfromtxt|imread|parse)$")
# Methods and functions whose first path-like argument is a file they write.
WRITERS = frozenset(
    (
        "to_csv to_json to_parquet to_excel to_pickle to_feather to_html to_latex to_markdown to_stata "
        "to_hdf to_xml to_netcdf to_file savefig save savez savez_compressed savetxt imsave imwrite "
        "write_csv write_parquet write_json write_ndjson write_excel write_ipc write_avro"
    ).split()
)
# Methods of a path that write it (or remove it): `Path("out.txt").write_text(...)`.
PATH_WRITERS = frozenset("write_text write_bytes touch mkdir unlink rmdir".split())
# Module functions: their arguments at these positions are changed (written, moved or removed).
MODULE_WRITERS = {
    ("os", "remove"): (0,),
    ("os", "unlink"): (0,),
    ("os", "rmdir"): (0,),
    ("os", "removedirs"): (0,),
    ("os", "makedirs"): (0,),
    ("os", "mkdir"): (0,),
    ("os", "rename"): (0, 1),
    ("os", "renames"): (0, 1),
    ("os", "replace"): (0, 1),
    ("shutil", "rmtree"): (0,),
    ("shutil", "move"): (0, 1),
    ("shutil", "copy"): (1,),
    ("shutil", "copy2"): (1,),
    ("shutil", "copyfile"): (1,),
    ("shutil", "copytree"): (1,),
}
PATH_KEYWORDS = frozenset("path path_or_buf fname file filename fp excel_writer".split())
PATH_CALLS = frozenset("Path PurePath PosixPath WindowsPath".split())


def call_name(func):
    """The name a call's function goes by: `f` of f(...) and of obj.f(...), else None."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _mode(call, position):
    """The mode of an open(...) call: positional at `position` or mode=, when a literal."""
    mode = call.args[position] if len(call.args) > position else None
    for k in call.keywords:
        if k.arg == "mode":
            mode = k.value
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "r"


class FileLiterals:
    """Finds the slots (indices into the chain's literals) of files read and written, cell by cell."""

    def __init__(self, slot_at):
        self.slot_at = slot_at  # (cell index, offset of a literal token) -> slot
        self.bindings = {}  # variable -> (cell index, value node) of its latest top-level `NAME = value`
        self.reads = set()
        self.writes = set()

    def scan(self, index, source):
        self.cell = index
        self.source = source
        for stmt in source.tree.body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call):
                    self._call(node)
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                self.bindings[stmt.targets[0].id] = (index, source, stmt.value)

    def _call(self, call):
        name = call_name(call.func)
        func = call.func
        if name == "open":
            on_path = isinstance(func, ast.Attribute) and not isinstance(func.value, ast.Name)
            target = func.value if on_path else (call.args[0] if call.args else None)
            mode = _mode(call, 0 if on_path else 1)
            into = self.writes if any(c in mode for c in "wax+") else self.reads
            self._note(target, into)
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            positions = MODULE_WRITERS.get((func.value.id, name))
            if positions is not None:
                for p in positions:
                    self._note(call.args[p] if len(call.args) > p else None, self.writes)
                return
        if name in PATH_WRITERS and isinstance(func, ast.Attribute):
            self._note(func.value, self.writes)
            return
        if name in WRITERS:
            candidates = list(call.args[:2]) + [k.value for k in call.keywords if k.arg in PATH_KEYWORDS]
            for arg in candidates:
                if self._note(arg, self.writes):
                    return
            return
        if name and READERS.match(name) and call.args:
            self._note(call.args[0], self.reads)

    def _note(self, expr, into):
        slots = self.resolve(expr, self.cell, self.source, 0)
        into.update(slots)
        return bool(slots)

    def resolve(self, expr, cell, source, depth):
        """The string-literal slots an expression's value comes from: `"a.txt"`, `Path(p)`, `p`."""
        if expr is None or depth > 5:
            return []
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            slot = self.slot_at.get((cell, source.node_start(expr)))
            return [] if slot is None else [slot]
        if isinstance(expr, ast.Name) and expr.id in self.bindings:
            at, where, value = self.bindings[expr.id]
            return self.resolve(value, at, where, depth + 1)
        if isinstance(expr, ast.Call) and call_name(expr.func) in PATH_CALLS and len(expr.args) == 1:
            return self.resolve(expr.args[0], cell, source, depth + 1)
        return []
