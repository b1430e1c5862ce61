// deploy/ rendered by kubectl and checked offline: every object against the Kubernetes schemas, then what
// the schemas cannot know: that the probes ask the ports serve listens on, that Kubernetes waits out the
// drain, that the pod runs as nobody privileged, that secrets stay out of the ConfigMap, that the
// overlays point serve at the Redis and the names they create.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { find, flagValues, oneFlag, render, schemaErrors, type K8sObject } from "./render.js";

const KUSTOMIZATIONS = ["base", "overlays/replicas", "overlays/ingress"] as const;
const rendered = new Map(KUSTOMIZATIONS.map((dir) => [dir, render(dir).objects]));
const objectsOf = (dir: (typeof KUSTOMIZATIONS)[number]): K8sObject[] => rendered.get(dir)!;

/** The default of `serve --drain-timeout`, in seconds, when the manifest does not give it. */
const DEFAULT_DRAIN_S = 30;
/** The image's user (Dockerfile: USER 1000:1000, the `node` user of node:20-slim). */
const IMAGE_UID = 1000;

function gateway(objects: K8sObject[]): { deployment: K8sObject; pod: K8sObject; container: K8sObject } {
  const deployment = find(objects, "Deployment", "toolgate");
  const pod = deployment.spec.template.spec;
  const container = pod.containers.find((c: K8sObject) => c.name === "toolgate");
  if (container === undefined) throw new Error("the toolgate Deployment has no container named toolgate");
  return { deployment, pod, container };
}

/** A container port by name or number, as a probe or a Service names it. */
function containerPort(container: K8sObject, port: string | number): number {
  if (typeof port === "number") return port;
  const named = (container.ports ?? []).find((p: K8sObject) => p.name === port);
  if (named === undefined) throw new Error(`no container port named '${port}'`);
  return named.containerPort;
}

function preStopSleepSeconds(container: K8sObject): number {
  const command: string[] = container.lifecycle?.preStop?.exec?.command ?? [];
  if (command.length === 0) return 0;
  expect(command[0], "preStop is a plain sleep (the image has coreutils' sleep)").toBe("sleep");
  return Number(command[1]);
}

describe.each(KUSTOMIZATIONS)("deploy/%s", (dir) => {
  it("renders, and every object is valid against the Kubernetes schemas", async () => {
    const objects = objectsOf(dir);
    expect(objects.length).toBeGreaterThan(4);
    const errors = (await Promise.all(objects.map(schemaErrors))).flat();
    expect(errors).toEqual([]);
  });

  it("the probes ask serve's own port for /healthz and /readyz, and the drain fits in the grace period", () => {
    const { pod, container } = gateway(objectsOf(dir));
    const args: string[] = container.args;
    expect(args[0]).toBe("serve");
    const httpPort = Number(oneFlag(args, "--http"));
    expect(httpPort).toBeGreaterThan(0);
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(containerPort(container, container.livenessProbe.httpGet.port)).toBe(httpPort);
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    expect(containerPort(container, container.readinessProbe.httpGet.port)).toBe(httpPort);
    // kubelet probes from outside the pod: serve must listen beyond loopback and accept the Host the probe
    // sends (the pod's IP and port).
    expect(oneFlag(args, "--host")).toBe("0.0.0.0");
    expect(flagValues(args, "--allowed-host")).toContain("$(POD_IP)");
    const podIp = container.env.find((e: K8sObject) => e.name === "POD_IP");
    expect(podIp?.valueFrom?.fieldRef?.fieldPath).toBe("status.podIP");

    const metricsPort = Number(oneFlag(args, "--metrics-port"));
    expect(containerPort(container, "metrics")).toBe(metricsPort);
    expect(oneFlag(args, "--metrics-host"), "Prometheus scrapes the pod's address, not its loopback").toBe(
      "0.0.0.0",
    );
    const annotations = find(objectsOf(dir), "Deployment", "toolgate").spec.template.metadata.annotations;
    expect(Number(annotations["prometheus.io/port"])).toBe(metricsPort);

    const drainS = Number(oneFlag(args, "--drain-timeout") ?? DEFAULT_DRAIN_S);
    expect(drainS).toBeGreaterThan(0);
    // Kubernetes runs preStop, then sends SIGTERM, and kills the container when the grace period (counted
    // from the start of preStop) runs out: the drain must fit after the preStop's sleep.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStopSleepSeconds(container) + drainS);
  });

  it("runs as the image's non-root user on a read-only root file system, with writable room where serve writes", () => {
    const { pod, container } = gateway(objectsOf(dir));
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBe(IMAGE_UID);
    expect(pod.automountServiceAccountToken).toBe(false);
    const sc = container.securityContext;
    expect(sc.readOnlyRootFilesystem).toBe(true);
    expect(sc.allowPrivilegeEscalation).toBe(false);
    expect(sc.capabilities.drop).toContain("ALL");
    expect(container.resources.requests.cpu).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();

    const mounts: K8sObject[] = container.volumeMounts;
    const writable = (path: string): boolean =>
      mounts.some((m) => m.readOnly !== true && (path === m.mountPath || path.startsWith(`${m.mountPath}/`)));
    const auditLog = oneFlag(container.args, "--audit-log");
    if (auditLog !== undefined) expect(writable(auditLog), `${auditLog} is on a writable volume`).toBe(true);
    expect(writable("/tmp")).toBe(true);
  });

  it("mounts the generated ConfigMap as --config-dir and the Secret's tokens file as --tokens", () => {
    const objects = objectsOf(dir);
    const { pod, container } = gateway(objects);
    const args: string[] = container.args;
    const volumeAt = (path: string): K8sObject => {
      const mount = container.volumeMounts.find((m: K8sObject) => m.mountPath === path);
      if (mount === undefined) throw new Error(`nothing is mounted at ${path}`);
      return pod.volumes.find((v: K8sObject) => v.name === mount.name);
    };
    const configDir = oneFlag(args, "--config-dir")!;
    const configMap = find(objects, "ConfigMap", volumeAt(configDir).configMap.name);
    expect(Object.keys(configMap.data).sort()).toEqual(["config.yaml", "mcp.json", "policy.yaml"]);
    // config.yaml's policy: names a file of the ConfigMap (a relative path inside the directory).
    expect(Object.keys(configMap.data)).toContain(parse(configMap.data["config.yaml"]).policy);

    const tokens = oneFlag(args, "--tokens")!;
    const slash = tokens.lastIndexOf("/");
    const secretVolume = volumeAt(tokens.slice(0, slash)).secret;
    const secret = find(objects, "Secret", secretVolume.secretName);
    const item = secretVolume.items.find((i: K8sObject) => i.path === tokens.slice(slash + 1));
    expect(item, `the Secret volume has ${tokens.slice(slash + 1)}`).toBeDefined();
    expect(Object.keys(secret.stringData ?? secret.data)).toContain(item.key);
    // Group-readable only: fsGroup makes the pod's user a member of the file's group.
    expect(secretVolume.defaultMode & 0o007).toBe(0);
  });

  it("keeps secrets out of the ConfigMap and the arguments, and every $(VAR) refers to the container's env", () => {
    const objects = objectsOf(dir);
    const { container } = gateway(objects);
    const configMap = objects.find(
      (o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("toolgate-config"),
    )!;
    const secretValues = objects
      .filter((o) => o.kind === "Secret")
      .flatMap((s) => Object.values<string>(s.stringData ?? {}));
    expect(secretValues.length).toBeGreaterThan(0);
    const configText = JSON.stringify(configMap.data);
    for (const value of secretValues) {
      for (const line of value.split("\n").filter((l) => l.trim().length > 8)) {
        expect(configText, "a Secret's value in the ConfigMap").not.toContain(line.trim());
      }
    }
    // No token, key or password in the configuration directory, not even as an example.
    expect(configText).not.toMatch(/\btoken(_sha256)?\s*:|password|secret/i);
    for (const arg of container.args as string[]) {
      for (const value of secretValues) expect(arg).not.toContain(value);
    }
    expect(
      oneFlag(container.args, "--token"),
      "--token would put the token in the process list",
    ).toBeUndefined();

    const envNames = new Set(container.env.map((e: K8sObject) => e.name));
    const refs = (container.args as string[]).flatMap((a) =>
      [...a.matchAll(/\$\(([A-Z_]+)\)/g)].map((m) => m[1]),
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const name of refs)
      expect(envNames, `$(${name}) is expanded by Kubernetes only from env`).toContain(name);
    const stateSecret = container.env.find((e: K8sObject) => e.name === "TOOLGATE_STATE_SECRET");
    const ref = stateSecret?.valueFrom?.secretKeyRef;
    const secret = find(objects, "Secret", ref.name);
    expect(Object.keys(secret.stringData)).toContain(ref.key);
  });

  it("leaves placeholders toolgate refuses, marked REPLACE, in the Secret", () => {
    const secret = find(objectsOf(dir), "Secret", "toolgate-secrets");
    for (const [key, value] of Object.entries<string>(secret.stringData)) {
      expect(value, `${key} is a marked placeholder`).toMatch(/REPLACE_WITH_/);
    }
    // serve refuses a state secret under 32 bytes (and the tokens file's placeholder is no SHA-256):
    // applied unedited, the pod exits with the reason instead of serving with a published secret.
    expect(Buffer.byteLength(secret.stringData["state-secret"])).toBeLessThan(32);
  });

  it("selects the gateway's pods with its Service and PodDisruptionBudget, by the ports serve listens on", () => {
    const objects = objectsOf(dir);
    const { deployment, container } = gateway(objects);
    const labels = deployment.spec.template.metadata.labels;
    const matches = (selector: Record<string, string>): boolean =>
      Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
    const service = find(objects, "Service", "toolgate");
    expect(matches(service.spec.selector)).toBe(true);
    const ports = Object.fromEntries(
      service.spec.ports.map((p: K8sObject) => [p.name, containerPort(container, p.targetPort)]),
    );
    expect(ports).toEqual({
      http: Number(oneFlag(container.args, "--http")),
      metrics: Number(oneFlag(container.args, "--metrics-port")),
    });
    expect(flagValues(container.args, "--allowed-host")).toContain(service.metadata.name);

    const pdb = find(objects, "PodDisruptionBudget", "toolgate");
    expect(matches(pdb.spec.selector.matchLabels)).toBe(true);
    // A budget that allows no eviction would block every node drain.
    expect(pdb.spec.maxUnavailable).toBeGreaterThanOrEqual(1);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });
});

describe.each(["overlays/replicas", "overlays/ingress"] as const)("deploy/%s: replicas with Redis", (dir) => {
  it("runs several replicas sharing a Redis the overlay creates, each announcing its own address", () => {
    const objects = objectsOf(dir);
    const { deployment, container } = gateway(objects);
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const args: string[] = container.args;
    const state = new URL(oneFlag(args, "--state")!);
    expect(state.protocol).toBe("redis:");
    const redisService = find(objects, "Service", state.hostname);
    expect(redisService.spec.ports.map((p: K8sObject) => p.port)).toContain(Number(state.port));
    expect(state.password).toBe("$(REDIS_PASSWORD)");
    expect(oneFlag(args, "--announce")).toBe(`http://$(POD_IP):${oneFlag(args, "--http")}`);

    const redis = find(objects, "Deployment", "toolgate-redis");
    const redisPod = redis.spec.template;
    expect(
      Object.entries(redisService.spec.selector).every(([k, v]) => redisPod.metadata.labels[k] === v),
    ).toBe(true);
    const redisContainer = redisPod.spec.containers[0];
    expect(oneFlag(redisContainer.args, "--requirepass")).toBe("$(REDIS_PASSWORD)");
    const passwordRef = (c: K8sObject): unknown =>
      c.env.find((e: K8sObject) => e.name === "REDIS_PASSWORD")?.valueFrom?.secretKeyRef;
    expect(passwordRef(container)).toEqual(passwordRef(redisContainer));
    expect(redisPod.spec.securityContext.runAsNonRoot).toBe(true);
    expect(redisContainer.securityContext.readOnlyRootFilesystem).toBe(true);

    // Only the gateway's pods may reach Redis.
    const policy = find(objects, "NetworkPolicy", "toolgate-redis");
    expect(policy.spec.podSelector.matchLabels).toEqual(redisPod.metadata.labels);
    expect(policy.spec.ingress).toHaveLength(1);
    expect(policy.spec.ingress[0].from).toEqual([
      { podSelector: { matchLabels: deployment.spec.template.metadata.labels } },
    ]);
  });
});

describe("deploy/overlays/ingress", () => {
  it("routes /mcp of its host to the gateway's http port, a host serve accepts, never retried elsewhere", () => {
    const objects = objectsOf("overlays/ingress");
    const { container } = gateway(objects);
    const ingress = find(objects, "Ingress", "toolgate");
    const rule = ingress.spec.rules[0];
    const path = rule.http.paths[0];
    expect(path.path).toBe("/mcp");
    const service = find(objects, "Service", path.backend.service.name);
    expect(service.spec.ports.map((p: K8sObject) => p.name)).toContain(path.backend.service.port.name);
    expect(path.backend.service.port.name).toBe("http");
    // ingress-nginx passes the Host without a port, which serve reads as port 80.
    expect(flagValues(container.args, "--allowed-host")).toContain(`${rule.host}:80`);
    const annotations = ingress.metadata.annotations;
    expect(annotations["nginx.ingress.kubernetes.io/proxy-next-upstream"]).toBe("off");
    expect(annotations["nginx.ingress.kubernetes.io/proxy-buffering"]).toBe("off");
  });
});
