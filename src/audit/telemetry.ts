import { telemetryRequested, type Env } from "./otelConfig.js";
import { fanOutSink, type AuditSink } from "./sink.js";

/**
 * `sink` plus decision spans when the environment asks for OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set; see otelConfig.ts); `sink` itself otherwise, without loading any
 * OpenTelemetry module. The JSONL sink stays first: a span is sent only for a decision that was recorded.
 * If the OpenTelemetry modules cannot be loaded, that is said on the log and toolgate runs without spans:
 * telemetry never stops the gateway.
 */
export async function withTelemetry(
  sink: AuditSink | null,
  options: { log: (line: string) => void; server?: string; env?: Env },
): Promise<AuditSink | null> {
  const env = options.env ?? process.env;
  if (!telemetryRequested(env)) return sink;
  let otel: AuditSink;
  try {
    const { createOtelSink } = await import("./otelSink.js");
    otel = await createOtelSink({
      env,
      log: options.log,
      version: TOOLGATE_VERSION,
      ...(options.server === undefined ? {} : { server: options.server }),
    });
  } catch (error) {
    options.log(
      `OpenTelemetry: cannot start the span exporter (${error instanceof Error ? error.message : String(error)}); running without telemetry`,
    );
    return sink;
  }
  return sink === null ? otel : fanOutSink([sink, otel]);
}

const TOOLGATE_VERSION = "0.1.0";
