import { readFileSync } from "node:fs";

/** CPU time (user + system) a process has used, in ms; `null` where /proc is not available. */
export function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const ticksPerSecond = 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return null;
  }
}
