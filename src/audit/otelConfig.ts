/**
 * What the standard OpenTelemetry environment variables ask of toolgate. Only the decision to turn
 * telemetry on and what to warn about is made here; the exporter itself reads the endpoint, headers,
 * timeout and compression variables as the OTLP exporter specification says
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, …), and the SDK reads `OTEL_BSP_*` and `OTEL_TRACES_SAMPLER`.
 */

export type Env = Readonly<Record<string, string | undefined>>;

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== "";

/**
 * True when an OTLP endpoint is configured for traces and telemetry is not switched off
 * (`OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`).
 */
export function telemetryRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((s) => s.trim().toLowerCase());
  if (exporters.includes("none")) return false;
  return set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** `service.name` when OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) does not say otherwise. */
export const DEFAULT_SERVICE_NAME = "toolgate";

/** Where spans go, for messages: scheme, host and path only (a URL's user info or query may be a secret). */
export function tracesEndpointForMessages(env: Env): string {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const raw = set(specific)
    ? specific
    : `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").replace(/\/+$/, "")}/v1/traces`;
  try {
    const url = new URL(raw.trim());
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

/**
 * A warning when the configuration asks for something toolgate does not do: it sends OTLP over HTTP with
 * JSON bodies (the exporter it ships), not protobuf or gRPC. Collectors accept JSON on the same
 * `/v1/traces` path, so the spans are still sent.
 */
export function protocolWarning(env: Env): string | null {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").trim();
  if (protocol === "" || protocol === "http/json") return null;
  return `OTEL_EXPORTER_OTLP_PROTOCOL is '${protocol}', but toolgate exports OTLP over HTTP as JSON (http/json); sending JSON to ${tracesEndpointForMessages(env)}`;
}
