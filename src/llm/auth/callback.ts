// The local end of a browser sign-in: an HTTP server on 127.0.0.1 at the port the provider registered for
// the redirect, which takes the code only when `state` matches; and the same check for a pasted redirect.
import { createServer, type Server } from "node:http";

interface CallbackServer {
  redirectUri: string;
  /** The authorization code, once a callback with the right state arrived. */
  code: Promise<string>;
  close(): void;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em">` +
  `<h2>${title}</h2><p>${text}</p></body>`;

/**
 * Listens on 127.0.0.1:`port` (0: any free port). Undefined when the port is taken: the person then
 * pastes the redirect URL instead.
 */
export async function startCallbackServer(
  port: number,
  path: string,
  state: string,
  onIgnored: (why: string) => void,
): Promise<CallbackServer | undefined> {
  let resolve!: (code: string) => void;
  let reject!: (error: Error) => void;
  const code = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  code.catch(() => {});
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const reply = (status: number, title: string, text: string) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(PAGE(title, text));
    };
    if (url.pathname !== path) return reply(404, "Not found", "This is relm's sign-in callback.");
    const error = url.searchParams.get("error");
    if (url.searchParams.get("state") !== state) {
      // Not this sign-in's redirect (another tab, a forged request): refused, and the sign-in goes on.
      onIgnored("a callback with the wrong state was refused");
      return reply(400, "Sign-in refused", "This link does not belong to the sign-in relm is waiting for.");
    }
    if (error) {
      const text = url.searchParams.get("error_description") ?? error;
      reply(400, "Sign-in failed", text.replace(/[<>&]/g, ""));
      return reject(new Error(`the provider refused the sign-in: ${text}`));
    }
    const got = url.searchParams.get("code");
    if (!got) return reply(400, "Sign-in failed", "The redirect carried no code.");
    reply(200, "Signed in", "relm has the sign-in. You can close this tab.");
    resolve(got);
  });
  const listening = await new Promise<boolean>((done) => {
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => done(true));
  });
  if (!listening) return undefined;
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  return {
    // The registered redirect names localhost, which the provider checks; the server answers on 127.0.0.1.
    redirectUri: `http://localhost:${actual}${path}`,
    code,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * The code from what the person pasted: the whole redirect URL, `code#state` (Claude's page shows that),
 * a query string, or the bare code. A state that is present must match.
 */
export function codeFromPaste(input: string, state: string): string {
  const value = input.trim();
  let code: string | null | undefined;
  let got: string | null | undefined;
  if (/^https?:\/\//.test(value)) {
    const url = new URL(value);
    code = url.searchParams.get("code");
    got = url.searchParams.get("state");
  } else if (value.includes("code=")) {
    const params = new URLSearchParams(value.replace(/^\?/, ""));
    code = params.get("code");
    got = params.get("state");
  } else if (value.includes("#")) {
    [code, got] = value.split("#", 2);
  } else {
    code = value;
  }
  if (!code) throw new Error("the pasted text holds no authorization code");
  if (got && got !== state)
    throw new Error("the pasted redirect belongs to another sign-in (its state does not match)");
  return code;
}
