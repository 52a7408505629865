"""The body of a skill's function, rebuilt from a chain's cells by editing their source (comments and layout
kept): literals swapped for parameters, top-level imports hoisted to the module, assignments of a parameter
to itself dropped, what earlier cells only displayed left out, and the last value returned.
"""

import ast

from .paths import call_name

# Calls that only look: a displayed `len(rows)` or `df.head()` of an earlier cell is left out of the function.
PURE_CALLS = frozenset(
    (
        "len type repr str int float bool list tuple set dict sorted min max sum abs round any all isinstance "
        "hasattr getattr range enumerate zip reversed id hash format vars dir"
    ).split()
)
LOOKING_METHODS = frozenset(
    (
        "head tail describe keys values items copy count mean median sum min max std unique nunique "
        "value_counts isna isnull notna sample shape dtypes most_common get"
    ).split()
)
# Calls that print: a cell holding one printed more than the value it displayed.
PRINTING = frozenset("print display pprint info show".split())


class Body:
    def __init__(self):
        self.lines = []
        self.hoisted = []
        self.returns = {"kind": "none", "expr": None, "show": ""}
        self.quiet_cells = []  # cells whose recorded output the function no longer prints
        self.last_cell_prints = False
        self.shows = False


def build_body(chain, slot_names):
    body = Body()
    last = len(chain.sources) - 1
    texts = []
    for index, source in enumerate(chain.sources):
        edits = Edits(source)
        for k, (cell, token) in enumerate(chain.slots):
            if cell == index and k in slot_names:
                edits.replace(token.start, token.end, slot_names[k])
        statements = source.tree.body
        for stmt in statements:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                body.hoisted.append(source.segment(stmt))
                edits.remove_statement(stmt, keep="pass")
            elif _self_assignment(chain, index, stmt, slot_names):
                edits.remove_statement(stmt)
        final = statements[-1] if statements else None
        if index == last:
            body.last_cell_prints = _prints(statements[:-1])
            if final is not None:
                body.returns = _return(source, final, edits)
        elif final is not None and _displayed(source, final):
            if _prints(statements[:-1]):
                edits.insert(source.node_start(final), "_show(")
                edits.insert(source.node_end(final), ")")
                body.shows = True
            else:
                body.quiet_cells.append(index)
                if _pure(final.value):
                    edits.remove_statement(final)
        text = edits.apply(indent="    ").rstrip()
        if text.strip():
            texts.append(text)
    body.lines = "\n\n".join(texts).split("\n") if texts else []
    body.lines = [line.rstrip() for line in body.lines]
    return body


def _self_assignment(chain, index, stmt, slot_names):
    """`path = "a.txt"` where that literal became the parameter `path`: the line goes."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    if not isinstance(stmt.value, ast.Constant):
        return False
    slot = chain.slot_at.get((index, chain.sources[index].node_start(stmt.value)))
    return slot is not None and slot_names.get(slot) == stmt.targets[0].id


def _displayed(source, stmt):
    """IPython shows the value of a cell's last statement when it is an expression not ending in `;`."""
    if not isinstance(stmt, ast.Expr) or _is_print(stmt.value):
        return False
    return not _silenced(source, stmt)


def _silenced(source, stmt):
    end = source.node_end(stmt)
    for t in source.tokens:
        if t.start >= end and t.kind not in ("comment", "newline"):
            return t.text == ";"
    return False


def _is_print(expr):
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "print"


def _prints(statements):
    calls = (node for stmt in statements for node in ast.walk(stmt) if isinstance(node, ast.Call))
    return any(call_name(node.func) in PRINTING for node in calls)


def _pure(expr):
    for node in ast.walk(expr):
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda)):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in PURE_CALLS:
                continue
            if isinstance(func, ast.Attribute) and func.attr in LOOKING_METHODS:
                continue
            return False
    return True


def _return(source, stmt, edits):
    """The chain's last statement made the function's return: its value, or what it printed."""
    if isinstance(stmt, ast.Expr) and _is_print(stmt.value):
        return _return_printed(source, stmt, edits)
    if isinstance(stmt, ast.Expr):
        expr = edits.text(source.node_start(stmt), source.node_end(stmt))
        edits.insert(source.node_start(stmt), "return ")
        kind = "silent" if _silenced(source, stmt) else "display"
        return {"kind": kind, "expr": expr, "show": "" if kind == "silent" else "_r"}
    target = None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        target = stmt.target
    if isinstance(target, ast.Name):
        edits.insert(edits.line_end(source.node_end(stmt)), f"\nreturn {target.id}")
        return {"kind": "assigned", "expr": target.id, "show": ""}
    return {"kind": "none", "expr": None, "show": ""}


def _return_printed(source, stmt, edits):
    """`print(len(words), "words")` becomes `return len(words)`; the smoke test prints it the same way."""
    call = stmt.value
    keywords = [k for k in call.keywords if k.arg in ("sep", "end", "flush")]
    fixed = lambda node: isinstance(node, ast.Constant) and not edits.touches(node)  # noqa: E731
    if (
        not call.args
        or len(keywords) != len(call.keywords)
        or any(isinstance(a, ast.Starred) for a in call.args)
        or not all(fixed(k.value) for k in keywords)
        or call.lineno != call.end_lineno
    ):
        return {"kind": "none", "expr": None, "show": ""}
    values = [a for a in call.args if not fixed(a)] or call.args[:1]
    exprs = [edits.text(source.node_start(a), source.node_end(a)) for a in values]
    expr = exprs[0] if len(exprs) == 1 else "(" + ", ".join(exprs) + ")"
    shown = []
    for a in call.args:
        if a in values:
            shown.append("_r" if len(values) == 1 else f"_r[{values.index(a)}]")
        else:
            shown.append(source.segment(a))
    shown += [f"{k.arg}={source.segment(k.value)}" for k in keywords]
    edits.replace(source.node_start(stmt), source.node_end(stmt), f"return {expr}")
    return {"kind": "print", "expr": expr, "show": f"print({', '.join(shown)})"}


class Edits:
    """Replacements and insertions on a cell's source, applied in one pass with the indentation."""

    def __init__(self, source):
        self.source = source
        self.items = []  # (start, end, text)
        # Newlines inside multi-line strings are part of the string: never indented.
        self.in_strings = set()
        for t in source.tokens:
            if t.kind in ("string", "fstring") and "\n" in t.text:
                self.in_strings.update(t.start + i for i, c in enumerate(t.text) if c == "\n")

    def replace(self, start, end, text):
        self.items.append((start, end, text))

    def insert(self, at, text):
        self.items.append((at, at, text))

    def touches(self, node):
        start, end = self.source.node_start(node), self.source.node_end(node)
        return any(s < end and e > start for s, e, _ in self.items)

    def line_end(self, offset):
        nl = self.source.code.find("\n", offset)
        return len(self.source.code) if nl < 0 else nl

    def remove_statement(self, stmt, keep=""):
        """Drops a statement with its lines when it stands alone on them; else replaces it by `keep`."""
        code = self.source.code
        start, end = self.source.node_start(stmt), self.source.node_end(stmt)
        line_start = code.rfind("\n", 0, start) + 1
        tail = code[end : self.line_end(end)].strip()
        if code[line_start:start].strip() == "" and (tail == "" or tail.startswith("#")):
            self.items.append((line_start, min(self.line_end(end) + 1, len(code)), ""))
        elif tail.startswith(";"):
            # `import os; x = 1`: the statement and its `;` go, the rest of the line stays.
            after = end + code[end:].index(";") + 1
            while after < len(code) and code[after] in " \t":
                after += 1
            self.items.append((start, after, ""))
        elif keep:
            self.items.append((start, end, keep))

    def text(self, start, end):
        """The source between two offsets with the edits inside it applied (no indentation)."""
        return self._apply(start, end, "")

    def apply(self, indent):
        return indent + self._apply(0, len(self.source.code), indent)

    def _apply(self, start, end, indent):
        code = self.source.code
        # Wider edits (a removed line, a replaced print) swallow the ones inside them.
        items = sorted(
            (i for i in self.items if start <= i[0] and i[1] <= end),
            key=lambda i: (i[0], 0 if i[0] == i[1] else 1, -(i[1] - i[0])),
        )
        out = []
        pos = start
        for s, e, text in items:
            if s < pos:
                continue  # inside a wider edit already applied
            out.append(self._copy(pos, s, indent))
            out.append(text.replace("\n", "\n" + indent) if indent else text)
            pos = max(pos, e)
        out.append(self._copy(pos, end, indent))
        return "".join(out)

    def _copy(self, start, end, indent):
        if not indent:
            return self.source.code[start:end]
        out = []
        for i in range(start, end):
            c = self.source.code[i]
            out.append(c)
            if c == "\n" and i not in self.in_strings and i + 1 < len(self.source.code):
                out.append(indent)
        return "".join(out)

