// Projects and scripted-model replies for scripts/screenshots.mjs. The projects are small but real: the
// cells in the pictures run their test suites in a real kernel, and the model's answers are the truth
// about what those suites print (the fixed ones by construction, the others read from the cell output).

const cartTests = `import unittest

from shop.cart import Cart
from tests.db import roundtrip


class CartTests(unittest.TestCase):
    def setUp(self):
        roundtrip()
        self.cart = Cart()

    def test_add_item(self):
        self.cart.add("tea", 4.5)
        self.assertEqual(self.cart.total(), 4.5)

    def test_add_twice(self):
        self.cart.add("tea", 4.5)
        self.cart.add("tea", 4.5)
        self.assertEqual(self.cart.total(), 9.0)

    def test_remove_item(self):
        self.cart.add("tea", 4.5)
        self.cart.remove("tea")
        self.assertEqual(self.cart.total(), 0)

    def test_quantity_limit(self):
        with self.assertRaises(ValueError):
            self.cart.add("tea", 4.5, quantity=100)
`;

const orderTests = `import unittest

from shop.cart import Cart
from shop.orders import place_order
from tests.db import roundtrip


class OrderTests(unittest.TestCase):
    def setUp(self):
        roundtrip()

    def test_place_order(self):
        cart = Cart()
        cart.add("tea", 4.5, quantity=2)
        cart.add("cake", 3.25)
        self.assertEqual(place_order(cart), {"total": 12.25, "lines": 2})

    def test_empty_order(self):
        with self.assertRaises(ValueError):
            place_order(Cart())

    def test_order_total_rounds(self):
        cart = Cart()
        cart.add("pen", 0.1, quantity=3)
        self.assertEqual(place_order(cart)["total"], 0.3)
`;

const refundTests = `import unittest

from shop.refunds import refund
from tests.db import roundtrip


class RefundTests(unittest.TestCase):
    def setUp(self):
        roundtrip()

    def test_full_refund(self):
        self.assertEqual(refund(20.0, 0), 20.0)

    def test_refund_with_fee(self):
        self.assertEqual(refund(50.0, 0.1), 45.0)

    def test_refund_keeps_cents(self):
        self.assertEqual(refund(19.99, 0), 19.99)
`;

/** A shop with a unittest suite of 10 tests; one fails on a floating-point truncation. */
export const SHOP = {
  files: {
    "shop/__init__.py": "",
    "shop/cart.py": `class Cart:
    MAX_QUANTITY = 99

    def __init__(self):
        self.items = {}

    def add(self, sku, price, quantity=1):
        if quantity > self.MAX_QUANTITY:
            raise ValueError("quantity over the limit")
        _, held = self.items.get(sku, (price, 0))
        self.items[sku] = (price, held + quantity)

    def remove(self, sku):
        self.items.pop(sku, None)

    def total(self):
        return round(sum(price * n for price, n in self.items.values()), 2)
`,
    "shop/orders.py": `from shop.cart import Cart


def place_order(cart: Cart) -> dict:
    if not cart.items:
        raise ValueError("empty cart")
    return {"total": cart.total(), "lines": len(cart.items)}
`,
    "shop/refunds.py": `def refund(amount: float, fee_rate: float) -> float:
    """What the customer gets back, in currency units with cents."""
    return int(amount * (1 - fee_rate) * 100) / 100
`,
    "tests/__init__.py": "",
    // The suite's stand-in for a database, so its output streams in over a few seconds.
    "tests/db.py": "import time\n\n\ndef roundtrip():\n    time.sleep(0.4)\n",
    "tests/test_cart.py": cartTests,
    "tests/test_orders.py": orderTests,
    "tests/test_refunds.py": refundTests,
  },
  answer: `**1 of 10 tests fails**; the other 9 pass.

| test | where | error |
|---|---|---|
| \`test_refund_keeps_cents\` | tests/test_refunds.py:18 | \`AssertionError: 19.98 != 19.99\` |

\`refund()\` cuts to cents with \`int()\`, and \`19.99 * 100\` is \`1998.9999…\` in floating point. Rounding instead fixes it:

\`\`\`python
def refund(amount: float, fee_rate: float) -> float:
    return round(amount * (1 - fee_rate), 2)
\`\`\`

Shall I apply it?`,
};

/** A service's tests: each `[name, seconds, actual, expected]` compares after a simulated call. */
function serviceTests(cls, tests) {
  const body = tests
    .map(
      ([name, seconds, actual, expected]) =>
        `    def test_${name}(self):\n        time.sleep(${seconds})  # the service's test double answers\n        self.assertEqual(${actual}, ${expected})\n`,
    )
    .join("\n");
  return `import time\nimport unittest\n\n\nclass ${cls}(unittest.TestCase):\n${body}`;
}

/** "Ran 5 tests … OK" / "FAILED (failures=1)" from unittest's output, as one line for the parent. */
export function summariseUnittest(output = "") {
  const ran = /Ran (\d+) tests?/.exec(output)?.[1] ?? "?";
  const failed = [...output.matchAll(/^FAIL: (test_\w+)/gm)].map((m) => m[1]);
  return failed.length === 0
    ? `${ran} tests, all pass`
    : `${ran} tests, ${failed.length} failing: ${failed.join(", ")}`;
}

const MAP_TASK = "Run the unit tests of the service named by `item` (in services/) and report in one line";

/** Three services whose suites three sub-agents run in parallel (rlm.map), billing with one failure. */
export const API_SERVICES = {
  files: {
    "services/auth/test_auth.py": serviceTests("AuthTests", [
      ["login", 1.2, "'token-1'.split('-')[0]", "'token'"],
      ["logout", 1.2, "len({'a': 1}) - 1", "0"],
      ["refresh_token", 1.4, "len('a.b.c'.split('.'))", "3"],
      ["expired_token", 1.2, "max(0, 3600 - 7200)", "0"],
    ]),
    "services/billing/test_billing.py": serviceTests("BillingTests", [
      ["invoice_total", 1.5, "round(2 * 4.5, 2)", "9.0"],
      ["invoice_vat", 1.5, "19.99 * 1.2", "23.99"],
      ["refund", 1.5, "abs(-12.5)", "12.5"],
      ["currency", 1.5, "'eur'.upper()", "'EUR'"],
      ["payment_retry", 1.6, "min(3, 5)", "3"],
    ]),
    "services/search/test_search.py": serviceTests("SearchTests", [
      ["query", 1.3, "'green tea'.split()[-1]", "'tea'"],
      ["ranking", 1.3, "sorted([3, 1, 2])", "[1, 2, 3]"],
      ["pagination", 1.4, "list(range(10))[5:8]", "[5, 6, 7]"],
    ]),
  },
  /** The parent fans out, then tabulates what its children reported (read from the cell's output). */
  script: (byTask) =>
    byTask({
      "run every service's tests": [
        {
          text: "One sub-agent per service:",
          code: [
            'services = ["auth", "billing", "search"]',
            `reports = rlm.map(${JSON.stringify(MAP_TASK)}, services)`,
            "for service, report in zip(services, reports):",
            '    print(f"{service:<8} {report}")',
          ].join("\n"),
        },
        (ctx) => {
          const rows = (ctx.lastToolResult ?? "")
            .split("\n")
            .map((l) => /^(auth|billing|search)\s+(.*)$/.exec(l.trim()))
            .filter(Boolean)
            .map(([, service, report]) => `| ${service} | ${report} |`);
          return {
            text: [
              "## Test results",
              "",
              "| service | result |",
              "|---|---|",
              ...rows,
              "",
              "**billing** has the one failure: `test_invoice_vat` expects the VAT total rounded to cents",
              "(`23.99`) and gets `19.99 * 1.2` unrounded (`23.987999999999996`). Want me to fix it?",
            ].join("\n"),
          };
        },
      ],
      [MAP_TASK]: [
        { code: "!python3 -m unittest discover -v services/{item}" },
        (ctx) => ({ text: summariseUnittest(ctx.lastToolResult) }),
      ],
    }),
};
