/**
 * The character codes of JSON's grammar and the small character classes, shared by the scanner's hot path
 * (scanner.ts) and its error messages (scanErrors.ts), which re-read the text to say what is wrong.
 */

export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const SLASH = 0x2f;
export const ZERO = 0x30;
export const ONE = 0x31;
export const NINE = 0x39;
export const COLON = 0x3a;
export const UPPER_E = 0x45;
export const LBRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RBRACKET = 0x5d;
export const LOWER_B = 0x62;
export const LOWER_E = 0x65;
export const LOWER_F = 0x66;
export const LOWER_N = 0x6e;
export const LOWER_R = 0x72;
export const LOWER_T = 0x74;
export const LOWER_U = 0x75;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;

export function isSimpleEscape(c: number): boolean {
  return (
    c === QUOTE ||
    c === BACKSLASH ||
    c === SLASH ||
    c === LOWER_B ||
    c === LOWER_F ||
    c === LOWER_N ||
    c === LOWER_R ||
    c === LOWER_T
  );
}

export function isHexDigit(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

export function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}
