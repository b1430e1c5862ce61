import { afterEach, describe, expect, it } from "vitest";
import { parseStrictJson } from "../../../../src/engine/json/strictJson.js";
import {
  compileToolSchemas,
  type CompiledToolSchema,
} from "../../../../src/engine/schema/compileToolSchemas.js";

function compileOne(schema: unknown, sharedDefs: Record<string, unknown> = {}): CompiledToolSchema {
  const result = compileToolSchemas({ tool: schema }, sharedDefs).get("tool");
  if (result === undefined) throw new Error("no result for the tool");
  return result;
}

function validator(schema: unknown, sharedDefs: Record<string, unknown> = {}): (args: unknown) => unknown {
  const result = compileOne(schema, sharedDefs);
  if (!result.ok) throw new Error(`did not compile: ${result.error}`);
  return (args) => result.validate(args);
}

function compileError(schema: unknown, sharedDefs: Record<string, unknown> = {}): string {
  const result = compileOne(schema, sharedDefs);
  if (result.ok) throw new Error("compiled, but should have failed");
  return result.error;
}

const safePath = { type: "string", pattern: "^/workspace/.*", minLength: 1, maxLength: 4096 };

describe("the spec's examples", () => {
  it("minimal v2 policy: read_file and list_dir", () => {
    const schema = {
      type: "object",
      additionalProperties: false,
      properties: { path: safePath },
      required: ["path"],
    };
    const compiled = compileToolSchemas({ read_file: schema, list_dir: schema }, {});
    expect([...compiled.keys()]).toEqual(["read_file", "list_dir"]);
    for (const result of compiled.values()) {
      if (!result.ok) throw new Error(result.error);
      expect(result.validate({ path: "/workspace/a.txt" })).toEqual([]);
      expect(result.validate({ path: "/etc/passwd" })).toEqual([
        { path: "/path", message: 'must match pattern "^/workspace/.*"' },
      ]);
      expect(result.validate({})).toEqual([{ path: "/path", message: "is a required property" }]);
      expect(result.validate({ path: "/workspace/a", mode: "w" })).toEqual([
        { path: "/mode", message: "is not allowed (additionalProperties: false)" },
      ]);
      expect(result.validate({ path: "" })).toEqual([
        { path: "/path", message: "must NOT have fewer than 1 characters" },
        { path: "/path", message: 'must match pattern "^/workspace/.*"' },
      ]);
    }
  });

  it("create_ticket: every violation is reported", () => {
    const validate = validator({
      type: "object",
      additionalProperties: false,
      properties: {
        title: { type: "string", minLength: 5, maxLength: 120 },
        priority: { type: "string", enum: ["low", "medium", "high"] },
        labels: { type: "array", items: { type: "string", maxLength: 32 } },
      },
      required: ["title", "priority"],
    });
    expect(validate({ title: "Printer on fire", priority: "high", labels: ["ops"] })).toEqual([]);
    expect(
      validate({ title: "Hi", priority: "urgent", labels: ["ok", "x".repeat(33), 7], cc: "boss" }),
    ).toEqual([
      { path: "/cc", message: "is not allowed (additionalProperties: false)" },
      { path: "/title", message: "must NOT have fewer than 5 characters" },
      { path: "/priority", message: 'must be one of "low", "medium", "high"' },
      { path: "/labels/1", message: "must NOT have more than 32 characters" },
      { path: "/labels/2", message: "must be string" },
    ]);
  });

  it("shared definitions with $defs", () => {
    const validate = validator(
      {
        type: "object",
        additionalProperties: false,
        properties: { path: { $ref: "#/$defs/safe_path" } },
        required: ["path"],
      },
      { safe_path: safePath },
    );
    expect(validate({ path: "/workspace/x" })).toEqual([]);
    expect(validate({ path: "/tmp/x" })).toEqual([
      { path: "/path", message: 'must match pattern "^/workspace/.*"' },
    ]);
    expect(validate({ path: "/workspace/" + "a".repeat(4096) })).toEqual([
      { path: "/path", message: "must NOT have more than 4096 characters" },
    ]);
  });
});

describe("drafts", () => {
  it("defaults to 2020-12 (prefixItems, unevaluatedProperties, dependentRequired)", () => {
    const validate = validator({
      type: "array",
      prefixItems: [{ type: "string" }, { type: "integer" }],
      items: false,
    });
    expect(validate(["a", 1])).toEqual([]);
    expect(validate(["a", "b"])).toEqual([{ path: "/1", message: "must be integer" }]);
    expect(validate(["a", 1, null])).toEqual([{ path: "", message: "must NOT have more than 2 items" }]);

    const closed = validator({ type: "object", properties: { a: {} }, unevaluatedProperties: false });
    expect(closed({ a: 1, z: 2 })).toEqual([
      { path: "/z", message: "is not allowed (unevaluatedProperties: false)" },
    ]);

    const dependent = validator({ type: "object", dependentRequired: { card: ["cvv"] } });
    expect(dependent({ card: "1234" })).toEqual([
      { path: "/cvv", message: 'is a required property when "card" is present' },
    ]);
  });

  it.each(["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"])(
    "accepts $schema %s as 2020-12",
    ($schema) => {
      const validate = validator({ $schema, type: "array", prefixItems: [{ type: "string" }] });
      expect(validate([1])).toEqual([{ path: "/0", message: "must be string" }]);
    },
  );

  it.each(["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"])(
    "uses draft-07 when $schema is %s",
    ($schema) => {
      const validate = validator({
        $schema,
        type: "array",
        items: [{ type: "string" }],
        additionalItems: false,
      });
      expect(validate(["a"])).toEqual([]);
      expect(validate([1])).toEqual([{ path: "/0", message: "must be string" }]);
      expect(validate(["a", "b"])).toEqual([{ path: "", message: "must NOT have more than 1 items" }]);
    },
  );

  it("draft-07 does not know 2020-12 keywords", () => {
    expect(compileError({ $schema: "http://json-schema.org/draft-07/schema#", $anchor: "a" })).toContain(
      'unknown keyword "$anchor"',
    );
    const error = compileError({ $schema: "http://json-schema.org/draft-07/schema#", prefixItems: [{}] });
    expect(error).toContain('unknown keyword "prefixItems" at the schema root');
  });

  it.each([
    ["http://json-schema.org/draft-04/schema#"],
    ["https://json-schema.org/draft/2019-09/schema"],
    ["https://example.com/my-meta-schema"],
    [7],
  ])("refuses any other $schema: %j", ($schema) => {
    const error = compileError({ $schema, type: "string" });
    expect(error).toMatch(/^unsupported \$schema /);
    expect(error).toContain(JSON.stringify($schema));
    expect(error).toContain("2020-12");
    expect(error).toContain("draft-07");
  });
});

describe("shared $defs", () => {
  it("are available to every tool, and may refer to each other", () => {
    const compiled = compileToolSchemas(
      {
        copy: {
          type: "object",
          properties: { from: { $ref: "#/$defs/safe_path" }, to: { $ref: "#/$defs/safe_path" } },
        },
        batch: { type: "array", items: { $ref: "#/$defs/path_list" } },
      },
      {
        safe_path: safePath,
        path_list: { type: "array", items: { $ref: "#/$defs/safe_path" }, maxItems: 2 },
      },
    );
    const copy = compiled.get("copy")!;
    const batch = compiled.get("batch")!;
    if (!copy.ok || !batch.ok) throw new Error("did not compile");
    expect(copy.validate({ from: "/workspace/a", to: "/etc/b" })).toEqual([
      { path: "/to", message: 'must match pattern "^/workspace/.*"' },
    ]);
    expect(
      batch.validate([
        ["/workspace/a", "/x"],
        ["/workspace/a", "/workspace/b", "/workspace/c"],
      ]),
    ).toEqual([
      { path: "/0/1", message: 'must match pattern "^/workspace/.*"' },
      { path: "/1", message: "must NOT have more than 2 items" },
    ]);
  });

  it("sit beside a tool's own $defs", () => {
    const validate = validator(
      {
        $defs: { mode: { enum: ["r", "w"] } },
        properties: { p: { $ref: "#/$defs/safe_path" }, m: { $ref: "#/$defs/mode" } },
      },
      { safe_path: safePath },
    );
    expect(validate({ p: "/workspace/a", m: "x" })).toEqual([
      { path: "/m", message: 'must be one of "r", "w"' },
    ]);
  });

  it("a name defined both shared and in the tool fails that tool only, naming both places", () => {
    const compiled = compileToolSchemas(
      {
        read_file: {
          $defs: { safe_path: { type: "string" } },
          properties: { path: { $ref: "#/$defs/safe_path" } },
        },
        list_dir: { properties: { path: { $ref: "#/$defs/safe_path" } } },
      },
      { safe_path: safePath },
    );
    const clash = compiled.get("read_file")!;
    expect(clash.ok).toBe(false);
    expect(!clash.ok && clash.error).toBe(
      '$defs "safe_path" is defined both in schemas.$defs (shared) and in schemas.read_file.$defs; ' +
        'rename one of the two so that "#/$defs/safe_path" means one thing',
    );
    expect(compiled.get("list_dir")!.ok).toBe(true);
  });

  it("a $ref to a definition that exists nowhere fails", () => {
    expect(compileError({ $ref: "#/$defs/nope" }, { safe_path: safePath })).toBe(
      '$ref "#/$defs/nope" does not resolve: no such definition in this schema or in schemas.$defs',
    );
  });

  it("a tool's $defs that is not an object fails when shared definitions must be merged", () => {
    expect(compileError({ $defs: ["x"] }, { safe_path: safePath })).toBe(
      "$defs must be an object of named schemas, not an array",
    );
  });

  it("a misspelt keyword inside a shared definition fails the tools that use it and says where", () => {
    const compiled = compileToolSchemas(
      { uses: { $ref: "#/$defs/name" }, other: { type: "string" } },
      { name: { type: "string", maxLenght: 10 } },
    );
    const uses = compiled.get("uses")!;
    expect(!uses.ok && uses.error).toMatch(
      /^unknown keyword "maxLenght" at \/\$defs\/name \(in schemas\.\$defs\)/,
    );
    expect(compiled.get("other")!.ok).toBe(true);
  });

  it("the $defs entry of schemas is the shared block, not a tool", () => {
    const compiled = compileToolSchemas(
      { $defs: { safe_path: safePath }, read_file: { type: "object" } },
      {},
    );
    expect([...compiled.keys()]).toEqual(["read_file"]);
  });

  it("does not change the schemas it was given", () => {
    const shared = { safe_path: structuredClone(safePath) };
    const tool = { $defs: { own: { type: "integer" } }, properties: { p: { $ref: "#/$defs/safe_path" } } };
    const before = structuredClone({ shared, tool });
    const validate = validator(tool, shared);
    validate({ p: 1 });
    expect({ shared, tool }).toEqual(before);
  });
});

describe("references are never fetched", () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it.each([
    [
      "https URL",
      { properties: { a: { $ref: "https://example.com/schemas/path.json" } } },
      "/properties/a",
      "$ref",
    ],
    ["other file with pointer", { $ref: "other.json#/x" }, "the schema root", "$ref"],
    ["relative file", { items: { $ref: "defs.json" } }, "/items", "$ref"],
    ["file URL", { allOf: [{ $ref: "file:///etc/schema.json" }] }, "/allOf/0", "$ref"],
    [
      "the meta-schema Ajv already knows",
      { $ref: "https://json-schema.org/draft/2020-12/schema" },
      "the schema root",
      "$ref",
    ],
    ["a dynamic reference", { $dynamicRef: "https://example.com/s#meta" }, "the schema root", "$dynamicRef"],
    ["inside a shared definition", { $ref: "#/$defs/remote" }, "/$defs/remote (in schemas.$defs)", "$ref"],
  ])("%s fails to compile, without any network access", (_why, schema, where, keyword) => {
    let fetched = 0;
    globalThis.fetch = (() => {
      fetched++;
      throw new Error("no network in this test");
    }) as typeof fetch;
    const result = compileToolSchemas({ tool: schema }, { remote: { $ref: "https://example.com/r.json" } });
    expect(result).toBeInstanceOf(Map); // synchronous: there is nothing to wait for
    const compiled = result.get("tool")!;
    expect(compiled.ok).toBe(false);
    expect(!compiled.ok && compiled.error).toContain(`${keyword} `);
    expect(!compiled.ok && compiled.error).toContain(`at ${where} is not a local reference`);
    expect(!compiled.ok && compiled.error).toContain("never fetches");
    expect(fetched).toBe(0);
  });

  it("a $ref-shaped value in const, enum, default or examples is data, not a reference", () => {
    const validate = validator({
      const: { $ref: "https://example.com/x" },
      enum: [{ $ref: "https://example.com/x" }],
      default: { $ref: "other.json" },
      examples: [{ $ref: "other.json" }],
    });
    expect(validate({ $ref: "https://example.com/x" })).toEqual([]);
    expect(validate({ $ref: "elsewhere" })).toEqual([
      { path: "", message: 'must be {"$ref":"https://example.com/x"}' },
      { path: "", message: 'must be one of {"$ref":"https://example.com/x"}' },
    ]);
  });

  it("a property named $ref is a property, and anchors are local", () => {
    const validate = validator({
      properties: { $ref: { type: "string" }, n: { $ref: "#num" } },
      $defs: { n: { $anchor: "num", type: "number" } },
    });
    expect(validate({ $ref: 1, n: "x" })).toEqual([
      { path: "/$ref", message: "must be string" },
      { path: "/n", message: "must be number" },
    ]);
  });
});

describe("compile failures stay with their tool", () => {
  it("a failing schema does not affect the others", () => {
    const compiled = compileToolSchemas(
      {
        good: { type: "string" },
        typo: { type: "string", patern: "^a" },
        invalid: { type: "strin" },
        remote: { $ref: "https://example.com/s.json" },
        not_a_schema: "string",
        also_good: { type: "integer" },
      },
      {},
    );
    expect(Object.fromEntries([...compiled].map(([k, v]) => [k, v.ok]))).toEqual({
      good: true,
      typo: false,
      invalid: false,
      remote: false,
      not_a_schema: false,
      also_good: true,
    });
    for (const [tool, result] of compiled) expect(result.tool).toBe(tool);
  });

  it("two tools with the same $id do not collide", () => {
    const compiled = compileToolSchemas(
      {
        a: { $id: "https://example.com/args", type: "string" },
        b: { $id: "https://example.com/args", type: "integer" },
      },
      {},
    );
    const a = compiled.get("a")!;
    const b = compiled.get("b")!;
    if (!a.ok || !b.ok) throw new Error("did not compile");
    expect(a.validate("x")).toEqual([]);
    expect(b.validate("x")).toEqual([{ path: "", message: "must be integer" }]);
  });

  it("an unknown keyword is a failure that says where (typos would drop a constraint)", () => {
    const error = compileError({
      type: "object",
      properties: { path: { type: "string", patern: "^/workspace/" } },
    });
    expect(error).toMatch(/^unknown keyword "patern" at \/properties\/path: unknown keywords are rejected/);
  });

  it("an unknown format is a failure", () => {
    expect(compileError({ type: "string", format: "emial" })).toMatch(/^unknown format "emial"/);
  });

  it("a schema that is not valid JSON Schema says what is wrong", () => {
    const error = compileError({ type: "object", properties: { n: { type: "integr" } } });
    expect(error).toMatch(/^not a valid JSON Schema \(2020-12\): /);
    expect(error).toContain("/properties/n/type must be one of");
  });

  it("an invalid regular expression names the pattern and where it is", () => {
    expect(compileError({ properties: { p: { pattern: "(unclosed" } } })).toMatch(
      /^pattern "\(unclosed" at \/properties\/p\/pattern is not a valid regular expression/,
    );
  });

  it.each([
    [null, "null"],
    [[{ type: "string" }], "an array"],
    ["object", "a string"],
    [42, "a number"],
  ])("a schema that is %j fails", (schema, what) => {
    expect(compileError(schema)).toBe(`the schema must be an object (or true/false), not ${what}`);
  });

  it("a schema that contains itself fails instead of hanging", () => {
    const schema: Record<string, unknown> = { type: "object" };
    schema.properties = { self: schema };
    expect(compileError(schema)).toMatch(/contains itself at \/properties\/self/);
  });

  it("true admits anything, false nothing", () => {
    expect(validator(true)({ any: "thing" })).toEqual([]);
    expect(validator(false)({})).toEqual([{ path: "", message: "boolean schema is false" }]);
  });
});

describe("violations", () => {
  it("point at nested values, escaping member names", () => {
    const validate = validator({
      type: "object",
      properties: {
        "a/b": { type: "object", properties: { "c~d": { type: "array", items: { type: "integer" } } } },
      },
    });
    expect(validate({ "a/b": { "c~d": [1, "x"] } })).toEqual([
      { path: "/a~1b/c~0d/1", message: "must be integer" },
    ]);
  });

  it("for required and additionalProperties, point at the member", () => {
    const validate = validator({
      type: "object",
      properties: { opts: { type: "object", required: ["mode"], additionalProperties: false } },
    });
    expect(validate({ opts: { "x/y": 1 } })).toEqual([
      { path: "/opts/mode", message: "is a required property" },
      { path: "/opts/x~1y", message: "is not allowed (additionalProperties: false)" },
    ]);
  });

  it("for property names, point at the offending name", () => {
    const validate = validator({ type: "object", propertyNames: { pattern: "^[a-z]+$" } });
    expect(validate({ ok: 1, Bad: 2 })).toEqual([
      { path: "/Bad", message: 'property name must match pattern "^[a-z]+$"' },
    ]);
  });

  it("required is about own members, not the prototype's", () => {
    const validate = validator({ type: "object", required: ["toString", "constructor"] });
    expect(validate({})).toEqual([
      { path: "/toString", message: "is a required property" },
      { path: "/constructor", message: "is a required property" },
    ]);
  });

  it("a __proto__ member parsed from a frame is an ordinary extra member", () => {
    const parsed = parseStrictJson('{"path":"/workspace/a","__proto__":{"admin":true}}');
    if (!parsed.ok) throw new Error(parsed.message);
    const validate = validator({
      type: "object",
      properties: { path: safePath },
      additionalProperties: false,
    });
    expect(validate(parsed.value)).toEqual([
      { path: "/__proto__", message: "is not allowed (additionalProperties: false)" },
    ]);
  });

  it("formats are checked", () => {
    const validate = validator({ type: "object", properties: { to: { type: "string", format: "email" } } });
    expect(validate({ to: "a@example.com" })).toEqual([]);
    expect(validate({ to: "not an address" })).toEqual([
      { path: "/to", message: 'must match format "email"' },
    ]);
  });

  it("never change the arguments (no defaults, no coercion, no removal)", () => {
    const validate = validator({
      type: "object",
      properties: { n: { type: "integer" }, mode: { type: "string", default: "r" } },
      additionalProperties: false,
    });
    const args = { n: "5", extra: true };
    validate(args);
    expect(args).toEqual({ n: "5", extra: true });
  });

  it("never quote the argument values", () => {
    const validate = validator({ type: "object", properties: { token: { type: "string", maxLength: 4 } } });
    const secret = "sk-live-0123456789";
    expect(JSON.stringify(validate({ token: secret }))).not.toContain(secret);
  });

  it("a valid call gets an empty list, every time", () => {
    const validate = validator({ type: "object", properties: { n: { type: "integer" } } });
    const first = validate({ n: 1 });
    expect(first).toEqual([]);
    (first as unknown[]).push("caller scribbled here");
    expect(validate({ n: 2 })).toEqual([]);
  });
});
