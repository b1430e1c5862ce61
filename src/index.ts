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

// Whitelist layers and the configuration directory (the allowlist spec).
export { loadConfigDir, resolveConfigDirPath } from "./config/configDir.js";
export { resolveLayers, layerVerdict, type Layer, type LayerLevel } from "./policy/layers.js";
export { withWhitelistLayers } from "./policy/layeredGate.js";
export { serverFilter, composedToolName, type ServerFilter } from "./policy/serverFilter.js";
export { explainTool, deadPatterns } from "./policy/explain.js";

// Controls (issue 6): scope, redaction, approval artifacts, tool pins.
export { checkScope, evaluateScope, type RealpathHook } from "./policy/controls/scope.js";
export { redactArguments, redactText } from "./policy/controls/redact.js";
export {
  checkApprovalArtifact,
  findApprovalArtifact,
  stripApproval,
  APPROVAL_DIGEST_PROFILE,
} from "./policy/controls/approval.js";
export { checkPins, unmatchedPins } from "./pins/drift.js";
export { exactSchemaHash, extractToolSchemaTexts, pinForTool } from "./pins/exactHash.js";

// The proxy and its parts, for hosts that move messages themselves.
export { PolicyProxy, type PolicyProxyOptions, type ProxyPeers } from "./gateway/policyProxy.js";
export {
  connectUpstream,
  type ListedToolCatalog,
  type Upstream,
  type UpstreamOptions,
} from "./gateway/upstream.js";
export type { AuditSink } from "./audit/sink.js";
export type { AuditEvent } from "./audit/events.js";
export { JsonlFileSink } from "./audit/jsonlFileSink.js";
export { verifyChain } from "./audit/verifyChain.js";
