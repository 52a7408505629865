"""relm's Python-side tests (stdlib unittest): `python -m unittest discover -s python/tests -t python`."""
