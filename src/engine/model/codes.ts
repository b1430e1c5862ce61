import { REASON_CODES } from "./reasonCodes.js";

/**
 * Every code toolgate prints or records, in one place. Codes are stable: scripts, tests and clients match
 * on them. `E_` codes are errors and refusals, `W_` codes warnings. docs/codes.md says what each means and
 * how to fix it (a test keeps the two in step).
 */

/**
 * Decisions about a resource or a prompt under the policy's opt-in `resources:` / `prompts:` sections
 * (engine/policy/itemRules.ts). Not reason codes of a tool call: they never appear on one.
 */
export const ITEM_DECISION_CODES = [
  "E_RESOURCE_DENIED",
  "E_RESOURCE_NOT_ALLOWED",
  "E_PROMPT_DENIED",
  "E_PROMPT_NOT_ALLOWED",
] as const;

export type ItemDecisionCode = (typeof ITEM_DECISION_CODES)[number];

/** toolgate's own refusals of a call or request (not the policy's): see session/answers.ts. */
export const GATEWAY_REFUSAL_CODES = [
  "E_AUDIT_WRITE",
  "E_CATALOG_UNAVAILABLE",
  "E_UPSTREAM_UNAVAILABLE",
  "E_UPSTREAM_AUTH",
  "E_UPSTREAM_AUTH_PRINCIPAL",
  "E_REQUEST_STATE",
  "E_PROTOCOL",
  "E_STATE_UNAVAILABLE",
] as const;

/** Requests of serve --http refused before any session: credentials missing, invalid, short of a scope, unmapped. */
export const AUTH_CODES = [
  "E_AUTH_REQUIRED",
  "E_AUTH_TOKEN",
  "E_AUTH_SCOPE",
  "E_AUTH_PRINCIPAL",
  "E_AUTH_USE",
] as const;

/** Findings about a policy file (loader, lint, migration). */
export const POLICY_FILE_CODES = [
  "E_POLICY_READ",
  "E_POLICY_ENCODING",
  "E_POLICY_EMPTY",
  "E_POLICY_VERSION",
  "E_POLICY_FIELD_TYPE",
  "E_POLICY_FIELD_VALUE",
  "E_POLICY_MISSING_FIELD",
  "E_POLICY_UNSUPPORTED",
  "E_POLICY_CONTRACT_VALUE",
  "E_POLICY_CONTRACT_MISSING",
  "E_POLICY_SCHEMA_CONFLICT",
  "E_POLICY_PIN_HASH",
  "E_POLICY_V1_PATTERN",
  "E_POLICY_V1_OPERATOR",
  "E_POLICY_MIGRATE",
  "E_POLICY_MIGRATE_BACKUP",
  "E_POLICY_MIGRATE_WRITE",
  "E_PATTERN_TOO_LONG",
  "E_PATTERN_TRAILING_ESCAPE",
  "W_DEPRECATED",
  "W_DEPRECATED_V1",
  "W_DEPRECATED_ROOT_LIST",
  "W_UNSUPPORTED_FIELD",
  "W_UNCONSTRAINED",
  "W_UNCONSTRAINED_DENY",
  "W_V1_PARAM_UNCONSTRAINED",
  "W_SCHEMA_BOUNDS",
  "W_SCHEMA_UNREACHABLE",
  "W_SCHEMA_KEY_STAR",
  "W_OBLIGATION_UNREACHABLE",
  "W_OBLIGATION_LITERAL_STAR",
  "W_ALLOW_ALL",
  "W_ALLOW_LITERAL_STAR",
  "W_DENY_LITERAL_STAR",
  "W_PATTERN_EMPTY",
  "W_CONTRACT_UNUSED",
  "W_CONTRACT_FIELD_UNUSED",
  "W_CONTRACT_DEFAULTED",
  "W_GATEWAY_NAME",
  "W_DENY_UNMATCHED",
  "W_RESOURCE_PREFIX",
  "W_ALLOW_SHADOWED",
  "W_RESOURCE_UNMATCHABLE",
  "W_ITEM_UNMATCHED",
] as const;

/**
 * `toolgate policy test` and `toolgate catalog save`: test files, the contexts they name, catalogs; and the
 * start-up self-test of wrap and serve, which runs such a file.
 */
export const POLICY_TEST_CODES = [
  "E_POLICY_TEST_FILE",
  "E_POLICY_TEST_CONTEXT",
  "E_POLICY_TEST_FAILED",
  "E_SELF_TEST_FAILED",
] as const;

/** Findings about the configuration directory and the tokens file. */
export const CONFIG_CODES = [
  "E_CONFIG",
  "E_CONFIG_NOT_FOUND",
  "E_CONFIG_READ",
  "E_FRONT_MATTER",
  "E_MCP_JSON",
  "E_FIELD_TYPE",
  "E_NAME",
  "E_SERVER_NAME",
  "E_NAME_COLLISION",
  "E_ALIAS_CONFLICT",
  "E_ALIAS_NOT_SERVER",
  "E_MCP_TOOLS_FORM",
  "E_SELECTION",
  "E_UNKNOWN_SERVER",
  "E_SERVER_NOT_ENABLED",
  "E_NO_SERVER_ENABLED",
  "E_SKILL_NOT_LOADED",
  "E_GRAPH_NODE",
  "E_GRAPH_AGENT_CONFIG",
  "E_GRAPH_AGENT_SET",
  "E_GRAPH_SERVER_NOT_ENABLED",
  "E_SESSION_WRITE",
  "E_TOKENS_READ",
  "E_TOKENS_FILE",
  "E_TOKENS_EMPTY",
  "E_TOKENS_ENTRY",
  "E_TOKENS_FIELD",
  "E_TOKENS_WEAK",
  "E_TOKENS_DUPLICATE",
  "E_APPROVAL_KEY",
  "W_UNKNOWN_FIELD",
  "W_FIELD_IGNORED",
  "W_UNKNOWN_SERVER",
  "W_INVALID_PATTERN",
  "W_EMPTY_ALLOWED_TOOLS",
  "W_DEAD_PATTERN",
  "W_GRAPH_SERVER_NOT_ENABLED",
  "W_SKILL_SERVER_NOT_ENABLED",
] as const;

/** Text that is not acceptable JSON or YAML, and values without a canonical form. */
export const JSON_CODES = [
  "E_SYNTAX",
  "E_DUPLICATE_KEY",
  "E_TOO_DEEP",
  "E_TOO_MANY_ALIASES",
  "E_FILE_TOO_LARGE",
  "E_MERGE_KEY",
  "E_MERGE_OVERRIDE",
  "E_JSON_SYNTAX",
  "E_JSON_DUPLICATE_KEY",
  "E_JSON_TOO_DEEP",
  "E_JSON_OPTIONS",
  "E_CANONICALIZE",
] as const;

/** Reaching servers and reading their catalogs. */
export const SERVER_CODES = [
  "E_MCP_SERVER",
  "E_UPSTREAM_CONNECT",
  "E_UPSTREAM_START",
  "E_UPSTREAM_TOOLS",
  "E_TOOLS_LIST",
  "E_SERVER_NOT_RUNNING",
  "E_CATALOG_FILE",
] as const;

/** The audit log and `toolgate pin`. */
export const AUDIT_PIN_CODES = [
  "E_AUDIT_OPEN",
  "E_AUDIT_READ",
  "E_AUDIT_CHAIN",
  "E_REPLAY_INPUT",
  "E_PIN_INPUT",
  "E_PIN_OUTPUT",
  "E_PIN_EXACT_TEXT",
  "E_PIN_SERVER",
  "W_PIN_SERVER",
  "W_SERVER_NAME_CHANGED",
] as const;

/**
 * Signed audit logs (`--audit-signing-key`): keys, checkpoints and receipts, and each way `audit verify
 * --key` and `audit receipt` find a log tampered with.
 */
export const AUDIT_SIGNING_CODES = [
  "E_AUDIT_KEY",
  "E_AUDIT_LOG_UNKNOWN",
  "E_AUDIT_TRUNCATED",
  "E_CHECKPOINT_MALFORMED",
  "E_CHECKPOINT_KEY",
  "E_CHECKPOINT_SIGNATURE",
  "E_CHECKPOINT_MISMATCH",
  "E_CHECKPOINT_LINK",
  "E_CHECKPOINT_NONE",
  "E_CHECKPOINT_MISSING",
  "E_CHECKPOINT_DIVERGED",
  "E_CHECKPOINT_PUBLISH",
  "E_RECEIPT_INPUT",
  "E_RECEIPT_CUT",
  "E_RECEIPT_MISMATCH",
  "E_RECEIPT_DECISION",
  "E_RECEIPT_UNSIGNED",
] as const;

/** The command line and the console. */
export const CLI_CODES = [
  "E_USAGE",
  "E_INSTALL_ENTRY",
  "E_INSTALL_LINK",
  "E_INSTALL_WRITE",
  "E_INTERNAL",
  "E_CONSOLE_USAGE",
  "E_CONSOLE_COMMAND",
  "E_SET_USAGE",
  "E_SET_TARGET",
  "E_SET_VALUE",
  "E_SET_DENY_ALL",
] as const;

/** `toolgate dashboard`: starting it, and the requests it refuses. */
export const DASHBOARD_CODES = [
  "E_DASHBOARD_TOKEN",
  "E_DASHBOARD_LISTEN",
  "E_DASHBOARD_AUTH",
  "E_DASHBOARD_FORBIDDEN",
  "E_DASHBOARD_CANDIDATE",
  "E_DASHBOARD_BUSY",
] as const;

/** Replicas of `serve --http` proving to each other that they share the state secret. */
export const REPLICA_CODES = ["E_REPLICA_UNPROVEN"] as const;

/** Opening `serve`'s state store (`--state`, `state:` in config.yaml): it is refused before anything starts. */
export const STATE_OPEN_CODES = ["E_STATE_URL", "E_STATE_SECRET", "E_STATE_CA"] as const;

/**
 * Lines of `wrap` and `serve` on stderr that name no other code (`--log-format json` gives every line one).
 * `I_` codes are notices: nothing is wrong.
 */
export const LOG_CODES = [
  "E_START_REFUSED",
  "W_GATEWAY_NOTICE",
  "W_UPSTREAM_DOWN",
  "W_TELEMETRY",
  "I_GATEWAY_NOTICE",
  "I_SERVER_STDERR",
  "I_DECISION",
  "I_SESSION",
  "I_SERVE_READY",
  "I_UPSTREAM_UP",
  "I_DRY_RUN",
  "E_RELOAD_REFUSED",
  "I_CONFIG_RELOAD",
  "I_SELF_TEST_PASSED",
] as const;

/** The operator's endpoints (`/readyz`, `/metrics`; src/ops): what they answer when they refuse. */
export const OPS_CODES = ["E_NOT_READY", "E_METRICS_TOKEN"] as const;

export const ALL_CODES = [
  ...REASON_CODES,
  ...LOG_CODES,
  ...ITEM_DECISION_CODES,
  ...GATEWAY_REFUSAL_CODES,
  ...AUTH_CODES,
  ...POLICY_FILE_CODES,
  ...POLICY_TEST_CODES,
  ...CONFIG_CODES,
  ...JSON_CODES,
  ...SERVER_CODES,
  ...AUDIT_PIN_CODES,
  ...AUDIT_SIGNING_CODES,
  ...CLI_CODES,
  ...DASHBOARD_CODES,
  ...REPLICA_CODES,
  ...STATE_OPEN_CODES,
  ...OPS_CODES,
] as const;

/** Any code toolgate prints or records. */
export type ToolgateCode = (typeof ALL_CODES)[number];

export type GatewayRefusalCode = (typeof GATEWAY_REFUSAL_CODES)[number];

export type StateOpenCode = (typeof STATE_OPEN_CODES)[number];
