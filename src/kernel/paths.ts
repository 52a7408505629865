import { fileURLToPath } from "node:url";

/**
 * relm's Python package directory (`<package root>/python`). Both `src/kernel/*.ts` (vitest) and
 * `dist/kernel/*.js` (built) sit two levels below the package root, so one relative URL serves both.
 */
export const RELM_PYTHON_DIR: string = fileURLToPath(new URL("../../python", import.meta.url));
