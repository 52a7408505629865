import type { ModelClient } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";
import type { AgentTree } from "./tree.js";

/**
 * The model an agent calls. The root's can be switched (`/model`) from its next model call, journaled as
 * `model`; children started later without a model of their own get it too.
 */
export class AgentModel {
  constructor(
    private client: ModelClient,
    private readonly tree: AgentTree,
    /** The root agent: its model is the tree's default. */
    private readonly root: boolean,
    private readonly record: (body: JournalBody) => unknown,
  ) {}

  get current(): ModelClient {
    return this.client;
  }

  switchTo(name: string): ModelClient {
    if (name !== this.client.model && !this.tree.canSwitchModels) {
      throw new Error("this session's endpoint was set up for one model only");
    }
    const client = this.tree.client(name);
    this.client = client;
    if (this.root) this.tree.setDefaultClient(client);
    this.record({ type: "model", model: client.model, provider: client.via });
    return client;
  }

  /** For llm() and refinements: the tree's client for a model name, else this agent's own. */
  named(model?: string | null): ModelClient {
    return model ? this.tree.client(model) : this.client;
  }
}
