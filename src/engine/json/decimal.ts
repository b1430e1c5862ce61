/**
 * Exact arithmetic on JSON number literals, for the comparisons a double would get wrong: a schema's
 * `maximum: 9007199254740993` against the argument `9007199254740992`, `multipleOf: 0.1` against `0.3`,
 * `1e400` against anything. A literal is read as sign × digits × 10^exponent with BigInt digits, so every
 * comparison is exact; exponents far apart are decided by magnitude first, so `1e-999999` costs no
 * million-digit number. Pure.
 */
export interface Decimal {
  /** `-1`, `0` or `1`. */
  sign: -1 | 0 | 1;
  /** The significant digits without leading or trailing zeros (`""` for zero). */
  digits: string;
  /** value = sign × digits × 10^exponent. */
  exponent: number;
}

const LITERAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** The decimal a JSON number literal (or a double's JSON form) stands for; null for anything else. */
export function decimalOf(literal: string): Decimal | null {
  const m = LITERAL.exec(literal);
  if (m === null) return null;
  const fraction = m[3] ?? "";
  const exponentText = m[4] ?? "0";
  // An exponent beyond what any document can mean is clamped: 1e999999999999 is simply "huge".
  const exponent = Math.max(-1e9, Math.min(1e9, Number(exponentText)));
  let digits = (m[2]! + fraction).replace(/^0+/, "");
  let exp = exponent - fraction.length;
  if (digits === "") return { sign: 0, digits: "", exponent: 0 };
  const trailing = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailing);
  exp += trailing;
  return { sign: m[1] === "-" ? -1 : 1, digits, exponent: exp };
}

/** The decimal of a double, as JSON writes it (the shortest literal that reads back as the same double). */
export function decimalOfDouble(value: number): Decimal | null {
  return Number.isFinite(value) ? decimalOf(JSON.stringify(value)) : null;
}

/** −1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareDecimals(a: Decimal, b: Decimal): -1 | 0 | 1 {
  if (a.sign !== b.sign) return a.sign < b.sign ? -1 : 1;
  if (a.sign === 0) return 0;
  const magnitude = compareMagnitudes(a, b);
  // Negating 0 would give -0, which callers comparing with Object.is (or Math.sign) treat as a difference.
  if (magnitude === 0) return 0;
  return (a.sign === 1 ? magnitude : -magnitude) as -1 | 0 | 1;
}

function compareMagnitudes(a: Decimal, b: Decimal): -1 | 0 | 1 {
  // The position of the leading digit decides unless it is the same.
  const leadA = a.digits.length + a.exponent;
  const leadB = b.digits.length + b.exponent;
  if (leadA !== leadB) return leadA < leadB ? -1 : 1;
  // Same leading position: compare the digit strings padded to one length.
  const width = Math.max(a.digits.length, b.digits.length);
  const x = a.digits.padEnd(width, "0");
  const y = b.digits.padEnd(width, "0");
  return x === y ? 0 : x < y ? -1 : 1;
}

export function isIntegral(d: Decimal): boolean {
  return d.sign === 0 || d.exponent >= 0;
}

/** Whether `a` is an integer multiple of `b` (b ≠ 0), as JSON Schema's `multipleOf` asks. */
export function isMultipleOf(a: Decimal, b: Decimal): boolean {
  if (b.sign === 0) return false;
  if (a.sign === 0) return true;
  // a / b = (da / db) × 10^(ea − eb): an integer when db divides da × 10^(ea − eb) (for ea ≥ eb).
  const shift = a.exponent - b.exponent;
  if (shift < 0) {
    // da / (db × 10^−shift) with da < 10^len(da): impossible when 10^−shift alone exceeds da.
    if (-shift > a.digits.length) return false;
    return BigInt(a.digits) % (BigInt(b.digits) * 10n ** BigInt(-shift)) === 0n;
  }
  if (shift > 4096) {
    // da × 10^shift is divisible by db exactly when db's factors other than 2 and 5 divide da.
    const rest = withoutTwosAndFives(BigInt(b.digits));
    return BigInt(a.digits) % rest === 0n;
  }
  return (BigInt(a.digits) * 10n ** BigInt(shift)) % BigInt(b.digits) === 0n;
}

function withoutTwosAndFives(n: bigint): bigint {
  let m = n;
  while (m % 2n === 0n) m /= 2n;
  while (m % 5n === 0n) m /= 5n;
  return m;
}

/** The decimal written plainly where short (`9007199254740993`, `0.5`), else in exponent form. */
export function decimalText(d: Decimal): string {
  if (d.sign === 0) return "0";
  const sign = d.sign < 0 ? "-" : "";
  if (d.exponent >= 0 && d.exponent + d.digits.length <= 40)
    return `${sign}${d.digits}${"0".repeat(d.exponent)}`;
  if (d.exponent < 0 && -d.exponent <= 40) {
    const point = d.digits.length + d.exponent;
    return point > 0
      ? `${sign}${d.digits.slice(0, point)}.${d.digits.slice(point)}`
      : `${sign}0.${"0".repeat(-point)}${d.digits}`;
  }
  const exp = d.exponent + d.digits.length - 1;
  return `${sign}${d.digits[0]}${d.digits.length > 1 ? `.${d.digits.slice(1)}` : ""}e${exp >= 0 ? "+" : ""}${exp}`;
}
