import { importClaudeCode } from "./claudeCode.js";
import { importCodex } from "./codex.js";
import { importGemini } from "./gemini.js";
import { ImportInputError, type ImportFormat, type ImportOutcome } from "./model.js";
import { importVscode } from "./vscode.js";

export { importedPolicyYaml } from "./emit.js";
export {
  IMPORT_FORMATS,
  ImportInputError,
  type ImportFormat,
  type ImportOutcome,
  type ReportItem,
} from "./model.js";

const IMPORTERS: Record<ImportFormat, (file: string, text: string, server?: string) => ImportOutcome> = {
  "claude-code": importClaudeCode,
  gemini: importGemini,
  codex: importCodex,
  vscode: importVscode,
};

/** One client configuration text as a toolgate policy for one server, or why it is bad input. Pure. */
export function importPolicy(
  format: ImportFormat,
  file: string,
  text: string,
  server?: string,
): { ok: true; outcome: ImportOutcome } | { ok: false; error: ImportInputError } {
  try {
    return { ok: true, outcome: IMPORTERS[format](file, text, server) };
  } catch (error) {
    if (error instanceof ImportInputError) return { ok: false, error };
    throw error;
  }
}
