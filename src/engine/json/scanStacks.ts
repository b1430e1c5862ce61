import { escapePointerToken } from "./pointer.js";

/**
 * The scanner's scratch stacks, reused by every scan (the scan is synchronous and never re-entered), so the
 * hot path allocates nothing but member-name strings. Indexed by nesting level, outermost first. Apart from
 * the scan so that its error messages can read where in the document it was ({@link pointerAt}).
 */

/** 1 for an open object, 0 for an open array. */
export const levelIsObject: number[] = [];
/** Per open object: the name of the member being read. */
export const levelMemberName: string[] = [];
/** Per open array: the index of the element being read. */
export const levelElementIndex: number[] = [];
/** Per open object: where its names start in `openNames`. */
export const levelNamesStart: number[] = [];
/** Per open object with many members: its names, replacing the linear list. */
export const levelNameSet: (Set<string> | undefined)[] = [];
/** Member names of every open object, innermost object's names last (`namesTop` in a scan). */
export const openNames: string[] = [];

/** JSON pointer of the value being read; `namePending` leaves out the innermost object's member. */
export function pointerAt(depth: number, namePending: boolean): string {
  let path = "";
  const last = namePending ? depth - 1 : depth;
  for (let level = 0; level < last; level++) {
    const token =
      levelIsObject[level] === 1
        ? escapePointerToken(levelMemberName[level]!)
        : String(levelElementIndex[level]);
    path += "/" + token;
  }
  return path;
}
