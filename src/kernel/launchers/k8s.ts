// `k8s://[context/]namespace[?image=..&pod=..&container=..&cpu=..&memory=..&gpu=N&python=..&workdir=..]`:
// the kernel in a Kubernetes pod through the system `kubectl` (the user's kubeconfig, KUBECONFIG
// honoured), its stdin/stdout attached:
// - a new pod per kernel (default): `kubectl run NAME --image=IMAGE --restart=Never --rm -i --quiet
//   --command -- python3 -c BOOTSTRAP`, resources through --overrides (kubectl run has no flags for
//   them since 1.24); the pod is deleted when the kernel ends (--rm).
// - an existing pod (`pod=NAME`): `kubectl exec -i NAME -- python3 -c BOOTSTRAP`, e.g. a long-lived GPU
//   pod the researcher keeps; each kernel is one more process in it.
// Nothing is lost before the attach: the runner says nothing until the bootstrap has read relm's
// package from stdin, which only arrives once kubectl is attached.
//
// Transport "remote": no disk is shared; the image only needs a Python 3.10+.
// Verified against kubectl's argument parsing only (no cluster on the test machines): docs/scale.md.

import { randomBytes } from "node:crypto";
import { notInstalled, which } from "../which.js";
import { RemoteLauncher } from "./remote.js";
import type { LaunchCommand, LaunchContext, LauncherScheme } from "./types.js";
import { launcherUsage, UriOptions } from "./uri.js";

const SYNTAX =
  "k8s://[context/]namespace[?image=IMAGE&pod=NAME&container=NAME&cpu=..&memory=..&gpu=N&python=PATH&workdir=DIR]";
const USE = `Use ${SYNTAX}`;
/** The image a new pod runs when none is named: an official Python, nothing else needed. */
export const K8S_DEFAULT_IMAGE = "python:3.12-slim";
/** Label on every pod relm creates (kubectl get pods -l ...). */
const K8S_LABEL = "app.kubernetes.io/managed-by=relm";
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

interface K8sTarget {
  context?: string;
  namespace?: string;
  image: string;
  /** Exec into this pod instead of creating one per kernel. */
  pod?: string;
  container?: string;
  cpu?: string;
  memory?: string;
  gpu?: number;
  python: string;
  workdir?: string;
}

class K8sLauncher extends RemoteLauncher<K8sTarget> {
  readonly scheme = "k8s";

  constructor(
    uri: string,
    target: K8sTarget,
    /** The name of a new pod (tests give a fixed one). */
    private readonly podName: () => string = () => `relm-kernel-${randomBytes(4).toString("hex")}`,
  ) {
    super(uri, target);
  }

  command(ctx: LaunchContext): LaunchCommand {
    const t = this.target;
    const args: string[] = [];
    if (t.context) args.push(`--context=${t.context}`);
    if (t.namespace) args.push(`--namespace=${t.namespace}`);
    if (t.pod) {
      args.push("exec", "-i", t.pod);
      if (t.container) args.push(`--container=${t.container}`);
      args.push("--", ...ctx.inner);
      return { file: "kubectl", args };
    }
    const name = this.podName();
    args.push("run", name, `--image=${t.image}`, "--restart=Never", "--rm", "-i", "--quiet");
    args.push(`--labels=${K8S_LABEL}`);
    const resources = resourcesOf(t);
    if (resources) {
      // Merged by container name into the pod kubectl builds (strategic merge patch).
      const overrides = { apiVersion: "v1", spec: { containers: [{ name, resources }] } };
      args.push(`--overrides=${JSON.stringify(overrides)}`);
    }
    args.push("--command", "--", ...ctx.inner);
    return { file: "kubectl", args };
  }

  /** kubectl is installed (the cluster itself is not asked: that is its own credentials' business). */
  async preflight(env: NodeJS.ProcessEnv): Promise<string | undefined> {
    return which("kubectl", env) ? undefined : notInstalled("kubectl", env);
  }

  explainExit(stderr: string): string | undefined {
    const m =
      /(pods? "[^"]+" (?:not found|is forbidden)[^\n]*|error: timed out waiting for the condition[^\n]*|Unable to connect to the server[^\n]*|The connection to the server [^\n]*refused[^\n]*|OOMKilled|Evicted)/.exec(
        stderr,
      );
    return m ? `Kubernetes: ${m[1]}` : undefined;
  }
}

function resourcesOf(t: K8sTarget): Record<string, Record<string, string>> | undefined {
  const limits: Record<string, string> = {};
  if (t.cpu) limits.cpu = t.cpu;
  if (t.memory) limits.memory = t.memory;
  if (t.gpu !== undefined) limits["nvidia.com/gpu"] = String(t.gpu);
  if (Object.keys(limits).length === 0) return undefined;
  // Requests equal to limits: the scheduler places the pod where they fit (Guaranteed QoS).
  return { requests: { ...limits }, limits };
}

export function parseK8s(uri: string, where: string, podName?: () => string): K8sLauncher {
  const m = /^k8s:(?:\/\/([^?]*))?(?:\?(.*))?$/.exec(uri);
  if (!m) throw launcherUsage(where, uri, "not a k8s URI", `${USE}.`);
  const [, path = "", query = ""] = m;
  const parts = path.split("/").filter(Boolean);
  if (parts.length > 2) throw launcherUsage(where, uri, "too many path parts", `${USE}.`);
  const [context, namespace] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (context !== undefined && !/^[A-Za-z0-9_.@:-]+$/.test(context)) {
    throw launcherUsage(where, uri, `"${context}" is not a kubeconfig context name`, `${USE}.`);
  }
  if (namespace !== undefined && !NAME.test(namespace)) {
    throw launcherUsage(
      where,
      uri,
      `"${namespace}" is not a namespace name (lower case, digits, -)`,
      `${USE}.`,
    );
  }
  const opts = new UriOptions(
    query,
    ["image", "pod", "container", "cpu", "memory", "gpu", "python", "workdir"],
    where,
    uri,
    SYNTAX,
  );
  const image = opts.matching("image", /^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/, K8S_DEFAULT_IMAGE);
  const pod = opts.matching("pod", NAME, "gpu-box-0");
  const container = opts.matching("container", NAME, "main");
  const cpu = opts.matching("cpu", /^\d+(\.\d+)?m?$/, "2 or 500m");
  const memory = opts.matching("memory", /^\d+(\.\d+)?([EPTGMK]i?)?$/, "4Gi");
  const gpu = opts.matching("gpu", /^[1-9]\d{0,2}$/, "1");
  if (pod && (image || cpu || memory || gpu)) {
    throw launcherUsage(
      where,
      uri,
      "pod= runs in an existing pod, whose image and resources are already set",
      "Leave out image, cpu, memory and gpu, or leave out pod.",
    );
  }
  if (container && !pod)
    throw launcherUsage(where, uri, "container= picks a container of pod=", "Add pod=NAME.");
  const python = opts.python("Name the interpreter in the image.");
  const target: K8sTarget = { image: image ?? K8S_DEFAULT_IMAGE, python };
  if (context) target.context = context;
  if (namespace) target.namespace = namespace;
  if (pod) target.pod = pod;
  if (container) target.container = container;
  if (cpu) target.cpu = cpu;
  if (memory) target.memory = memory;
  if (gpu) target.gpu = Number(gpu);
  const workdir = opts.get("workdir");
  if (workdir) target.workdir = workdir;
  return new K8sLauncher(uri, target, podName);
}

export const k8sScheme: LauncherScheme = {
  scheme: "k8s",
  syntax: SYNTAX,
  parse: (uri, where) => parseK8s(uri, where),
};
