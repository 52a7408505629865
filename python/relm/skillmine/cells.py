"""One recorded cell as the miner compares it: its normalised form, its literals, the names it binds and
reads, its top-level imports, or why it cannot become part of a function.
"""

import ast
import keyword
import re
import tokenize

from .names import analyse_names, import_binding
from .source import Source, literal_key, string_prefix

_MAGIC = re.compile(r"^\s*[%!]")
_HELP = re.compile(r"\?\s*$")


def why_not_python(code, error):
    """Why a cell that does not parse cannot be packaged, in the words the miner reports."""
    lines = code.replace("\r\n", "\n").split("\n")
    if any(_MAGIC.match(line) for line in lines):
        return "uses an IPython magic or `!command`"
    if any(_HELP.search(line) and not line.lstrip().startswith("#") for line in lines):
        return "uses `?` help"
    line = getattr(error, "lineno", None)
    message = getattr(error, "msg", None)
    if isinstance(error, tokenize.TokenError) and len(error.args) == 2:
        message, (line, _) = error.args
    message = message or str(error) or type(error).__name__
    where = f", line {line}" if line else ""
    return f"is not valid Python ({message}{where})"


def read_source(code):
    """The cell parsed, or the reason it is not Python this miner can rebuild."""
    try:
        return Source(code), None
    except Exception as error:  # SyntaxError, tokenize.TokenError and others: the code does not parse
        return None, why_not_python(code, error)


def analyse_cell(code):
    source, problem = read_source(code)
    if problem:
        return {"problem": problem}
    names = analyse_names(source)
    if names.top_level_await:
        return {"problem": "uses top-level await"}
    pieces = []
    for t in source.tokens:
        if t.kind == "comment":
            continue
        if t.kind == "newline":
            pieces.append(f"\n{t.level}")
        elif t.kind == "number":
            pieces.append("<num>")
        elif t.kind == "string":
            pieces.append("<bytes>" if "b" in string_prefix(t.text) else "<str>")
        elif t.kind == "name" and not keyword.iskeyword(t.text) and t.start in names.positions:
            pieces.append({"n": t.text})
        else:
            pieces.append(t.text)  # keywords, operators, attributes, keyword arguments, f-strings
    return {
        "size": len(source.code_tokens()),
        "pieces": pieces,
        "binds": sorted(names.renamable),
        "bound": sorted(names.bound),
        "free": names.free,
        "literals": [{"text": t.text, "key": literal_key(t.text)} for t in source.literals()],
        "imports": top_level_imports(source),
    }


def top_level_imports(source):
    """Each `import` at the cell's top level: the names it binds and its source."""
    return [
        {"names": [import_binding(a) for a in stmt.names if a.name != "*"], "text": source.segment(stmt)}
        for stmt in source.tree.body
        if isinstance(stmt, (ast.Import, ast.ImportFrom))
    ]

