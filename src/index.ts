// The library surface for TypeScript MCP hosts: the engine (patterns, policy loading, decisions, pins).
export * from "./engine/patterns/index.js";
export type {
  CallContext,
  Decision,
  Obligation,
  Rule,
  SessionCounters,
  Violation,
} from "./engine/model/decision.js";
export type { NameVerdict, ToolContext, ToolDefinition, ToolGate } from "./engine/model/gate.js";
export { REASON_CODES, type ReasonCode } from "./engine/model/reasonCodes.js";
export { formatDiagnostic, hasErrors, type Diagnostic } from "./engine/model/diagnostics.js";
export type { Policy, PatternEntry, ToolPin } from "./engine/model/policy.js";
export type { SourceRef } from "./engine/model/source.js";
export { loadPolicyFile, loadPolicyText, type PolicyLoadResult } from "./config/policyLoader.js";
export { migratePolicy, needsMigration } from "./config/policyMigrate.js";
export { lintPolicy } from "./config/policyLint.js";
export { compilePolicy, type CompiledPolicy } from "./engine/policy/compile.js";
export { decideCall, decideName, type CallArguments } from "./engine/policy/decide.js";
export { allowAllGate, createPolicyGate, type PolicyGateOptions } from "./engine/policy/policyGate.js";
export { parseStrictJson, type StrictJsonResult } from "./engine/json/strictJson.js";
export { canonicalJson } from "./engine/pins/canonicalJson.js";
export { metaHash, schemaHash, sha256Hex } from "./engine/pins/hashes.js";
export { ToolgateError } from "./engine/errors.js";

// Whitelist layers and the configuration directory (the allowlist spec).
export { loadConfigDir, resolveConfigDirPath } from "./config/configDir.js";
export { resolveLayers, layerVerdict, type Layer, type LayerLevel } from "./engine/policy/layers.js";
export { withWhitelistLayers } from "./engine/policy/layeredGate.js";
export { serverFilter, composedToolName, type ServerFilter } from "./engine/policy/serverFilter.js";
export { explainTool, deadPatterns } from "./engine/policy/explain.js";

// Controls (issue 6): scope, redaction, approval artifacts, tool pins.
export { checkScope, evaluateScope } from "./engine/controls/scope.js";
export type { RealpathHook } from "./engine/model/decision.js";
export { redactArguments, redactText } from "./engine/controls/redact.js";
export { checkApprovalArtifact, findApprovalArtifact, stripApproval } from "./engine/controls/approval.js";
export { APPROVAL_DIGEST_PROFILE, type ApprovalKeyring } from "./engine/model/approval.js";
export {
  approvalKeyring,
  ed25519PublicKey,
  signApprovalArtifact,
  type ApprovalSigningKey,
} from "./engine/controls/approvalSignature.js";
export { MemoryApprovalClaims, type ApprovalClaims } from "./session/approvalClaims.js";
export { checkPins, unmatchedPins } from "./engine/pins/drift.js";
export { exactSchemaHash, extractToolSchemaTexts, pinForTool } from "./engine/pins/exactHash.js";

// The proxy and its parts, for hosts that move messages themselves.
export { PolicyProxy, type PolicyProxyOptions, type ProxyPeers } from "./wrap/policyProxy.js";
export {
  connectUpstream,
  type ListedToolCatalog,
  type Upstream,
  type UpstreamOptions,
} from "./upstream/upstream.js";
export type { AuditSink } from "./audit/sink.js";
export type { AuditEvent } from "./audit/events.js";
export { JsonlFileSink } from "./audit/jsonlFileSink.js";
export { verifyChain } from "./audit/verifyChain.js";
// Signed audit logs (issue 25): a client proves the receipts it was given against the logs and the key.
export { RECEIPT_META_KEY, type Receipt } from "./audit/receipt.js";
export { verifyReceipt, type ReceiptCheck, type ReceiptVerdict } from "./audit/verifyReceipt.js";
export { brokenContext, Gateway, type ClientContext, type GatewaySettings } from "./serve/gateway.js";
export { runCall, type CallPort, type CallRequest, type CallTarget } from "./session/runCall.js";
export { localPrincipal, type Principal } from "./engine/model/principal.js";
