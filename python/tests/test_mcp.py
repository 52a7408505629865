"""mcp in the kernel: a server's tools as Python functions (relm/mcp.py), against a fake host."""

import inspect
import unittest

from relm.mcp import Server

from .hostpeer import HostTestCase


class ToolSignatures(HostTestCase):
    def test_a_tool_with_an_argument_called_arguments_and_one_that_is_no_identifier_is_listed(self):
        # The signature took **arguments for the name that is no identifier beside the keyword argument
        # `arguments`: inspect refused the duplicate, so tools() failed and none of the server's tools
        # could be reached.
        schema = {"properties": {"arguments": {"type": "string"}, "get-env": {"type": "string"}}}
        tools = [{"name": "run", "inputSchema": schema}, {"name": "echo", "inputSchema": {}}]
        self.handlers["mcp.tools"] = lambda params: {"result": {"tools": tools}}
        server = Server("srv")
        self.assertEqual([t["name"] for t in server.tools()], ["run", "echo"])
        params = inspect.signature(server.run).parameters
        self.assertEqual(params["arguments"].kind, inspect.Parameter.KEYWORD_ONLY)
        self.assertEqual([p.kind for p in params.values()][-1], inspect.Parameter.VAR_KEYWORD)
        self.assertIsNotNone(server.echo)


if __name__ == "__main__":
    unittest.main()
