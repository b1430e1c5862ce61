/** How the server is reached, for messages: never the headers, nor the URL's query (both may hold secrets). */
export function describeTarget(
  server:
    | { transport: "stdio"; command: string; args: readonly string[] }
    | { transport: "http" | "sse"; url: string },
): string {
  if (server.transport === "stdio") return [server.command, ...server.args].join(" ");
  try {
    const url = new URL(server.url);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}
