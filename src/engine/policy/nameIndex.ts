import type { PatternEntry } from "../model/policy.js";
import { compilePolicyWildcard } from "../patterns/index.js";

/**
 * A list of five-form policy wildcards compiled into lookup structures, so that finding the first entry
 * (in file order) that matches a name costs O(length of the name), whatever the number of entries:
 * exact names and the prefix/suffix forms are hash lookups over the name's prefixes and suffixes, the
 * substring form runs one Aho-Corasick pass. "First in file order" keeps the cited rule stable.
 */
export class PolicyNameIndex {
  readonly size: number;
  private readonly entries: readonly PatternEntry[];
  private readonly exact = new Map<string, number>();
  private readonly prefixes = new Map<string, number>();
  private readonly suffixes = new Map<string, number>();
  private readonly prefixLengths: number[];
  private readonly suffixLengths: number[];
  private readonly substrings: SubstringAutomaton | null;
  /** Index of the first all-stars entry, or Infinity. */
  private readonly allIndex: number;

  constructor(entries: readonly PatternEntry[]) {
    this.entries = entries;
    this.size = entries.length;
    let allIndex = Infinity;
    const substringEntries: { literal: string; index: number }[] = [];
    entries.forEach((entry, index) => {
      const w = compilePolicyWildcard(entry.pattern);
      switch (w.form) {
        case "all":
          allIndex = Math.min(allIndex, index);
          break;
        case "exact":
          setFirst(this.exact, w.literal, index);
          break;
        case "prefix":
          setFirst(this.prefixes, w.literal, index);
          break;
        case "suffix":
          setFirst(this.suffixes, w.literal, index);
          break;
        case "substring":
          substringEntries.push({ literal: w.literal, index });
          break;
      }
    });
    this.allIndex = allIndex;
    this.prefixLengths = distinctLengths(this.prefixes.keys());
    this.suffixLengths = distinctLengths(this.suffixes.keys());
    this.substrings = substringEntries.length > 0 ? new SubstringAutomaton(substringEntries) : null;
  }

  /** The first entry (in file order) whose pattern matches `name`, or undefined. */
  firstMatch(name: string): PatternEntry | undefined {
    let best = this.allIndex;
    const exact = this.exact.get(name);
    if (exact !== undefined && exact < best) best = exact;
    for (const len of this.prefixLengths) {
      if (len > name.length) break;
      const i = this.prefixes.get(len === name.length ? name : name.slice(0, len));
      if (i !== undefined && i < best) best = i;
    }
    for (const len of this.suffixLengths) {
      if (len > name.length) break;
      const i = this.suffixes.get(len === name.length ? name : name.slice(name.length - len));
      if (i !== undefined && i < best) best = i;
    }
    if (this.substrings !== null) {
      const i = this.substrings.firstIndexIn(name);
      if (i < best) best = i;
    }
    return best === Infinity ? undefined : this.entries[best];
  }
}

function setFirst(map: Map<string, number>, key: string, index: number): void {
  if (!map.has(key)) map.set(key, index);
}

function distinctLengths(keys: Iterable<string>): number[] {
  return [...new Set([...keys].map((k) => k.length))].sort((a, b) => a - b);
}

interface AutomatonNode {
  next: Map<number, AutomatonNode>;
  fail: AutomatonNode | null;
  /** Lowest entry index among the literals that end here or at a node reachable by failure links. */
  best: number;
}

/**
 * Aho-Corasick over UTF-16 code units: one pass over the name finds every literal that occurs in it.
 * The empty literal (the spec's `**`-style forms are compiled to "all" before this) never reaches here.
 */
class SubstringAutomaton {
  private readonly root: AutomatonNode;

  constructor(literals: readonly { literal: string; index: number }[]) {
    this.root = { next: new Map(), fail: null, best: Infinity };
    for (const { literal, index } of literals) {
      let node = this.root;
      for (let i = 0; i < literal.length; i++) {
        const c = literal.charCodeAt(i);
        let child = node.next.get(c);
        if (child === undefined) {
          child = { next: new Map(), fail: null, best: Infinity };
          node.next.set(c, child);
        }
        node = child;
      }
      if (index < node.best) node.best = index;
    }
    // Breadth-first: a node's failure target is finished before the node, so `best` can inherit from it.
    const queue: AutomatonNode[] = [];
    for (const child of this.root.next.values()) {
      child.fail = this.root;
      queue.push(child);
    }
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q]!;
      for (const [c, child] of node.next) {
        let f = node.fail;
        while (f !== null && !f.next.has(c)) f = f.fail;
        child.fail = f === null ? this.root : (f.next.get(c) ?? this.root);
        if (child.fail.best < child.best) child.best = child.fail.best;
        queue.push(child);
      }
    }
  }

  firstIndexIn(name: string): number {
    let best = Infinity;
    let node = this.root;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      let next = node.next.get(c);
      while (next === undefined && node !== this.root) {
        node = node.fail!;
        next = node.next.get(c);
      }
      node = next ?? this.root;
      if (node.best < best) best = node.best;
    }
    return best;
  }
}
