import { Composer, Lexer, Parser, YAMLParseError, type CST, type Document, type LineCounter } from "yaml";
import { MAX_NESTING } from "./textBounds.js";

/**
 * YAML text to a `yaml` Document, refusing nesting deeper than MAX_NESTING before the composer sees it. The
 * composer recurses once per level: a document of 10,000 `[` runs it out of stack, and V8 does not always
 * answer that with a RangeError (a regular expression compiled near the stack's end aborts the process). So
 * the text is lexed and parsed into the CST first (both iterative), a flow collection deeper than the bound
 * stops the lexing at once, and the CST's depth (block collections too) is measured with a loop; only a
 * document within the bound is composed.
 *
 * Keys are not checked for uniqueness here: the yaml library compares each key with every earlier one
 * (100,000 keys: minutes); the tree builder does it with a set. Merge keys (`<<`) are recognised (`merge`),
 * and applied by the tree builder under its own rule.
 */

export type ComposedYaml = { ok: true; doc: Document.Parsed } | { ok: false; tooDeepAt: number };

function tooDeep(offset: number): ComposedYaml {
  return { ok: false, tooDeepAt: offset };
}

export function composeYaml(text: string, lineCounter?: LineCounter): ComposedYaml {
  const parser = new Parser(lineCounter?.addNewLine);
  const tokens: CST.Token[] = [];
  // As Parser.parse does: the first line starts at 0.
  lineCounter?.addNewLine(0);
  let flow = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (lexeme === "[" || lexeme === "{") {
      // parser.offset is where this lexeme starts: every earlier one has been taken.
      if (++flow > MAX_NESTING) return tooDeep(parser.offset);
    } else if (lexeme === "]" || lexeme === "}") {
      flow = Math.max(0, flow - 1);
    }
    for (const token of parser.next(lexeme)) tokens.push(token);
  }
  for (const token of parser.end()) tokens.push(token);
  const deep = deepestOffset(tokens);
  if (deep !== null) return tooDeep(deep);
  const composer = new Composer({ uniqueKeys: false, merge: true });
  let doc: Document.Parsed | null = null;
  for (const next of composer.compose(tokens, true, text.length)) {
    if (doc === null) {
      doc = next;
      continue;
    }
    doc.errors.push(
      new YAMLParseError(
        [next.range[0], next.range[1]],
        "MULTIPLE_DOCS",
        "Source contains multiple documents; one file holds one document",
      ),
    );
    break;
  }
  // compose(…, forceDoc = true) always yields one document, empty text included.
  return { ok: true, doc: doc! };
}

/** The offset of the first collection nested deeper than MAX_NESTING in the CST, or null. A loop, no recursion. */
function deepestOffset(tokens: readonly CST.Token[]): number | null {
  const stack: [CST.Token, number][] = tokens.map((t) => [t, 0]);
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    switch (token.type) {
      case "document":
        if (token.value !== undefined) stack.push([token.value, depth]);
        break;
      case "block-map":
      case "block-seq":
      case "flow-collection": {
        const inner = depth + 1;
        if (inner > MAX_NESTING) return token.offset;
        for (const item of token.items) {
          if (item.key !== undefined && item.key !== null) stack.push([item.key, inner]);
          if (item.value !== undefined) stack.push([item.value, inner]);
        }
        break;
      }
      default:
        break;
    }
  }
  return null;
}
