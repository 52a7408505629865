// The one test of "a JSON object" (not null, not an array) for every reader of JSON it did not write.

/** Whether `value` is a plain object as JSON has them: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `text` parsed as JSON, or undefined when it is not JSON (no JSON text parses to undefined). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A JSON file a person edits (config.json, hooks.json), parsed; throws as JSON.parse does. A leading
 * byte order mark, which Windows editors write at the start of UTF-8 files and JSON.parse refuses, is
 * skipped.
 */
export function parseEditedJson(text: string): unknown {
  return JSON.parse(text.startsWith("\ufeff") ? text.slice(1) : text);
}

/** `value` when it is such an object, else undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
