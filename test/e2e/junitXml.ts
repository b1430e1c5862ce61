/**
 * A strict reader of the XML a JUnit report uses (no XML parser is among the dependencies): a prolog,
 * elements with quoted attributes, text with the five predefined entities and numeric references. Anything
 * else (an unescaped `<` or `&`, a tag closed out of order, a duplicate attribute, a character XML 1.0
 * forbids, text after the root) throws, as a CI server's parser would refuse the report.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;
const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function decode(raw: string, where: number): string {
  if (raw.includes("<")) throw new Error(`unescaped '<' at ${where}`);
  return raw.replace(/&([^;]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(";")) throw new Error(`unterminated reference at ${where}`);
    const named: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
    if (named[ref] !== undefined) return named[ref];
    const n = /^#x([0-9a-fA-F]+)$/.exec(ref)?.[1] ?? /^#([0-9]+)$/.exec(ref)?.[1];
    if (n === undefined) throw new Error(`unknown entity &${ref}; at ${where}`);
    return String.fromCodePoint(parseInt(n, ref.startsWith("#x") ? 16 : 10));
  });
}

export function parseXml(text: string): XmlElement {
  if (FORBIDDEN.test(text)) throw new Error("a character XML 1.0 does not allow");
  const prolog = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(text);
  if (prolog === null) throw new Error("no XML declaration");
  let i = prolog[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    const chunk = lt === -1 ? text.slice(i) : text.slice(i, lt);
    if (stack.length === 0) {
      if (chunk.trim() !== "") throw new Error(`text outside the root at ${i}`);
    } else stack[stack.length - 1]!.text += decode(chunk, i);
    if (lt === -1) break;
    i = lt + 1;
    if (text[i] === "/") {
      const name = NAME.exec(text.slice(i + 1))?.[0];
      const open = stack.pop();
      if (name === undefined || open?.name !== name)
        throw new Error(`</${name}> closes <${open?.name}> at ${i}`);
      i += 1 + name.length;
      if (text[i] !== ">") throw new Error(`bad end tag at ${i}`);
      i++;
      continue;
    }
    if (root !== null && stack.length === 0) throw new Error(`a second root element at ${i}`);
    const name = NAME.exec(text.slice(i))?.[0];
    if (name === undefined) throw new Error(`bad tag at ${i}`);
    i += name.length;
    const element: XmlElement = { name, attributes: {}, children: [], text: "" };
    for (;;) {
      const ws = /^\s*/.exec(text.slice(i))![0].length;
      i += ws;
      if (text.startsWith("/>", i) || text[i] === ">") break;
      if (ws === 0) throw new Error(`no space before an attribute at ${i}`);
      const attr = /^([A-Za-z_][\w.-]*)="([^"]*)"/.exec(text.slice(i));
      if (attr === null) throw new Error(`bad attribute at ${i}`);
      if (Object.hasOwn(element.attributes, attr[1]!)) throw new Error(`duplicate attribute ${attr[1]}`);
      element.attributes[attr[1]!] = decode(attr[2]!, i);
      i += attr[0].length;
    }
    if (stack.length > 0) stack[stack.length - 1]!.children.push(element);
    else root = element;
    if (text.startsWith("/>", i)) i += 2;
    else {
      i++;
      stack.push(element);
    }
  }
  if (stack.length > 0 || root === null) throw new Error("unclosed elements");
  return root;
}
