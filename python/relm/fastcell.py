"""A plain cell without the parts of IPython's `run_cell` that nobody can observe.

`run_cell` spends most of a cell like `x = 1` on machinery, not on the cell: a coroutine and its runner,
re-deciding whether the cell needs an event loop, and nine writes of traitlets (`execution_count`,
`last_execution_*`, the display hook's `exec_result` twice, history's `_i`, `_ii`, `_iii`, `_i00`) that
each validate and look for observers. `run` below takes the same steps as IPython 8's `run_cell` ->
`_run_cell` -> `run_cell_async`, in the same order, calling IPython's own methods for everything a person
or an extension can see: the input transforms (`transform_cell`), the events, the logger, the
compiler's cache and its `__future__` flags, `run_ast_nodes` (so every statement is compiled and run as
IPython does, with its display hook and tracebacks), and `showsyntaxerror`/`showtraceback`/`CustomTB`.
What it skips: the coroutine (IPython drives it with `_pseudo_sync_runner` for such a cell anyway), and,
for a trait nobody observes or validates (checked at each write), traitlets' bookkeeping around the
value it stores.

A cell goes to IPython's `run_cell` instead (`run` returns None) when it may need what is not copied here:
IPython syntax (magics, `!`, `?`, pasted prompts), a word that may mean top-level `await`, an input line
the dynamic transforms rewrite (automagic, autocall), `exit`/`quit`, or a shell configured differently
(AST or post-input transformers, another `ast_node_interactivity`, a trio runner, history kept in a
database). python/tests/test_fastcell.py runs the same cells both ways and compares everything.
"""

import re
import sys

from traitlets import All

# What IPython's static input transforms (IPython.core.inputtransformer2) act on: escapes and magics
# (`!`, `%`, `?` anywhere: also `x = !ls`, `obj?`, `%%cell`), a logical line starting with `,` `;` `/`
# (autocall escapes), pasted prompts (`>>> `, `... `, `In [1]: `, `...: `); an indented or blank first line
# is checked apart. Conservative: `!=` or a `%` in a string also take IPython's own path.
SPECIAL = re.compile(r"[!%?]|>>>|\.\.\.|In \[|^[ \t]*[,;/]", re.M)

# The trait types whose validation accepts the values written here unchanged (an int, a bool, an
# ExecutionResult or None, a str): for other types (a subclass may redefine a trait) the write goes
# through traitlets.
_PLAIN_TRAITS = ("Int", "Integer", "Bool", "Instance", "Unicode")

runs = 0  # cells run here (the tests check which path a cell took)


def static_plain(shell, raw_cell):
    """True when IPython's static input transforms leave the cell as it is (it has none of their syntax)."""
    return not (raw_cell[:1].isspace() or shell.input_transformers_post or SPECIAL.search(raw_cell))


def run(shell, raw_cell):
    """Runs a plain cell as `shell.run_cell(raw_cell, store_history=True)` would; returns its
    ExecutionResult, or None (nothing done) when the cell must go to `run_cell`."""
    if not _eligible(shell, raw_cell):
        return None
    result = None
    try:
        # The transform IPython would apply: none for several lines; the dynamic one (prefilter) for one.
        try:
            cell = shell.transform_cell(raw_cell)
        except Exception:
            return None  # run_cell transforms again and shows the error as its own
        if cell != (raw_cell if raw_cell.endswith("\n") else raw_cell + "\n"):
            shell._relm_transformed = (raw_cell, cell)  # run_cell takes it instead of transforming again
            return None
        try:
            result = _run(shell, raw_cell, cell)
        except BaseException as e:  # noqa: BLE001 - as `_run_cell`: e.g. an interrupt outside the cell's code
            from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult

            result = ExecutionResult(ExecutionInfo(raw_cell, True, False, True, None))
            result.error_in_exec = e
            shell.showtraceback(running_compiled_code=True)
    except BaseException:
        _post(shell, None)  # an interrupt while transforming: run_cell's `finally`
        raise
    _post(shell, result)
    global runs
    runs += 1
    return result


def _post(shell, result):
    shell.events.trigger("post_execute")
    shell.events.trigger("post_run_cell", result)


def _eligible(shell, raw_cell):
    if not raw_cell or raw_cell.isspace() or not static_plain(shell, raw_cell):
        return False
    if "await" in raw_cell or "async" in raw_cell:  # may run in an event loop (should_run_async)
        return False
    if "get_ipython().run_line_magic(" in raw_cell and "paste" in raw_cell:
        return False  # IPython stores no history for a cell calling the `paste` magic
    history = shell.history_manager
    return (
        history is not None
        and getattr(history.store_inputs, "relm_without_queue", False)  # what _store_inputs copies
        and not history.enabled
        and not history._exit_re.match(raw_cell.strip())  # `exit`, `quit`: IPython stores nothing
        and shell.trio_runner is None
        and not shell.ast_transformers
        and shell.ast_node_interactivity == "last_expr"
    )


def _run(shell, raw_cell, cell):
    """`run_cell_async` for store_history=True, silent=False, shell_futures=True, a transformed cell and
    no preprocessing error; synchronous, with cheap trait writes."""
    from IPython.core.async_helpers import _pseudo_sync_runner
    from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult

    info = ExecutionInfo(raw_cell, True, False, True, None)
    result = ExecutionResult(info)
    count = _get(shell, "execution_count")
    result.execution_count = count

    def error_before_exec(value):
        _set(shell, "execution_count", _get(shell, "execution_count") + 1)
        result.error_before_exec = value
        _set(shell, "last_execution_succeeded", False)
        _set(shell, "last_execution_result", result)
        return result

    shell.events.trigger("pre_execute")
    shell.events.trigger("pre_run_cell", info)
    _store_inputs(shell.history_manager, shell, count, cell, raw_cell)
    shell.logger.log(cell, raw_cell)
    compiler = shell.compile
    with shell.builtin_trap:
        cell_name = compiler.cache(cell, count, raw_code=raw_cell)
        with shell.display_trap:
            try:
                code_ast = compiler.ast_parse(cell, filename=cell_name)
            except shell.custom_exceptions as e:
                etype, value, tb = sys.exc_info()
                shell.CustomTB(etype, value, tb)
                return error_before_exec(e)
            except IndentationError as e:
                shell.showindentationerror()
                return error_before_exec(e)
            except (OverflowError, SyntaxError, ValueError, TypeError, MemoryError) as e:
                shell.showsyntaxerror()
                return error_before_exec(e)
            displayhook = shell.displayhook
            _set(displayhook, "exec_result", result)
            nodes = shell.run_ast_nodes(code_ast.body, cell_name, interactivity="last_expr", compiler=compiler, result=result)
            has_raised = _pseudo_sync_runner(nodes)
            _set(shell, "last_execution_succeeded", not has_raised)
            _set(shell, "last_execution_result", result)
            _set(displayhook, "exec_result", None)
    shell.history_manager.store_output(count)
    _set(shell, "execution_count", _get(shell, "execution_count") + 1)
    return result


def _store_inputs(history, shell, line_num, source, source_raw):
    """HistoryManager.store_inputs with history off (relm's shell): the database queue is not kept."""
    source = source.rstrip("\n")
    source_raw = source_raw.rstrip("\n")
    history.input_hist_parsed.append(source)
    history.input_hist_raw.append(source_raw)
    if not history.save_flag.is_set():
        history.save_flag.set()  # as IPython's: nobody waits on it with the database off
    ii, i, i00 = _get(history, "_ii"), _get(history, "_i"), _get(history, "_i00")
    _set(history, "_iii", ii)
    _set(history, "_ii", i)
    _set(history, "_i", i00)
    _set(history, "_i00", source_raw)
    shell.push({"_i": i00, "_ii": i, "_iii": ii, f"_i{line_num}": source_raw}, interactive=False)


def _get(obj, name):
    try:
        return obj._trait_values[name]
    except KeyError:
        return getattr(obj, name)  # a dynamic default, computed and stored by traitlets


_plain_cache = {}


def _set(obj, name, value):
    """`setattr(obj, name, value)` for a trait: stored directly when traitlets would only store it (no
    observer, no validator, no held notifications, a type whose validation passes these values)."""
    notifiers = obj._trait_notifiers
    trait = _plain_trait(type(obj), name)
    if (
        trait is None
        or (value is None and not trait.allow_none)
        or obj._cross_validation_lock
        or name in obj._trait_validators
        or _observed(notifiers.get(name))
        or _observed(notifiers.get(All))
    ):
        setattr(obj, name, value)
        return
    obj._trait_values[name] = value


def _observed(by_type):
    return bool(by_type) and bool(by_type.get("change") or by_type.get(All))


def _plain_trait(cls, name):
    """The class's trait `name` if a write of a value of its type could skip traitlets, else None."""
    key = (cls, name)
    if key not in _plain_cache:
        trait = getattr(cls, name, None)
        plain = (
            type(trait).__name__ in _PLAIN_TRAITS
            and type(trait).__module__ == "traitlets.traitlets"
            and not trait.read_only
            and getattr(trait, "min", None) is None  # Int's bounds
            and getattr(trait, "max", None) is None
            and not hasattr(cls, f"_{name}_changed")  # traitlets' deprecated magic observers
            and not hasattr(cls, f"_{name}_validate")
        )
        _plain_cache[key] = trait if plain else None
    return _plain_cache[key]
