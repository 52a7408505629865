// Approvals end to end (docs/sandbox.md, "Approvals"): request() from a real kernel, answered by the
// policy (--approve never / auto, config.json's allow and deny lists), journaled before acted on, and a
// network grant under the real bubblewrap that lets the same kernel (its variables kept) reach a local
// HTTP server it could not reach before. The scripted model over HTTP drives each session.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
// Outside the project and outside /tmp (the sandbox's own): where a workspace kernel cannot write.
const elsewhere = mkdtempSync(join(homedir(), ".relm-approvals-e2e-"));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

/** A cell that asks to run `cmd` outside and prints the output, or the refusal. */
function runCell(cmd: string): string {
  return [
    "try:",
    `    r = request("run", "to see the result", cmd=${JSON.stringify(cmd)})`,
    "    print('GRANTED', r['exit_code'], r.output.strip())",
    "except request.Denied as e:",
    "    print('DENIED', e)",
  ].join("\n");
}

function answers(home: string) {
  const { lines } = onlyJournal(home);
  return {
    requests: lines.filter((l) => l.type === "approval_request"),
    answers: lines.filter((l) => l.type === "approval_answer"),
    lines,
  };
}

describe("approvals answered by the policy", () => {
  it("--approve never refuses, and the model sees the refusal as request.Denied with the reason", async () => {
    const rig = await startRig("openai", { script: [{ code: runCell("echo outside") }, echoLastCell] });
    const result = await runRelm(["run", "--mode", "full", "--approve", "never", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    // Mode full allows running commands: the policy grants it without asking.
    expect(result.stdout, result.stderr).toContain("GRANTED 0 outside");
    const rig2 = await startRig("openai", { script: [{ code: runCell("echo outside") }, echoLastCell] });
    const sandboxed = linux ? ["--mode", "workspace"] : ["--mode", "full"];
    const refused = await runRelm(["run", ...sandboxed, "--approve", "never", "go"], {
      env: rig2.env,
      cwd: rig2.cwd,
    });
    if (!linux) return;
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain(
      "DENIED request('run') for echo outside was denied by the session's approval policy: this session runs with --approve never",
    );
    const { requests, answers: said } = answers(rig2.home);
    expect(requests).toMatchObject([{ kind: "run", subject: "echo outside", reason: "to see the result" }]);
    expect(said).toMatchObject([{ allow: false, by: "policy", id: requests[0]?.id }]);
    // The model read the refusal (the cell's output went back to it).
    expect(rig2.bodies().at(-1)).toContain("was denied by the session");
  });

  it.skipIf(!linux)("--approve auto grants: a command run outside, a write outside the project", async () => {
    const target = join(elsewhere, "auto.txt");
    const rig = await startRig("openai", {
      script: [
        {
          code: [
            runCell("echo hi from $0"),
            `w = request("write", "save the report", path=${JSON.stringify(target)}, content="report")`,
            "print('WROTE', w['path'], w['bytes'])",
          ].join("\n"),
        },
        echoLastCell,
      ],
    });
    const result = await runRelm(["run", "--mode", "workspace", "--approve", "auto", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("GRANTED 0 hi from /bin/sh");
    expect(result.stdout).toContain(`WROTE ${target} 6`);
    expect(readFileSync(target, "utf8")).toBe("report");
    const { answers: said, lines } = answers(rig.home);
    expect(said.map((a) => [a.allow, a.by])).toEqual([
      [true, "policy"],
      [true, "policy"],
    ]);
    // Journaled before acted on: each answer comes before the cell's output.
    const answered = lines.findIndex((l) => l.type === "approval_answer");
    expect(answered).toBeLessThan(lines.findIndex((l) => l.type === "cell_output"));
  });

  it.skipIf(!linux)(
    "a link a cell planted in the project does not lead a write the mode allows outside it",
    async () => {
      // Not there yet: the link dangles, so resolving it as a path of existing folders stops in the project.
      const target = join(elsewhere, "led-out.txt");
      const rig = await startRig("openai", {
        script: [
          {
            code: [
              "import os",
              `os.symlink(${JSON.stringify(target)}, 'report.txt')`,
              "try:",
              "    w = request('write', 'save the report', path='report.txt', content='led out')",
              "    print('WROTE', w['path'])",
              "except request.Denied as e:",
              "    print('DENIED', e)",
            ].join("\n"),
          },
          echoLastCell,
        ],
      });
      const result = await runRelm(["run", "--mode", "workspace", "--approve", "never", "go"], {
        env: rig.env,
        cwd: rig.cwd,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(target), "the host wrote through the planted link").toBe(false);
      // Asked about where the write would really land (outside the project), which --approve never refuses.
      expect(result.stdout).toContain(
        "DENIED request('write') for report.txt was denied by the session's approval policy",
      );
      expect(answers(rig.home).requests).toMatchObject([{ kind: "write", subject: target }]);
    },
  );

  it.skipIf(!linux)("config.json's allow list grants, and its deny list beats it", async () => {
    const rig = await startRig(
      "openai",
      {
        script: [{ code: [runCell("echo allowed"), runCell("echo secret stuff")].join("\n") }, echoLastCell],
      },
      { config: { approvals: { allow: { commands: ["echo"] }, deny: { commands: ["echo secret"] } } } },
    );
    const result = await runRelm(["run", "--mode", "workspace", "--approve", "never", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("GRANTED 0 allowed");
    expect(result.stdout).toContain("DENIED request('run') for echo secret stuff was denied");
    expect(result.stdout).toContain("it is on the deny list");
  });

  it.skipIf(!linux)("a granted mode switch happens after the cell, its variables kept", async () => {
    const target = join(elsewhere, "after-mode.txt");
    const rig = await startRig("openai", {
      script: [
        { code: 'x = 5\ng = request("mode", "must write outside the project", mode="full")\nprint(g.note)' },
        { code: `open(${JSON.stringify(target)}, "w").write("ok")\nprint("x is", x)` },
        echoLastCell,
      ],
    });
    const result = await runRelm(["run", "--mode", "workspace", "--approve", "auto", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("x is 5");
    expect(readFileSync(target, "utf8")).toBe("ok");
    const { lines } = answers(rig.home);
    expect(lines.find((l) => l.type === "mode")).toMatchObject({
      mode: "full",
      from: "workspace",
      restored: ["x", "g"],
    });
    // The model was told with the cell's result, not at some later turn.
    expect(rig.bodies()[1]).toContain("As approved, relm switched the permission mode to full");
  });

  it("a bad --approve is a usage error naming the flag", async () => {
    const rig = await startRig("openai", { script: [] });
    const result = await runRelm(["run", "--approve", "sometimes", "go"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--approve must be never (refuse what is not on the allow list), ask");
  });
});

describe.skipIf(!linux)("a network grant under bubblewrap", () => {
  it("lets the same kernel reach a local server it could not reach before, its variables kept", async () => {
    const server = createServer((_req, res) => res.end("hello from the host"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const fetchLine = `urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=10).read().decode()`;
    try {
      const rig = await startRig("openai", {
        script: [
          {
            code: [
              "import os, urllib.request",
              "kept = os.getpid()",
              "try:",
              `    print('BEFORE', ${fetchLine})`,
              "except Exception as e:",
              "    print('BEFORE refused', e)",
            ].join("\n"),
          },
          {
            code: [
              `g = request("net", "read the local server", host="127.0.0.1", port=${port})`,
              `print('AFTER', ${fetchLine}, kept == os.getpid())`,
            ].join("\n"),
          },
          echoLastCell,
        ],
      });
      const result = await runRelm(["run", "--mode", "workspace", "--approve", "auto", "go"], {
        env: rig.env,
        cwd: rig.cwd,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("AFTER hello from the host True");
      const outputs = answers(rig.home).lines.filter((l) => l.type === "cell_output");
      expect(String(outputs[0]?.output)).toContain("BEFORE refused");
      expect(String(outputs[0]?.output)).toContain("403");
    } finally {
      server.close();
    }
  });
});
