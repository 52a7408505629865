"""fetch and search: the web for the model, through the host.

Requests are made by the host process, not the kernel: a sandboxed kernel with no network can still read
documentation (within `--allow-web`), and a search provider's key never enters the kernel. An interrupted
cell cancels its request; the session's time budget (--max-time) stops it too.
"""

import base64

from .. import calls
from ._text import OUTPUT_CAP, Shown, cap, public


class WebError(Exception):
    """fetch() or search() failed: refused (allow-list, scheme, size cap), unreachable, timed out, or the
    server answered an error. `str(e)` says which, and what to do."""


class FetchError(WebError):
    """fetch() got an HTTP error status: `.status`, `.url`, and `.text` (the error page as text)."""

    def __init__(self, message, url=None, status=None, text=""):
        super().__init__(message)
        self.url = url
        self.status = status
        self.text = text


class SearchError(WebError):
    """search() failed: no provider configured, a bad key, the provider unreachable or refusing."""


def _call(method, params, error=WebError):
    from .. import protocol

    if not protocol.connected():
        raise RuntimeError(f"{method.split('.')[1]}() runs through a relm host; this kernel has none")
    try:
        return calls.call(method, params, cancel="web.cancel")
    except calls.HostError as e:
        if e.code == "usage":
            raise ValueError(str(e)) from None
        if e.code in ("web", "budget"):
            raise error(str(e)) from None
        raise


class Page(Shown):
    """What fetch() returns: the page as readable text (a str: slice it, search it, print it) with
    `.url` (asked for), `.final_url` (after redirects), `.status`, `.content_type`, `.title`, `.kind`
    ("html" turned into markdown, "pdf" or "text"), `.redirects` and `.bytes` (size of the body)."""

    _FACTS = ("title", "kind", "bytes")

    def __new__(cls, text, info):
        return _described(super().__new__(cls, text), info, *cls._FACTS)

    def __reduce__(self):  # pickled with its facts (a snapshot, a value handed to another agent)
        return (type(self), (str(self), _facts(self, self._FACTS)))

    def __repr__(self):
        head = f"[{self.final_url} — {self.kind}, {len(self):,} chars"
        head += f", title: {self.title}]\n" if self.title else "]\n"
        return head + cap(str(self), OUTPUT_CAP, hint="the whole text is in the value (slice it, or grep it)")

    def _repr_pretty_(self, p, cycle):  # its own, as Shown's (_text.py) says
        p.text(repr(self))


class Raw(bytes):
    """What fetch.raw() returns: the body's bytes with `.url`, `.final_url`, `.status`, `.content_type`."""

    def __new__(cls, data, info):
        return _described(super().__new__(cls, data), info)

    def __reduce__(self):
        return (type(self), (bytes(self), _facts(self)))

    def __repr__(self):
        return f"<fetch.raw {self.final_url}: {self.content_type or 'no type'}, {len(self):,} bytes>"

    # bytes' own str() is the repr of every byte: print(fetch.raw(url)) of 20 MB would print 80 MB.
    __str__ = __repr__

    def save(self, path):
        """Writes the bytes to `path` and returns it."""
        with open(path, "wb") as f:
            f.write(self)
        return path


def _described(value, info, *more):
    """`value` with the host's facts of the response as attributes."""
    for key in ("url", "final_url", "status", "content_type", *more):
        setattr(value, key, info.get(key))
    value.redirects = list(info.get("redirects") or [])
    return value


def _facts(value, more=()):
    """The host's facts of a response as _described() set them on `value`, for pickling."""
    info = {key: getattr(value, key, None) for key in ("url", "final_url", "status", "content_type", *more)}
    info["redirects"] = list(value.redirects)
    return info


def _check_status(info, text=""):
    status = info.get("status") or 0
    if status >= 400:
        excerpt = " ".join(text.split())[:300]
        raise FetchError(
            f"{info.get('final_url')} answered HTTP {status}" + (f": {excerpt}" if excerpt else ""),
            info.get("final_url"),
            status,
            text,
        )


class _Fetch:
    """fetch(url, max_bytes=5_000_000, timeout=30) -> Page: a web page as readable text.

    HTML becomes markdown (headings, links, lists, tables, code) without scripts, styles or the site's
    navigation; a PDF becomes text when the host has `pdftotext` (poppler-utils); text, JSON and XML
    come as they are. The result is a str with `.title`, `.final_url`, `.status`, `.content_type`.
    Loop over pages freely: `texts = [fetch(u) for u in urls]`.

    Limits: a body over `max_bytes` is refused (a declared length over it before anything is read);
    the whole request must finish within `timeout` seconds; up to 5 redirects are followed, each one
    checked again. Only http and https. With `--allow-web` (always in the sandbox) only those hosts.

    fetch.raw(url, max_bytes=20_000_000, timeout=30) -> bytes of any body (images, archives, PDFs),
    with `.content_type` and `.save(path)`.

    Raises FetchError for an HTTP error status (`.status`, `.text`), WebError for everything else
    (refused, unreachable, timed out, too big, not text); `except fetch.Error` catches both.
    """

    @public
    def __call__(self, url, max_bytes=5_000_000, timeout=30):
        info = _call("web.fetch", _params(url, max_bytes, timeout))
        text = info.get("text") or ""
        _check_status(info, text)
        return Page(text, info)

    @public
    def raw(self, url, max_bytes=20_000_000, timeout=30):
        """fetch.raw(url, max_bytes=20_000_000, timeout=30) -> the body's bytes (see help(fetch))."""
        info = _call("web.fetch", {**_params(url, max_bytes, timeout), "raw": True})
        data = base64.b64decode(info.get("data") or "")
        _check_status(info, data[:2000].decode("utf-8", "replace"))
        return Raw(data, info)

    def __repr__(self):
        return "<relm fetch(url, max_bytes=5_000_000, timeout=30); fetch.raw(url) for bytes; help(fetch)>"


def _params(url, max_bytes, timeout):
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    for name, value in (("max_bytes", max_bytes), ("timeout", timeout)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"{name} must be a number above 0, got {value!r}")
    return {"url": url.strip(), "max_bytes": max_bytes, "timeout": timeout}


fetch = _Fetch()
fetch.Error = WebError  # `except fetch.Error` catches every failure of fetch() and search()


class Result:
    """One search hit: `.title`, `.url`, `.snippet` (also as r["title"] and dict(r))."""

    __slots__ = ("title", "url", "snippet")

    def __init__(self, title, url, snippet):
        self.title = title
        self.url = url
        self.snippet = snippet

    def keys(self):
        return ("title", "url", "snippet")

    def __getitem__(self, key):
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def __eq__(self, other):
        return isinstance(other, Result) and dict(self) == dict(other)

    __hash__ = None

    def __repr__(self):
        return f"Result(title={self.title!r}, url={self.url!r}, snippet={_short(self.snippet, 120)!r})"


class Results(list):
    """search()'s hits, best first: a list of Result, shown one per entry."""

    provider = None
    query = None

    def __repr__(self):
        if not self:
            return f"[no results for {self.query!r}]"
        lines = []
        for i, r in enumerate(self, 1):
            lines.append(f"{i}. {r.title or '(no title)'}\n   {r.url}")
            if r.snippet:
                lines.append(f"   {_short(r.snippet, 300)}")
        return cap("\n".join(lines), OUTPUT_CAP)

    def _repr_pretty_(self, p, cycle):  # its own, as Shown's (_text.py) says
        p.text(repr(self))


def _short(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@public
def search(query, n=5):
    """search(query, n=5) -> Results: the web's best `n` hits for `query`, each with .title, .url, .snippet.

    Goes through the provider configured with `relm login --search` (SearXNG, Brave, Tavily, Serper or
    Exa); its key stays in the host. Read a hit with fetch(r.url). Raises SearchError (a fetch.Error)
    when no provider is configured or it fails (bad key, rate limit, unreachable), ValueError for an
    empty query.
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, not {type(query).__name__}")
    if not query.strip():
        raise ValueError("search(): the query is empty")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 50:
        raise ValueError(f"search(): n must be a whole number from 1 to 50, got {n!r}")
    answer = _call("web.search", {"query": query, "n": n}, SearchError)
    results = Results(
        Result(str(r.get("title") or ""), str(r.get("url") or ""), str(r.get("snippet") or ""))
        for r in answer.get("results") or []
    )
    results.provider = answer.get("provider")
    results.query = query
    return results


EXPORTS = {"fetch": fetch, "search": search}
