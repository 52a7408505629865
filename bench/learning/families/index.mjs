// The 30 trap families, interleaved by category so that the first N (`--families N`) cover as many
// kinds of trap as N allows.
import { dataFile } from "./data-file.mjs";
import { outputFormat } from "./output-format.mjs";
import { testRunner } from "./test-runner.mjs";
import { environment, flags } from "./tools.mjs";

const CATEGORIES = [outputFormat, flags, testRunner, environment, dataFile];

export const FAMILIES = CATEGORIES[0].flatMap((_, k) => CATEGORIES.map((list) => list[k]));
