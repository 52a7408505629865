"""What the names of a cell are, from its syntax tree: which tokens are variables, which names the cell binds
(and may be renamed between occurrences of a chain), which it binds but are part of its meaning (imports,
parameters), and which it reads before binding them (it needs them from outside).
"""

import ast
import bisect
import builtins

# What a kernel has without importing anything: builtins, IPython's own names.
KNOWN = frozenset(dir(builtins)) | {"display", "get_ipython", "In", "Out", "exit", "quit", "__name__"}


class Names:
    def __init__(self):
        self.positions = set()  # start offsets of the tokens that are variables
        # Bound by assignment, for, with/except ... as, def, class, import ... as, := (not `import json` or a
        # def's or lambda's parameters: their names are part of the cell's meaning).
        self.renamable = set()
        self.bound = set()  # bound at the cell's top level (what later cells can read)
        self.free = []  # read before being bound (builtins left out), in order of first read
        self.top_level_await = False


def analyse_names(source):
    flow = _Flow(source)
    flow.visit(source.tree)
    flow.finish()
    return flow.names


def _stores(nodes):
    """Names a function or class body binds (its locals), nested scopes included: a cheap over-estimate."""
    out = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                out.update(import_binding(a) for a in node.names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                out.add(node.name)
    return out


def import_binding(alias):
    return alias.asname or alias.name.split(".")[0]


class _Flow(ast.NodeVisitor):
    """Visits statements in the order Python runs them (values before targets)."""

    def __init__(self, source):
        self.source = source
        self.names = Names()
        self.scopes = []  # [(locals, deferred)]: deferred for function bodies, which run later
        self.deferred = []  # names a function body reads from the module, checked at the end
        self.async_depth = 0
        self._starts = [t.start for t in source.tokens]

    # -- reads and binds

    def read(self, name):
        for local, _ in reversed(self.scopes):
            if name in local:
                return
        if any(deferred for _, deferred in self.scopes):
            self.deferred.append(name)
        elif name not in self.names.bound:
            self._free(name)

    def _free(self, name):
        if name not in KNOWN and name not in self.names.free:
            self.names.free.append(name)

    def bind(self, name, renamable=True):
        if renamable:
            self.names.renamable.add(name)
        if self.scopes:
            self.scopes[-1][0].add(name)
        else:
            self.names.bound.add(name)

    def mark(self, node):
        self.names.positions.add(self.source.node_start(node))

    def mark_word(self, node, word, after=None):
        """Marks the token `word` found after the node's start (and after the token `after`, if given)."""
        at = bisect.bisect_left(self._starts, self.source.node_start(node))
        seen = after is None
        for t in self.source.tokens[at:]:
            if seen and t.kind == "name" and t.text == word:
                self.names.positions.add(t.start)
                return
            if t.text == after:
                seen = True

    def finish(self):
        for name in self.deferred:
            if name not in self.names.bound:
                self._free(name)

    def _visit_each(self, *nodes):
        """Visits `nodes` one after the other (None skipped): the order Python evaluates them in."""
        for node in nodes:
            if node is not None:
                self.visit(node)

    # -- statements

    def visit_Assign(self, node):
        self._visit_each(node.value, *node.targets)

    def visit_AnnAssign(self, node):
        self._visit_each(node.value, node.annotation, node.target)

    def visit_AugAssign(self, node):
        # `x += 1` reads x first; it binds no new name, so it is not renamed on its own.
        if isinstance(node.target, ast.Name):
            self.mark(node.target)
            self.read(node.target.id)
            self.visit(node.value)
            if not self.scopes:
                self.names.bound.add(node.target.id)
        else:
            self._visit_each(node.value, node.target)

    def visit_For(self, node):
        self._visit_each(node.iter, node.target, *node.body, *node.orelse)

    def visit_AsyncFor(self, node):
        self._async(node)
        self.visit_For(node)

    def visit_With(self, node):
        for item in node.items:
            self._visit_each(item.context_expr, item.optional_vars)
        self._visit_each(*node.body)

    def visit_AsyncWith(self, node):
        self._async(node)
        self.visit_With(node)

    def visit_NamedExpr(self, node):
        self._visit_each(node.value, node.target)

    def visit_Import(self, node):
        for alias in node.names:
            if alias.asname:
                self.bind(alias.asname)
                self.mark_word(alias, alias.asname, after="as")  # aliases have positions (3.10+)
            elif alias.name != "*":
                self.bind(import_binding(alias), renamable=False)

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        self._visit_each(node.type)
        if node.name:
            self.bind(node.name)
            self.mark_word(node, node.name, after="as")
        self._visit_each(*node.body)

    def visit_FunctionDef(self, node):
        is_async = isinstance(node, ast.AsyncFunctionDef)
        self._visit_each(*node.decorator_list)
        self._arguments_outside(node.args)
        self._visit_each(node.returns)
        self.bind(node.name)
        self.mark_word(node, node.name, after="def")
        local = self._parameters(node.args) | _stores(node.body)
        self.scopes.append((local, True))
        self.async_depth += is_async
        self._visit_each(*node.body)
        self.async_depth -= is_async
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._arguments_outside(node.args)
        self.scopes.append((self._parameters(node.args), True))
        self.visit(node.body)
        self.scopes.pop()

    def visit_ClassDef(self, node):
        self._visit_each(*node.decorator_list, *node.bases, *[k.value for k in node.keywords])
        self.scopes.append((_stores(node.body), False))
        self._visit_each(*node.body)
        self.scopes.pop()
        self.bind(node.name)
        self.mark_word(node, node.name, after="class")

    def _arguments_outside(self, args):
        """Defaults and annotations are evaluated where the def or lambda is."""
        self._visit_each(*args.defaults, *args.kw_defaults, *[a.annotation for a in self._all_args(args)])

    def _parameters(self, args):
        names = set()
        for arg in self._all_args(args):
            names.add(arg.arg)
            self.mark(arg)
        return names

    @staticmethod
    def _all_args(args):
        out = list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)
        return out + [a for a in (args.vararg, args.kwarg) if a is not None]

    # -- comprehensions: the first iterable is read outside, the rest inside their own scope

    def _comprehension(self, node, results):
        generators = node.generators
        self.visit(generators[0].iter)
        self.scopes.append((set(), False))
        for i, gen in enumerate(generators):
            if gen.is_async:
                self._async(node)
            self._visit_each(gen.iter if i > 0 else None, gen.target, *gen.ifs)
        self._visit_each(*results)
        self.scopes.pop()

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_ListComp
    visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    # -- names

    def visit_Name(self, node):
        self.mark(node)
        if isinstance(node.ctx, ast.Store):
            self.bind(node.id)
        else:
            self.read(node.id)

    def visit_Await(self, node):
        self._async(node)
        self.generic_visit(node)

    def _async(self, node):
        if self.async_depth == 0:
            self.names.top_level_await = True

    def visit_MatchAs(self, node):
        self._visit_each(node.pattern)
        if node.name:
            self.bind(node.name)

    def visit_MatchStar(self, node):
        if node.name:
            self.bind(node.name)

    def visit_MatchMapping(self, node):
        self.generic_visit(node)
        if node.rest:
            self.bind(node.rest)
