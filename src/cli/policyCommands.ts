import type { Command } from "commander";

/** `toolgate policy check | validate | migrate | lint` (filled in by the policy CLI work). */
export function registerPolicyCommands(program: Command): void {
  program.command("policy").description("check, validate and migrate policy files");
}
