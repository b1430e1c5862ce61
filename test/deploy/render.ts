// Renders deploy/'s kustomizations with kubectl (no cluster: `kubectl kustomize` works offline) and checks
// each object against the Kubernetes schemas of kubernetes-models, offline too.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DEPLOY = join(ROOT, "deploy");

/** A rendered object, loosely typed: the tests read it field by field and fail when one is missing. */
/* eslint-disable @typescript-eslint/no-explicit-any */
export type K8sObject = Record<string, any> & {
  apiVersion: string;
  kind: string;
  metadata: Record<string, any> & { name: string };
};
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * kubectl's path, or an error saying how to install it: without kubectl nothing here can be checked, and a
 * test that passed without rendering would say the manifests are fine when nobody looked.
 */
export function kubectl(): string {
  const bin = process.env.KUBECTL ?? "kubectl";
  const probe = spawnSync(bin, ["version", "--client"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `cannot run '${bin}' (${probe.error?.message ?? probe.stderr.trim()}): the deployment tests render deploy/ ` +
        "with kubectl. Install Debian's: apt-get install kubernetes-client (as .ci/run does), or point $KUBECTL at one.",
    );
  }
  return bin;
}

/** `kubectl kustomize DIR`, parsed; kubectl's stderr (deprecation warnings, errors) comes along. */
export function render(dir: string): { objects: K8sObject[]; stderr: string } {
  const run = spawnSync(kubectl(), ["kustomize", join(DEPLOY, dir)], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`kubectl kustomize ${dir} failed (${run.status}):\n${run.stderr}`);
  const objects = parseAllDocuments(run.stdout).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`kubectl kustomize ${dir}: ${doc.errors[0]!.message}`);
    return doc.toJS() as K8sObject;
  });
  return { objects, stderr: run.stderr };
}

/** The kubernetes-models modules of the apiVersions deploy/ uses; another apiVersion is reported, not guessed. */
const MODELS: Record<string, () => Promise<Record<string, unknown>>> = {
  v1: () => import("kubernetes-models/v1"),
  "apps/v1": () => import("kubernetes-models/apps/v1"),
  "policy/v1": () => import("kubernetes-models/policy/v1"),
  "networking.k8s.io/v1": () => import("kubernetes-models/networking.k8s.io/v1"),
};

interface Validatable {
  validate(): void;
}

/**
 * Every schema error of one object (none: []). A kind kubernetes-models does not know is an error too, so a
 * typo in `kind` or `apiVersion` cannot pass unchecked. kubernetes-models checks types, required fields and
 * formats; like the API server's schemas it does not reject unknown fields, which the tests below catch for
 * the fields they read by reading them.
 */
export async function schemaErrors(obj: K8sObject): Promise<string[]> {
  const where = `${obj.kind}/${obj.metadata?.name}`;
  const load = MODELS[obj.apiVersion];
  if (load === undefined) return [`${where}: apiVersion '${obj.apiVersion}' is not one this test checks`];
  const models = await load();
  const Model = models[obj.kind] as (new (data: unknown) => Validatable) | undefined;
  if (typeof Model !== "function") return [`${where}: no kind '${obj.kind}' in ${obj.apiVersion}`];
  try {
    new Model(obj).validate();
    return [];
  } catch (error) {
    return [`${where}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

export function find(objects: K8sObject[], kind: string, name?: string): K8sObject {
  const hits = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (hits.length !== 1)
    throw new Error(`expected one ${kind}${name ? ` '${name}'` : ""}, rendered ${hits.length}`);
  return hits[0]!;
}

/** The value after each occurrence of a flag in an argument list (`--flag value`). */
export function flagValues(args: readonly string[], flag: string): string[] {
  const out: string[] = [];
  args.forEach((a, i) => {
    if (a === flag) {
      const v = args[i + 1];
      if (v === undefined) throw new Error(`${flag} is the last argument: it has no value`);
      out.push(v);
    }
  });
  return out;
}

export function oneFlag(args: readonly string[], flag: string): string | undefined {
  const values = flagValues(args, flag);
  if (values.length > 1) throw new Error(`${flag} given ${values.length} times`);
  return values[0];
}
