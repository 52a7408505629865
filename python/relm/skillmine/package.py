"""A chain of cells packaged as a skill: one function whose parameters are the literals that differed
between runs and the files the chain wrote, with the imports at the module's top, the chain's last value
returned instead of printed, and a docstring. Deterministic: the same request gives the same code.
"""

import ast
import keyword
import re
import textwrap

from .body import build_body
from .names import analyse_names
from .paths import FileLiterals
from .source import Source, literal_string

DULL_CALLS = frozenset(
    "print len str int float list dict set tuple sorted open range enumerate zip repr type isinstance".split()
)

SHOW_HELPER = '''

def _show(value):
    """Prints a value as the kernel showed an earlier cell's last expression (IPython's text form)."""
    if value is None:
        return
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        text = shell.display_formatter.format(value)[0].get("text/plain")
        if text is not None:
            print(text)
            return
    print(repr(value))
'''


def identifier(text):
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).lower()
    snake = re.sub(r"[^a-z0-9_]", "_", snake).lstrip("_")
    return snake[:40] if re.match(r"[a-z]", snake) else f"v_{snake}"[:40]


def doc_text(text):
    """Text safe inside a \"\"\"docstring\"\"\": backslashes doubled, triple quotes broken up."""
    return text.replace("\\", "\\\\").replace('"""', '\\"""')


class Chain:
    """The first occurrence's cells, parsed, with the chain-wide literal slots and names."""

    def __init__(self, cells):
        self.sources = [Source(code) for code in cells]
        self.names = [analyse_names(s) for s in self.sources]
        self.slots = [(i, t) for i, source in enumerate(self.sources) for t in source.literals()]  # (cell, token)
        self.slot_at = {(i, t.start): k for k, (i, t) in enumerate(self.slots)}
        self.files = FileLiterals(self.slot_at)
        for i, source in enumerate(self.sources):
            self.files.scan(i, source)
        self.variables = []  # variable tokens in order: (cell, token)
        for i, source in enumerate(self.sources):
            self.variables.extend((i, t) for t in source.tokens if t.start in self.names[i].positions)

    def renamable(self):
        return set().union(*(n.renamable for n in self.names))

    def holder_of(self, slot, kind):
        """The node of `kind` (ast.Assign, ast.keyword) whose whole value is the literal, if any."""
        cell, token = self.slots[slot]
        source = self.sources[cell]
        for node in ast.walk(source.tree):
            value = getattr(node, "value", None)
            if isinstance(node, kind) and isinstance(value, ast.Constant) and source.node_start(value) == token.start:
                return node
        return None


def package(request):
    chain = Chain(request["cells"])
    occurrences = request["occurrences"]
    parameters = name_parameters(chain, request.get("varying", []), occurrences)
    slot_names = {slot: p["name"] for p in parameters for slot in p["slots"]}
    body = build_body(chain, slot_names)
    # Packaged again (with a model's docstring), a candidate keeps the name it was shown with.
    name = request.get("name") or unique(function_name(chain, parameters), set(request.get("taken", [])))
    summary = summary_of(chain)
    docstring = request.get("docstring") or derived_docstring(request, summary, parameters, body)
    args = ", ".join(p["name"] for p in parameters)
    lines = [f"def {name}({args}):", *_doc_lines(docstring), *body.lines]
    if not body.lines:
        lines.append("    pass")
    function_source = "\n".join(lines)
    imports = list(dict.fromkeys([*request.get("imports", []), *body.hoisted]))  # each once, in order
    module_doc = [
        f"{name}: a skill relm packaged from repeated work (`relm harness skills --suggest`).",
        *([""] + list(request["module_doc"]) if request.get("module_doc") else []),
    ]
    code = "\n".join(
        [
            '"""' + doc_text(module_doc[0]),
            *[doc_text(line) for line in module_doc[1:]],
            '"""',
            "",
            *imports,
            *([""] if imports else []),
            f'__all__ = ["{name}"]',
            "",
            "",
            function_source,
        ]
    )
    code += SHOW_HELPER if body.shows else "\n"
    problem = None
    try:
        compile(code, f"{name}/__init__.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        problem = f"the generated function does not compile ({error.msg}, line {error.lineno})"
    return {
        "name": name,
        "summary": summary,
        "parameters": parameters,
        "function_source": function_source,
        "code": code,
        "docstring": docstring,
        "returns": body.returns,
        "quiet_cells": body.quiet_cells,
        "files": files_of(chain, occurrences),
        "last_cell_prints": body.last_cell_prints,
        "problem": problem,
    }


def files_of(chain, occurrences):
    """Every literal naming a file the chain reads or writes, with its value in each occurrence."""
    out = []
    for slot in sorted(chain.files.reads | chain.files.writes):
        role = "write" if slot in chain.files.writes else "read"
        out.append({"slot": slot, "role": role, "strings": [literal_string(o["literals"][slot]) for o in occurrences]})
    return out


def _doc_lines(docstring):
    text = doc_text(docstring.strip())
    lines = text.split("\n")
    if len(lines) == 1:
        return [f'    """{lines[0]}"""']
    out = [f'    """{lines[0]}']
    out.extend(f"    {line}".rstrip() for line in lines[1:])
    out.append('    """')
    return out


def name_parameters(chain, varying, occurrences):
    """One parameter per group of literals that varied, and one per file the chain writes."""
    groups = [list(slots) for slots in varying]
    in_group = {s for g in groups for s in g}
    written = {}
    for slot in sorted(chain.files.writes - in_group):
        # The same file written from two places is one parameter.
        value = chain.slots[slot][1].text
        written.setdefault(literal_string(value) or value, []).append(slot)
    groups.extend(written.values())
    groups.sort(key=lambda g: min(g))
    first_use = {}
    for cell, token in chain.variables:
        first_use.setdefault(token.text, (cell, token.start))
    used = set(first_use)
    chosen = set()
    out = []
    for slots in groups:
        role = "write" if any(s in chain.files.writes for s in slots) else (
            "read" if any(s in chain.files.reads for s in slots) else "value"
        )
        name, origin, own = name_for(chain, slots[0], role, first_use)
        unique_name = name
        n = 2
        while (
            unique_name in chosen
            or keyword.iskeyword(unique_name)
            or (unique_name in used and unique_name != own)
        ):
            unique_name = f"{name}_{n}"
            n += 1
        chosen.add(unique_name)
        values = [o["literals"][slots[0]] for o in occurrences]
        out.append(
            {
                "name": unique_name,
                "slots": slots,
                "origin": origin,
                "role": role,
                "values": values,
                "strings": [literal_string(v) for v in values],
            }
        )
    return out


def name_for(chain, slot, role, first_use):
    """A parameter's name from where its literal sat, how it was chosen, and the variable it replaces."""
    cell, token = chain.slots[slot]
    wrote = "; the chain writes this file" if role == "write" else ""
    assign = chain.holder_of(slot, ast.Assign)  # `NAME = <the literal>`
    if assign is not None and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name):
        target = assign.targets[0]
        start = chain.sources[cell].node_start(target)
        own = identifier(target.id) if first_use.get(target.id) == (cell, start) else None
        return identifier(target.id), f"was bound to `{target.id}`{wrote}", own
    kw = chain.holder_of(slot, ast.keyword)  # `f(NAME=<the literal>)`
    if kw is not None and kw.arg:
        return identifier(kw.arg), f"was passed as {kw.arg}={wrote}", None
    if role == "write":
        return "out_path", "the file the chain wrote", None
    if role == "read":
        return "path", "the file the chain read", None
    if token.kind == "number":
        return "n", "a number in the chain", None
    return "text", "a string in the chain", None


def function_name(chain, parameters):
    """`<the last variable of 3+ letters the chain made>_from_<first parameter>`, e.g. top_from_path."""
    made = None
    called = None
    renamable = chain.renamable()
    for source in chain.sources:
        depth = 0
        tokens = [t for t in source.tokens if t.kind != "comment"]
        for k, t in enumerate(tokens):
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if t.kind == "op" and t.text in "([{":
                depth += 1
            elif t.kind == "op" and t.text in ")]}":
                depth = max(0, depth - 1)
            if t.kind != "name" or keyword.iskeyword(t.text):
                continue
            if nxt is not None and nxt.text == "=" and depth == 0 and t.text in renamable and len(t.text) > 2:
                made = t.text
            if nxt is not None and nxt.text == "(" and t.text not in DULL_CALLS:
                called = t.text
    first = parameters[0]["name"] if parameters else None
    thing = identifier(made if made and made != first else (called or "chain"))
    name = f"{thing}_from_{first}" if first else f"compute_{thing}"
    return name[:40].rstrip("_")


def unique(name, taken):
    if name not in taken:
        return name
    n = 2
    while f"{name[:37]}_{n}" in taken:
        n += 1
    return f"{name[:37]}_{n}"


def summary_of(chain):
    """The chain's first whole-line comment, else the calls it makes: deterministic and checkable."""
    for source in chain.sources:
        previous = None
        for t in source.tokens:
            if t.kind == "comment" and (previous is None or previous.kind == "newline" or previous.line < t.line):
                text = re.sub(r"^#+\s*", "", t.text).strip()
                if len(text) > 3:
                    return re.sub(r"[.:]$", "", text[:120])
            previous = t
    calls = []
    for source in chain.sources:
        tokens = [t for t in source.tokens if t.kind != "comment"]
        for k, t in enumerate(tokens[:-1]):
            if t.kind == "name" and tokens[k + 1].text == "(" and t.text not in calls and t.text != "print":
                if not keyword.iskeyword(t.text):
                    calls.append(t.text)
    return f"calls {', '.join(calls[:6])}" if calls else "runs a repeated chain of cells"


def derived_docstring(request, summary, parameters, body):
    """The plain docstring made from the chain itself, when no model wrote one."""
    first = summary[:1].upper() + summary[1:]
    lines = [f"{first}.", ""]
    about = (
        f"Packaged by relm from a {len(request['cells'])}-cell chain run {request.get('times', 'more than once')}; "
        "literals that differed became parameters"
        + (", and so did the files it writes." if any(p["role"] == "write" for p in parameters) else ".")
    )
    note = request.get("docstring_note")
    if note:
        about += f" This docstring was derived from the chain: {note}."
    lines += _wrap(about)
    if parameters:
        lines += ["", "Args:"]
        for p in parameters:
            recorded = ", ".join(dict.fromkeys(p["values"]))
            lines += _hanging(f"{p['name']}: {p['origin']}; recorded {recorded}.")
    lines += ["", "Returns:", *_hanging(describe_return(body.returns))]
    return "\n".join(lines)


DOC_WIDTH = 88


def _wrap(text, first="", rest=""):
    # Paths and code stay whole: a line runs long rather than split one.
    return textwrap.wrap(
        text, DOC_WIDTH, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )


def _hanging(text):
    return _wrap(text, "    ", "        ")


# How the docstring's Returns: line reads, by what the chain's last statement was (body._return).
_RETURNS = {
    "display": "The value of `{}`, which the chain's last cell showed.",
    "print": "`{}`, which the chain's last cell printed.",
    "silent": "The value of `{}`, the chain's last expression.",
    "assigned": "`{}`, the last value the chain assigned.",
}


def describe_return(returns):
    expr = returns.get("expr") or ""
    if len(expr) > 100:
        expr = expr[:99] + "…"
    said = _RETURNS.get(returns["kind"])
    return said.format(expr) if said else "None: the chain ends in a statement with no value."
