// Host processes are started from the host layer (the terminal UI starts them too); kept here so the
// CLI's imports read as before.
export { ensureWaker, reviveHost, spawnHost } from "../host/spawn.js";
