"""`mcp`: the tools of the configured MCP servers as Python functions.

    mcp.servers()                       # configured servers, their state and tool names (starts none)
    mcp.files.tools()                   # a server's tools with descriptions and argument schemas
    mcp.files.read_text_file(path="x")  # a call; JSON comes back as dicts and lists, text as str,
                                        # images as displayable mcp.Image objects
    help(mcp.files.read_text_file)      # its description and arguments
    mcp.files.list_resources(), mcp.files.read_resource(uri), mcp.files.prompts(), ...

A failure raises mcp.ToolError (the tool or the server reported an error, with its message);
mcp.ServerError, a subclass, when the server could not start, exited or could not be reached. The
servers belong to the session's host process: every agent's kernel reaches the same ones, a server
starts on its first call, and an interrupted cell cancels the request it was waiting for.
"""

import base64
import json
import keyword
import os
import re

from . import calls


class ToolError(Exception):
    """An MCP tool or server reported an error; `str(e)` is its message. `.server`, `.tool`, and
    `.content` (what the tool returned with the error, converted like a result) tell more."""

    def __init__(self, message, server=None, tool=None, content=None):
        super().__init__(message)
        self.server = server
        self.tool = tool
        self.content = content


class ServerError(ToolError):
    """The server could not be used: it failed to start, exited, could not be reached, or is not
    configured. The message names it and ends with the tail of its stderr when there is one."""


def python_name(name):
    """A server or tool name as a Python attribute: other characters become "_" (get-env -> get_env)."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if out[:1].isdigit():
        out = "_" + out
    if keyword.iskeyword(out):
        out += "_"
    return out or "_"


def _request(method, params, server=None, tool=None):
    try:
        return calls.call(method, params, cancel="mcp.cancel")  # stops the request at the server too
    except calls.HostError as e:
        if e.code == "mcp_server":
            raise ServerError(str(e), server, tool) from None
        if e.code in ("mcp_tool", "budget"):
            raise ToolError(str(e), server, tool) from None
        if e.code == "usage":
            raise ValueError(str(e)) from None
        raise


# ---- results -------------------------------------------------------------------------------------


class _Media:
    def __init__(self, data, mime_type):
        self.data = data
        self.mime_type = mime_type

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.data)
        return path

    def __repr__(self):
        return f"<mcp.{type(self).__name__} {self.mime_type}, {len(self.data)} bytes>"


class Image(_Media):
    """An image from a tool: `.data` (bytes), `.mime_type`. Shown when it is a cell's value or given to
    display(); `.save(path)` writes it to a file."""

    def _repr_png_(self):
        return self.data if self.mime_type == "image/png" else None

    def _repr_jpeg_(self):
        return self.data if self.mime_type in ("image/jpeg", "image/jpg") else None


class Audio(_Media):
    """Audio from a tool: `.data` (bytes), `.mime_type`; `.save(path)` writes it."""


class Resource:
    """A resource's content: `.uri`, `.mime_type`, and `.text` (str) or `.data` (bytes)."""

    def __init__(self, uri, mime_type=None, text=None, data=None):
        self.uri = uri
        self.mime_type = mime_type
        self.text = text
        self.data = data

    def __str__(self):
        return self.text if self.text is not None else repr(self)

    def __repr__(self):
        size = f"{len(self.text)} chars" if self.text is not None else f"{len(self.data or b'')} bytes"
        return f"<mcp.Resource {self.uri} {self.mime_type or ''}, {size}>"


def _json(text, otherwise):
    try:
        return json.loads(text)
    except ValueError:
        return otherwise


def _text(text):
    """Text as str; a text that is a whole JSON object or array, as the Python object."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        return _json(stripped, text)
    return text


def _resource(c):
    """One resource content (text or a base64 blob) as an mcp.Resource."""
    blob = c.get("blob")
    return Resource(
        c.get("uri"), c.get("mimeType"), text=c.get("text"), data=base64.b64decode(blob) if blob is not None else None
    )


def _content(c):
    """One resource content as the value a caller wants: text, JSON, an image or bytes."""
    mime, text = c.get("mimeType"), c.get("text")
    if text is not None:
        return _json(text, text) if mime == "application/json" else text
    data = base64.b64decode(c.get("blob") or "")
    if (mime or "").startswith("image/"):
        return Image(data, mime)
    return data


def _part(part):
    kind = part.get("type")
    if kind == "text":
        return _text(part.get("text", ""))
    if kind == "image":
        return Image(base64.b64decode(part.get("data", "")), part.get("mimeType", "image/png"))
    if kind == "audio":
        return Audio(base64.b64decode(part.get("data", "")), part.get("mimeType", ""))
    if kind == "resource":
        return _resource(part.get("resource") or {})
    return {k: v for k, v in part.items() if k != "type"} | {"type": kind}


def _convert(result, server, tool):
    """A CallToolResult as a Python value: structured content, else its content parts."""
    parts = [_part(p) for p in result.get("content") or []]
    if result.get("isError"):
        texts = [p.get("text", "") for p in result.get("content") or [] if p.get("type") == "text"]
        message = "\n".join(t for t in texts if t) or "the tool reported an error without a message"
        raise ToolError(message, server, tool, content=parts)
    structured = result.get("structuredContent")
    if structured is not None:
        return structured
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else parts


def _jsonable(value, where):
    """Arguments as JSON: paths become str, tuples and sets lists, numpy scalars numbers."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return _jsonable(item(), where)
        except (TypeError, ValueError):
            pass
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return _jsonable(tolist(), where)
    raise TypeError(f"{where} is a {type(value).__name__}, which MCP cannot send (JSON values only)")


# ---- tools as functions ---------------------------------------------------------------------------

_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


class _Unset:
    def __repr__(self):
        return "unset"


_UNSET = _Unset()


def _arguments(schema):
    """A tool's signature (its arguments keyword-only; **arguments as well when a name is no identifier,
    or the schema names none) and the lines its doc describes them in."""
    import inspect  # only when a server's tools are listed: kernels that never use MCP skip it

    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    empty = inspect.Parameter.empty
    params = []
    lines = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type")
        facts = [" | ".join(map(str, kind)) if isinstance(kind, list) else str(kind or "any")]
        if name in required:
            facts.append("required")
        if "default" in prop:
            facts.append(f"default {json.dumps(prop['default'])}")
        if "enum" in prop:
            facts.append("one of " + ", ".join(json.dumps(v) for v in prop["enum"]))
        description = str(prop.get("description") or "").strip()
        lines.append(f"  {name} ({', '.join(facts)})" + (f": {description}" if description else ""))
        if name.isidentifier() and not keyword.iskeyword(name):
            default = empty if name in required else prop.get("default", _UNSET)
            annotation = _TYPES.get(kind, empty) if isinstance(kind, str) else empty
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    if len(params) < len(props) or not props:
        rest = "arguments"
        while rest in props:  # a keyword argument of that name: two parameters may not share it
            rest = "_" + rest
        params.append(inspect.Parameter(rest, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params), lines


def _doc(server, info, lines):
    schema = info.get("inputSchema") or {}
    parts = [(info.get("description") or info.get("title") or "(no description)").strip(), ""]
    parts += (["Arguments:", *lines] if lines else ["Arguments: none"]) + [""]
    parts.append(f"MCP tool {info['name']!r} of server {server!r}; raises mcp.ToolError when it fails.")
    parts += ["", "JSON schema of the arguments:", json.dumps(schema, indent=2, ensure_ascii=False)]
    output = info.get("outputSchema")
    if output:
        parts += ["", "JSON schema of the result:", json.dumps(output, indent=2, ensure_ascii=False)]
    return "\n".join(parts)


def _make_tool(server, info):
    name = info["name"]

    def tool(**arguments):
        return server.call(name, arguments)

    tool.schema = info.get("inputSchema") or {}
    tool.__signature__, lines = _arguments(tool.schema)
    tool.__name__ = python_name(name)
    tool.__qualname__ = f"mcp.{python_name(server._name)}.{python_name(name)}"
    tool.__doc__ = _doc(server._name, info, lines)
    tool.mcp_name = name
    return tool


class Server:
    """One MCP server: its tools are attributes (`mcp.NAME.TOOL(**arguments)`), or `server["tool-name"]`
    by their exact names. tools(), list_resources(), read_resource(uri), resource_templates(),
    prompts(), get_prompt(name, **arguments), call(tool, arguments, raw=False)."""

    def __init__(self, name):
        self._name = name
        self._tools = None
        self._by_attr = {}

    def _ask(self, method, **params):
        return _request(method, {"server": self._name, **params}, self._name, params.get("tool"))

    def tools(self):
        """The server's tools (starting it if needed): name, description, input_schema, python_name."""
        infos = self._ask("mcp.tools")["tools"]
        self._tools = {}
        self._by_attr = {}
        for info in infos:
            fn = _make_tool(self, info)
            self._tools[info["name"]] = fn
            self._by_attr.setdefault(fn.__name__, fn)
        return [
            {
                "name": i["name"],
                "python_name": python_name(i["name"]),
                "description": i.get("description", ""),
                "input_schema": i.get("inputSchema") or {},
                **({"output_schema": i["outputSchema"]} if i.get("outputSchema") else {}),
            }
            for i in infos
        ]

    def call(self, tool, arguments=None, *, raw=False):
        """Calls `tool` (its exact MCP name) with a dict of arguments. raw=True returns the MCP result
        as it came (content parts, structuredContent, isError) instead of converting it."""
        args = _jsonable(dict(arguments or {}), "argument")
        result = self._ask("mcp.call", tool=tool, arguments=args)["result"]
        return result if raw else _convert(result, self._name, tool)

    def list_resources(self):
        """Resources the server offers: uri, name, description, mimeType."""
        return self._ask("mcp.resources")["resources"]

    def resource_templates(self):
        """URI templates of resources the server can read."""
        return self._ask("mcp.resource_templates")["templates"]

    def read_resource(self, uri):
        """A resource's content: text as str (JSON as Python objects), images as mcp.Image, other binary
        data as bytes; a list of mcp.Resource when it has several parts."""
        result = self._ask("mcp.read_resource", uri=str(uri))["result"]
        contents = result.get("contents") or []
        return _content(contents[0]) if len(contents) == 1 else [_resource(c) for c in contents]

    def prompts(self):
        """Prompt templates the server offers: name, description, arguments."""
        return self._ask("mcp.prompts")["prompts"]

    def get_prompt(self, name, **arguments):
        """A prompt filled in: a list of {"role", "content"} messages (content converted like results)."""
        messages = self._ask("mcp.get_prompt", name=name, arguments=arguments)["result"].get("messages") or []
        return [{"role": m.get("role"), "content": _part(m.get("content") or {})} for m in messages]

    def _tool(self, attr):
        # Listed on first use, and again for a name not known: the server may have changed its tools.
        if self._tools is None or (attr not in self._by_attr and attr not in self._tools):
            self.tools()
        return self._by_attr.get(attr) or self._tools.get(attr)

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        fn = self._tool(attr)
        if fn is None:
            names = ", ".join(sorted(self._by_attr)) or "none"
            raise AttributeError(f"MCP server {self._name!r} has no tool {attr!r}; its tools: {names}")
        return fn

    def __getitem__(self, name):
        fn = self._tool(name)
        if fn is None:
            raise KeyError(f"MCP server {self._name!r} has no tool {name!r}")
        return fn

    def __dir__(self):
        own = ["tools", "call", "list_resources", "resource_templates", "read_resource", "prompts", "get_prompt"]
        try:
            if self._tools is None:
                self.tools()
        except ToolError:
            return own
        return own + sorted(self._by_attr)

    def __repr__(self):
        known = f"{len(self._tools)} tools" if self._tools is not None else "tools() lists its tools"
        return f"<MCP server {self._name!r}: {known}>"


class Mcp:
    """The MCP servers of this session: `mcp.NAME` (or `mcp["name-with-dashes"]`) is a server, whose
    tools are functions: `mcp.NAME.TOOL(**arguments)`. `mcp.servers()` lists them and their state.
    Failures raise mcp.ToolError (mcp.ServerError when the server itself failed)."""

    ToolError = ToolError
    ServerError = ServerError
    Image = Image
    Audio = Audio
    Resource = Resource
    Server = Server

    def __init__(self):
        self._servers = {}
        self._names = None

    def servers(self):
        """Every configured server: name, python_name, transport, state, tools (names, or None before
        it first ran), error, source; starts none of them."""
        listed = _request("mcp.servers", {})["servers"]
        self._names = [s["name"] for s in listed]
        return [{**s, "python_name": python_name(s["name"])} for s in listed]

    def _server(self, name):
        if self._names is None:
            self.servers()
        match = name if name in self._names else next((n for n in self._names if python_name(n) == name), None)
        if match is None:
            return None
        if match not in self._servers:
            self._servers[match] = Server(match)
        return self._servers[match]

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        server = self._server(attr)
        if server is None:
            names = ", ".join(python_name(n) for n in self._names or []) or "none is configured"
            raise AttributeError(f"no MCP server called {attr!r}; servers: {names}")
        return server

    def __getitem__(self, name):
        server = self._server(name)
        if server is None:
            raise KeyError(f"no MCP server called {name!r}")
        return server

    def __dir__(self):
        if self._names is None:
            try:
                self.servers()
            except Exception:
                return ["servers"]
        return ["servers"] + [python_name(n) for n in self._names or []]

    def __repr__(self):
        return "<mcp: MCP servers' tools as functions; mcp.servers() lists them, help(mcp) for usage>"


mcp = Mcp()
