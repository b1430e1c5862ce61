import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSensitiveName } from "../../../../src/engine/controls/argumentNames.js";
import {
  redactArguments,
  redactText,
  type RedactContractInput,
} from "../../../../src/engine/controls/redact.js";

const sha = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
const c = (
  redactionMode: RedactContractInput["redactionMode"],
  redactionScope: RedactContractInput["redactionScope"] = "sensitive_fields",
  fields?: string[],
): RedactContractInput => ({ redactionMode, redactionScope, ...(fields ? { fields } : {}) });

describe("sensitive names", () => {
  it.each([
    "password",
    "Password",
    "db_password",
    "passwd",
    "secret",
    "client_secret",
    "clientSecret",
    "token",
    "githubToken",
    "access_token",
    "refreshToken",
    "api_key",
    "apiKey",
    "APIKey",
    "x-api-key",
    "X-API-KEY",
    "authorization",
    "Authorization",
    "auth",
    "cookie",
    "Set-Cookie",
    "session",
    "sessionId",
    "private_key",
    "privateKey",
    "credentials",
    "credential",
    "AWS_SECRET_ACCESS_KEY",
    "aws_access_key_id",
    "connectionString",
    "bearer",
  ])("%s is sensitive", (name) => expect(isSensitiveName(name)).toBe(true));
  it.each(["path", "author", "title", "key", "name", "description", "count", "passage", "keyword"])(
    "%s is not",
    (name) => expect(isSensitiveName(name)).toBe(false),
  );
});

describe("redactArguments: modes on sensitive fields", () => {
  const args = {
    title: "hello",
    password: "hunter2-long-password",
    nested: { apiKey: "sk-0123456789abcdef", count: 3, list: [{ token: 12345678 }] },
    credentials: { user: "bob", pass: "x" },
  };

  it("mask replaces each sensitive value, whatever its type, with ***", () => {
    expect(redactArguments(c("mask"), args)).toEqual({
      title: "hello",
      password: "***",
      nested: { apiKey: "***", count: 3, list: [{ token: "***" }] },
      credentials: "***",
    });
  });

  it("hash gives sha256 of the value's RFC 8785 form", () => {
    expect(redactArguments(c("hash"), args)).toEqual({
      title: "hello",
      password: sha('"hunter2-long-password"'),
      nested: { apiKey: sha('"sk-0123456789abcdef"'), count: 3, list: [{ token: sha("12345678") }] },
      credentials: sha('{"pass":"x","user":"bob"}'),
    });
  });

  it("drop leaves the members out", () => {
    expect(redactArguments(c("drop"), args)).toEqual({
      title: "hello",
      nested: { count: 3, list: [{}] },
    });
  });

  it("partial keeps at most 4 and at most a quarter of the characters", () => {
    expect(redactArguments(c("partial"), args)).toEqual({
      title: "hello",
      password: "***word",
      nested: { apiKey: "***cdef", count: 3, list: [{ token: "***78" }] },
      credentials: "***",
    });
    expect(redactArguments(c("partial"), { token: "abc" })).toEqual({ token: "***" });
    expect(redactArguments(c("partial"), { token: "abcdefgh" })).toEqual({ token: "***gh" });
    expect(redactArguments(c("partial"), { token: "😀😀😀😀😀😀😀😀" })).toEqual({ token: "***😀😀" });
  });

  it("never changes its input", () => {
    const before = structuredClone(args);
    for (const mode of ["mask", "hash", "drop", "partial"] as const) {
      redactArguments(c(mode), args);
      redactArguments(c(mode, "all_fields"), args);
    }
    expect(args).toEqual(before);
  });
});

describe("redactArguments: fields and all_fields", () => {
  it("fields by name match at any depth, case-insensitively", () => {
    const out = redactArguments(c("mask", "sensitive_fields", ["Email"]), {
      email: "a@b.c",
      to: { EMAIL: "d@e.f", name: "x" },
    });
    expect(out).toEqual({ email: "***", to: { EMAIL: "***", name: "x" } });
  });

  it("fields by JSON pointer match exactly that place", () => {
    const out = redactArguments(c("mask", "sensitive_fields", ["/headers/x-custom", "/items/1", "/a~1b"]), {
      headers: { "x-custom": "v", other: "w" },
      items: ["p", "q", "r"],
      "a/b": "s",
      x: { headers: { "x-custom": "kept" } },
    });
    expect(out).toEqual({
      headers: { "x-custom": "***", other: "w" },
      items: ["p", "***", "r"],
      "a/b": "***",
      x: { headers: { "x-custom": "kept" } },
    });
  });

  it("drop removes a selected array element", () => {
    expect(redactArguments(c("drop", "sensitive_fields", ["/items/1"]), { items: ["p", "q", "r"] })).toEqual({
      items: ["p", "r"],
    });
  });

  it("all_fields redacts every string and number leaf and keeps the shape", () => {
    const out = redactArguments(c("mask", "all_fields"), {
      a: "x",
      n: 5,
      b: true,
      z: null,
      list: ["y", 1, false, { deep: "w" }],
    });
    expect(out).toEqual({
      a: "***",
      n: "***",
      b: true,
      z: null,
      list: ["***", "***", false, { deep: "***" }],
    });
  });

  it("all_fields with drop keeps booleans, nulls and the containers", () => {
    expect(redactArguments(c("drop", "all_fields"), { a: "x", b: true, l: ["y", null] })).toEqual({
      b: true,
      l: [null],
    });
  });

  it("keeps a __proto__ member as data, without touching the copy's prototype", () => {
    const input = JSON.parse('{"__proto__": {"password": "p4ssw0rd-long"}, "x": 1}') as unknown;
    const out = redactArguments(c("mask"), input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"password":"***"},"x":1}');
  });

  it("hashes a value with no RFC 8785 form instead of failing", () => {
    const out = redactArguments(c("hash"), { token: "\ud800abc" }) as { token: string };
    expect(out.token).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("passes scalars and undefined arguments through", () => {
    expect(redactArguments(c("mask"), undefined)).toBeUndefined();
    expect(redactArguments(c("mask", "all_fields"), "s")).toBe("***");
  });
});

describe("redactText", () => {
  it("scrubs sensitive values as written, JSON-escaped and URL-encoded", () => {
    const args = { token: 'ab"cd/ef gh', note: "fine" };
    const text = `failed with ab"cd/ef gh; json {"token":"ab\\"cd/ef gh"}; url ?t=ab%22cd%2Fef%20gh; fine`;
    expect(redactText(c("mask"), text, args)).toBe('failed with ***; json {"token":"***"}; url ?t=***; fine');
  });

  it("uses the hash or partial form of the mode", () => {
    expect(redactText(c("hash"), "x secret-value-1 y", { secret: "secret-value-1" })).toBe(
      `x ${sha('"secret-value-1"')} y`,
    );
    expect(redactText(c("partial"), "x secret-value-1 y", { secret: "secret-value-1" })).toBe("x ***e-1 y");
  });

  it("replaces a longer secret whole when it contains a shorter one", () => {
    expect(redactText(c("mask"), "abcd-efgh", { password: "abcd", token: "abcd-efgh" })).toBe("***");
  });

  it("scrubs the segments of a path value, so forms derived from it (normalized, decoded, resolved) leave nothing", () => {
    const args = { path: "/work/../hidden-name%2Fsub-dir/x" };
    const text = `"/work/../hidden-name%2Fsub-dir/x" is '/hidden-name/sub-dir/x' (decoded "/work/../hidden-name/sub-dir/x"), outside '/work'`;
    expect(redactText(c("mask", "sensitive_fields", ["path"]), text, args)).toBe(
      `"***" is '/***/x' (decoded "***"), outside '/***'`,
    );
  });

  it("leaves values shorter than 4 characters alone", () => {
    expect(redactText(c("mask"), "a pin 123", { pin: "123" })).toBe("a pin 123");
  });
});

describe("property: a planted secret survives nowhere in the redacted JSON", () => {
  const sensitiveName = fc.constantFrom(
    "password",
    "api_key",
    "Authorization",
    "githubToken",
    "client_secret",
    "session",
  );
  const plainName = fc.constantFrom("title", "path", "body", "count", "labels", "options");
  const secret = fc.string({ minLength: 6, maxLength: 24 }).map((s) => `S3CR3T-${s}`);
  const filler = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom("a", "hello world"));

  /** Arguments with the secret under a sensitive name somewhere inside plain objects and arrays. */
  const planted = fc
    .tuple(
      secret,
      sensitiveName,
      fc.array(fc.tuple(plainName, fc.boolean()), { maxLength: 5 }),
      fc.dictionary(plainName, filler),
    )
    .map(([s, name, path, siblings]) => {
      let value: unknown = { ...siblings, [name]: s };
      for (const [key, inArray] of path.reverse())
        value = { ...siblings, [key]: inArray ? [1, value] : value };
      return { secret: s, args: value };
    });

  it.each(["mask", "hash", "drop"] as const)("%s (sensitive_fields)", (mode) => {
    fc.assert(
      fc.property(planted, ({ secret: s, args }) => {
        const out = JSON.stringify(redactArguments(c(mode), args));
        expect(out.includes(s)).toBe(false);
        expect(out.includes(JSON.stringify(s).slice(1, -1))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("partial keeps no more than a quarter of the secret", () => {
    fc.assert(
      fc.property(planted, ({ secret: s, args }) => {
        const out = JSON.stringify(redactArguments(c("partial"), args));
        expect(out.includes(s)).toBe(false);
        expect(out.includes("S3CR3T-")).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("all_fields hides the secret wherever it is, under any name", () => {
    fc.assert(
      fc.property(secret, plainName, fc.array(plainName, { maxLength: 4 }), (s, name, path) => {
        let args: unknown = { [name]: s };
        for (const key of path) args = { [key]: [args] };
        for (const mode of ["mask", "hash", "drop", "partial"] as const) {
          expect(JSON.stringify(redactArguments(c(mode, "all_fields"), args)).includes("S3CR3T-")).toBe(
            false,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it("redactText removes the planted secret from any text that quotes it", () => {
    fc.assert(
      fc.property(planted, fc.string(), fc.string(), ({ secret: s, args }, before, after) => {
        const text = `${before}${s}${after}${JSON.stringify(args)}`;
        for (const mode of ["mask", "hash", "drop"] as const) {
          expect(redactText(c(mode), text, args).includes(s)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
