// The library surface for TypeScript MCP hosts: the engine (patterns, policy loading, decisions, pins).
export * from "./patterns/index.js";
export type {
  CallContext,
  Decision,
  Obligation,
  Rule,
  SessionCounters,
  Violation,
} from "./policy/decision.js";
export type { NameVerdict, ToolContext, ToolDefinition, ToolGate } from "./policy/gate.js";
export { REASON_CODES, type ReasonCode } from "./policy/reasonCodes.js";
export { formatDiagnostic, hasErrors, type Diagnostic } from "./config/diagnostics.js";
export type { Policy, PatternEntry, SourceRef, ToolPin } from "./config/policyModel.js";
export { loadPolicyFile, loadPolicyText, type PolicyLoadResult } from "./config/policyLoader.js";
export { migratePolicy, needsMigration } from "./config/policyMigrate.js";
export { lintPolicy } from "./policy/lint.js";
export { compilePolicy, type CompiledPolicy } from "./policy/compile.js";
export { decideCall, decideName, type CallArguments } from "./policy/decide.js";
export { allowAllGate, createPolicyGate, type PolicyGateOptions } from "./policy/policyGate.js";
export { parseStrictJson, type StrictJsonResult } from "./json/strictJson.js";
export { canonicalJson } from "./pins/canonicalJson.js";
export { metaHash, schemaHash, sha256Hex } from "./pins/hashes.js";
export { ToolgateError } from "./errors.js";
