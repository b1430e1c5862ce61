import type { Tracer } from "@opentelemetry/api";
import type { BasicTracerProvider, ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { AuditEvent } from "./events.js";
import { DEFAULT_SERVICE_NAME, protocolWarning, tracesEndpointForMessages, type Env } from "./otelConfig.js";
import type { AuditSink } from "./sink.js";
import { decisionSpan } from "./spanAttributes.js";

/**
 * Decision spans over OTLP/HTTP. An AuditSink that never refuses: a span is queued in memory and sent in
 * batches in the background (the SDK's BatchSpanProcessor; when its queue is full, spans are dropped
 * rather than held), so a slow or absent collector costs a call nothing. The first failed export is
 * reported once on the log; later ones are not.
 *
 * The OpenTelemetry modules are imported when the sink is created, which happens only when the
 * environment asks for telemetry (telemetry.ts), so toolgate's start-up does not load them otherwise.
 */

export interface OtelSinkOptions {
  env: Env;
  log: (line: string) => void;
  /** Names the server on spans of events that do not (wrap's events). */
  server?: string;
  version?: string;
}

type ExportResult = { code: number; error?: Error };
/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const EXPORT_SUCCESS = 0;

export class OtelSink implements AuditSink {
  private closed = false;
  private reportedWriteFailure = false;

  constructor(
    private readonly provider: BasicTracerProvider,
    private readonly tracer: Tracer,
    private readonly api: typeof import("@opentelemetry/api"),
    private readonly options: OtelSinkOptions,
  ) {}

  write(event: AuditEvent): void {
    if (this.closed || event.event !== "tools/call") return;
    try {
      const span = decisionSpan(event, this.options.server);
      const otelSpan = this.tracer.startSpan(span.name, {
        kind: this.api.SpanKind.INTERNAL,
        startTime: span.time,
        attributes: span.attributes,
      });
      if (span.refused) {
        otelSpan.setStatus({
          code: this.api.SpanStatusCode.ERROR,
          ...(span.statusMessage === undefined ? {} : { message: span.statusMessage }),
        });
      }
      otelSpan.end(span.time);
    } catch (error) {
      // Telemetry never refuses a call: report once and carry on.
      if (!this.reportedWriteFailure) {
        this.reportedWriteFailure = true;
        this.options.log(
          `OpenTelemetry: could not record a span (${errorText(error)}); telemetry may be incomplete`,
        );
      }
    }
  }

  /** Sends what is queued, waiting at most `timeoutMs`; then the sink records nothing more. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), timeoutMs);
      timer.unref();
    });
    const done = this.provider.shutdown().then(
      () => "done" as const,
      (error: unknown) => {
        this.options.log(`OpenTelemetry: shutting down the exporter failed (${errorText(error)})`);
        return "done" as const;
      },
    );
    const outcome = await Promise.race([done, expired]);
    clearTimeout(timer);
    if (outcome === "expired") {
      this.options.log(
        `OpenTelemetry: spans not yet sent to ${tracesEndpointForMessages(this.options.env)} after ${timeoutMs} ms were dropped at exit`,
      );
    }
  }

  close(): void {
    // Anything still queued is sent by drain(); close() only stops recording (it must stay synchronous).
    this.closed = true;
  }
}

/** Loads the OpenTelemetry modules and builds the sink. Rejects only if the modules cannot be loaded. */
export async function createOtelSink(options: OtelSinkOptions): Promise<OtelSink> {
  const [api, sdk, resources, otlp] = await Promise.all([
    load<typeof import("@opentelemetry/api")>("@opentelemetry/api"),
    load<typeof import("@opentelemetry/sdk-trace-base")>("@opentelemetry/sdk-trace-base"),
    load<typeof import("@opentelemetry/resources")>("@opentelemetry/resources"),
    load<typeof import("@opentelemetry/exporter-trace-otlp-http")>("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const warning = protocolWarning(options.env);
  if (warning !== null) options.log(`OpenTelemetry: ${warning}`);

  // Defaults first, then what OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say.
  const resource = resources
    .resourceFromAttributes({
      "service.name": DEFAULT_SERVICE_NAME,
      ...(options.version === undefined ? {} : { "service.version": options.version }),
    })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));

  const exporter = reportingFailuresOnce(new otlp.OTLPTraceExporter(), options);
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("toolgate", options.version);
  return new OtelSink(provider, tracer, api, options);
}

/**
 * A runtime import. The bundler inlines `import("literal")` into dist/cli.js; a specifier it cannot see
 * stays an import of the installed package, so the OpenTelemetry SDK (about 700 KB) is neither in the
 * bundle nor parsed at every start-up, only loaded when telemetry is on.
 */
function load<T>(specifier: string): Promise<T> {
  return import(specifier) as Promise<T>;
}

/** The exporter, with its first failure said on the log (the SDK itself only tells its diag logger). */
function reportingFailuresOnce(inner: SpanExporter, options: OtelSinkOptions): SpanExporter {
  let reported = false;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      inner.export(spans, (result: ExportResult) => {
        if (result.code !== EXPORT_SUCCESS && !reported) {
          reported = true;
          options.log(
            `OpenTelemetry: exporting spans to ${tracesEndpointForMessages(options.env)} failed` +
              (result.error === undefined ? "" : ` (${errorText(result.error)})`) +
              "; calls go on, further export failures are not reported",
          );
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush === undefined ? {} : { forceFlush: () => inner.forceFlush!() }),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
