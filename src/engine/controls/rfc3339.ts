/**
 * RFC 3339 `date-time` (section 5.6) with its offset required: `2026-05-01T12:00:00Z`,
 * `2026-05-01T14:00:00.250+02:00`. `T`/`Z` may be lowercase, as the RFC allows; a space instead of `T`,
 * a missing offset, or a day that does not exist is refused (no guessing at local time). A leap second
 * (`:60`) counts as the last millisecond of its minute. Returns epoch milliseconds, or `null`.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function parseRfc3339(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  const leap = second === 60;
  const utc = Date.UTC(year, month - 1, day, hour, minute, leap ? 59 : second, leap ? 999 : millis);
  return utc - offsetMinutes * 60_000;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
