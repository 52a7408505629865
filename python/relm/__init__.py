"""relm's side of the Python kernel.

Imported by the runner (`python -m relm.runner`) and by user code (`relm.calls.call`). Keep this file
free of imports: it is on the kernel's start-up path.
"""
