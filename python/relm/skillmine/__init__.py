"""Mining repeated work into skills, on Python's own `tokenize` and `ast` (docs/harness.md, "Skills from
repeated work").

The host (src/learning/skills/) reads the journals and finds the chains of cells that repeat; this package
reads the code: `cells` tells each cell's literals, names and normalised form, `package` turns a chain into
a function. Run as `python -I -c ... DIR` by the host with one JSON request on stdin (`cli.main`). Nothing
here runs the code it reads: it is parsed, never executed. Standard library only.
"""
