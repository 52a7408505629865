// The version lives with the configuration (every layer may show it); re-exported for the CLI's imports.
export { relmVersion } from "../config/version.js";
