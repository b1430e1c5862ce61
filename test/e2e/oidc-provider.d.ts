// The part of oidc-provider's API the tests use (the package ships no declarations).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): void;
    /** A grant of the test's own at the token endpoint (the client is authenticated before it runs). */
    registerGrantType(name: string, handler: (ctx: GrantContext) => Promise<void>, params?: string[]): void;
  }
  export interface GrantContext {
    oidc: { params: Record<string, string | undefined>; client: { clientId: string } };
    body: unknown;
  }
  /** OAuth errors the token endpoint answers with (`error`, and a description). */
  export const errors: Record<
    "InvalidGrant" | "InvalidTarget" | "InvalidRequest" | "UnauthorizedClient",
    new (description?: string) => Error
  >;
}
