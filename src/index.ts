// The library surface for TypeScript MCP hosts: the engine and (later) the proxy.
export * from "./patterns/index.js";
export type { Decision, Obligation, Rule, SessionCounters, Violation } from "./policy/decision.js";
export type { NameVerdict, ToolDefinition, ToolGate } from "./policy/gate.js";
export { REASON_CODES, type ReasonCode } from "./policy/reasonCodes.js";
export type { Diagnostic } from "./config/diagnostics.js";
export { formatDiagnostic } from "./config/diagnostics.js";
