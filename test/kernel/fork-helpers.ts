import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { afterEach, expect } from "vitest";
import {
  type Kernel,
  type KernelLifecycleEvent,
  type KernelOptions,
  type KernelTemplate,
  type KernelTemplateOptions,
  startKernel,
  startKernelTemplate,
} from "../../src/kernel/index.js";
import { eventually } from "../support/wait.js";
import { groupAlive, isAlive, testPython } from "./helpers.js";

export interface Forking {
  template(options?: Partial<KernelTemplateOptions>): Promise<KernelTemplate>;
  /** A kernel given `template`; its lifecycle events are collected in `events`. */
  kernel(template: KernelTemplate, options?: Partial<KernelOptions>): Promise<Kernel>;
  events: KernelLifecycleEvent[];
  /** Remembers a pid that must be gone after the test. */
  track(pid: number): void;
}

/**
 * Templates and kernels for one test. After each test everything is shut down and every process it
 * started (templates, kernels, restarted kernels, their process groups) must be gone.
 */
export function useForking(): Forking {
  const templates: KernelTemplate[] = [];
  const kernels: Kernel[] = [];
  const pids = new Set<number>();
  const events: KernelLifecycleEvent[] = [];
  afterEach(async () => {
    // The template's children include ones the host never heard of (the spare): they must go too.
    for (const t of templates) for (const pid of childrenOf(t.pid)) pids.add(pid);
    await Promise.all(kernels.splice(0).map((k) => k.shutdown()));
    await Promise.all(templates.splice(0).map((t) => t.close()));
    for (const pid of pids) {
      expect(await eventually(() => !isAlive(pid)), `process ${pid} still alive`).toBe(true);
      expect(await eventually(() => !groupAlive(pid)), `process group ${pid} still alive`).toBe(true);
    }
    pids.clear();
    events.length = 0;
  });
  return {
    events,
    track: (pid) => pids.add(pid),
    async template(options = {}) {
      const template = await startKernelTemplate({ python: await testPython(), ...options });
      templates.push(template);
      pids.add(template.pid);
      return template;
    },
    async kernel(template, options = {}) {
      const kernel = await startKernel({
        cwd: os.tmpdir(),
        ...options,
        template,
        onLifecycle: (event) => {
          if (event.type === "started") pids.add(event.pid);
          events.push(event);
          options.onLifecycle?.(event);
        },
      });
      kernels.push(kernel);
      pids.add(kernel.pid);
      return kernel;
    },
  };
}

/** The `started` events, in order. */
export function starts(events: KernelLifecycleEvent[]) {
  return events.filter((e): e is Extract<KernelLifecycleEvent, { type: "started" }> => e.type === "started");
}

/** Pids whose parent is `pid` (Linux /proc). */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
