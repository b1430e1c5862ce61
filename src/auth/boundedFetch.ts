/**
 * Fetching a JSON document from an authorization server (its metadata, its keys) with a bound on both time
 * and size: the whole exchange, body included, ends after `timeoutMs`, and reading stops at `maxBytes`. A
 * trusted issuer that is slow, broken or taken over must not hold a request of ours open, nor fill memory.
 */
export interface FetchBounds {
  maxBytes: number;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export async function fetchBoundedJson(url: string, bounds: FetchBounds): Promise<unknown> {
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  let answer: Response;
  try {
    answer = await (bounds.fetch ?? fetch)(url, { signal, headers: { accept: "application/json" } });
  } catch (error) {
    throw new Error(`${url} could not be fetched: ${reasonOf(error, bounds.timeoutMs)}`, { cause: error });
  }
  if (!answer.ok) {
    await answer.body?.cancel().catch(() => undefined);
    throw new Error(`${url} answered HTTP ${answer.status}`);
  }
  const text = await readBoundedText(answer, url, bounds);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${url} did not answer JSON`);
  }
}

/** The body of `answer` as text, read with the same bounds (size as it arrives; time as the signal gave). */
export async function readBoundedText(
  answer: Response,
  url: string,
  bounds: Omit<FetchBounds, "fetch">,
): Promise<string> {
  const declared = Number(answer.headers.get("content-length") ?? "0");
  if (declared > bounds.maxBytes) {
    await answer.body?.cancel().catch(() => undefined);
    throw new Error(`${url} is larger than ${bounds.maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = answer.body?.getReader();
  for (;;) {
    let next: { done: true; value?: undefined } | { done: false; value: Uint8Array };
    try {
      next = reader === undefined ? { done: true, value: undefined } : await reader.read();
    } catch (error) {
      throw new Error(`${url} could not be read: ${reasonOf(error, bounds.timeoutMs)}`, { cause: error });
    }
    if (next.done) break;
    size += next.value.byteLength;
    if (size > bounds.maxBytes) {
      // Stop reading: cancelling the stream closes the connection rather than draining what is left.
      await reader?.cancel().catch(() => undefined);
      throw new Error(`${url} is larger than ${bounds.maxBytes} bytes`);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function reasonOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no complete answer within ${timeoutMs} ms`;
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}
