// Names a user's variable must not take, or should not: a kernel variable is a name in the same namespace
// as relm's own functions and Python's built-ins, so `--var rlm=…` hid rlm() from the model and
// `--var print=@FILE` turned every print(...) of the model's into "'str' object is not callable".

/**
 * relm's functions in every kernel: python/relm/api.py EXPORTS with the toolkit's (compared with what the
 * real kernel installs by test/agent/variable-names.test.ts). A variable of one of these names hides it:
 * refused, for `--var` and for a person's pasted variables alike.
 */
export const KERNEL_API_NAMES: ReadonlySet<string> = new Set(
  (
    "submit rlm llm send inbox schedule goal done plan todo harness mcp request " +
    "view edit write apply_patch grep glob tree run_tests fetch search look"
  ).split(" "),
);

/**
 * Python's built-in names (Python 3.8 to 3.13, with what `site` adds) and the kernel's own (In, Out,
 * get_ipython, display), underscore names left out (no variable may start with "_"). A variable of one
 * of these names shadows it for the model's code: allowed (the user may mean it), with a warning.
 * test/agent/variable-names.test.ts checks every name of the real interpreter's builtins is here.
 */
const SHADOWED_BUILTINS: ReadonlySet<string> = new Set(
  (
    "ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError " +
    "BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError " +
    "ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning " +
    "EnvironmentError Exception ExceptionGroup FileExistsError FileNotFoundError FloatingPointError " +
    "FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError " +
    "InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError " +
    "ModuleNotFoundError NameError NotADirectoryError NotImplemented NotImplementedError OSError " +
    "OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError " +
    "RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration " +
    "StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError " +
    "UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError " +
    "UnicodeWarning UserWarning ValueError Warning ZeroDivisionError " +
    "abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile " +
    "complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format " +
    "frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len license " +
    "list locals map max memoryview min next object oct open ord pow print property quit range repr " +
    "reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip " +
    "In Out get_ipython display"
  ).split(" "),
);

/** What to give instead of `--var NAME=…`: the same value under a name nothing else has. */
function renamed(name: string, value: string): string {
  return `--var ${name}_data=${value.startsWith("@") ? value : "…"}`;
}

/** Why `--var NAME=VALUE` may not have that name, or undefined when it may. */
export function reservedVariableProblem(name: string, value: string): string | undefined {
  if (!KERNEL_API_NAMES.has(name)) return undefined;
  return (
    `--var ${name}: ${name} is one of relm's functions in the kernel, and the variable would hide it from ` +
    `the model; give the variable another name, e.g. ${renamed(name, value)}`
  );
}

/** The warning `--var NAME=VALUE` deserves when it shadows a Python built-in, or undefined. */
export function shadowedBuiltinWarning(name: string, value: string): string | undefined {
  if (!SHADOWED_BUILTINS.has(name)) return undefined;
  return (
    `--var ${name} shadows Python's built-in ${name} in the kernel: the model's own uses of ${name} get ` +
    `your value instead; to avoid that give it another name, e.g. ${renamed(name, value)}`
  );
}
