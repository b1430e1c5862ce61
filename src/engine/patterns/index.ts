export { compilePolicyWildcard, type PolicyWildcard, type PolicyWildcardForm } from "./policyWildcard.js";
export { compileWhitelistGlob, whitelistPatternProblem, type WhitelistGlob } from "./whitelistGlob.js";
export { compileMandateGlob, MANDATE_MAX_LENGTH, type MandateGlob } from "./mandateGlob.js";
