// relm web's page: the sessions list at #/, a session at #/s/ID, one of its sub-agents at #/s/ID/a/CHILD
// (docs/web.md).
import { html } from "htm/preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ChildPage } from "./child-page.js";
import { SessionPage } from "./session-page.js";
import { SessionsPage } from "./sessions-page.js";

function App() {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const changed = () => setHash(window.location.hash);
    window.addEventListener("hashchange", changed);
    // The effect runs after the first paint: a link followed before then changed the hash unheard.
    changed();
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  const m = /^#\/s\/([0-9a-z]{1,64})(?:\/a\/([0-9a-z]{1,64}))?$/.exec(hash);
  if (m?.[2]) return html`<${ChildPage} key=${hash} session=${m[1]} child=${m[2]} />`;
  return m ? html`<${SessionPage} key=${m[1]} id=${m[1]} />` : html`<${SessionsPage} />`;
}

const root = document.getElementById("app");
if (root) render(html`<${App} />`, root);
