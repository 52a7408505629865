"""The host's entry: one JSON request on stdin, one JSON answer on stdout.

    {"op": "cells", "cells": [code, ...]}          -> {"cells": [analysis, ...]}   (cells.analyse_cell)
    {"op": "package", "chains": [request, ...]}    -> {"chains": [skill, ...]}     (package.package)

A request that fails on its own (a chain this miner cannot rebuild) answers {"error": why} in its place, so
one odd cell never costs the others their answers.
"""

import json
import sys

from .cells import analyse_cell
from .package import package


def _guarded(work, item):
    try:
        return work(item)
    except RecursionError:
        return {"error": "nested too deeply to read"}
    except Exception as error:  # a bug here must not lose the whole answer
        return {"error": f"{type(error).__name__}: {error}"}


def handle(request):
    op = request.get("op")
    if op == "cells":
        # Each distinct cell analysed once, in the order it first comes.
        seen = {code: _guarded(analyse_cell, code) for code in dict.fromkeys(request["cells"])}
        return {"cells": [seen[code] for code in request["cells"]]}
    if op == "package":
        # Names are unique across the batch too: each skill's name is taken for the ones after it.
        taken = set()
        out = []
        for chain in request["chains"]:
            taken.update(chain.get("taken", []))
            answer = _guarded(package, {**chain, "taken": sorted(taken)})
            if "name" in answer:
                taken.add(answer["name"])
            out.append(answer)
        return {"chains": out}
    return {"error": f"unknown op {op!r}"}


def main():
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    request = json.load(sys.stdin)
    json.dump(handle(request), sys.stdout, ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
