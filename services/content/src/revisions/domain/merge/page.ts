import { canonicalJson, pageRecord, type PageRecord } from "../tree/model.js";

/** The page fields a merge decides one by one (location, parent and position, moves as one). */
const SCALAR_FIELDS = [
  "type",
  "slug",
  "title",
  "emoji",
  "icon",
  "description",
  "hidden",
  "noIndex",
  "noRobotsIndex",
  "layout",
  "cover",
  "href",
  "git",
] as const;

/** Which side settles what both sides changed in ways that cannot be combined (Git Sync's priority rule). */
export type MergePreference = "ours" | "theirs";

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** One value, three-way: a side that kept the base value gives way to the side that changed it. */
function pick<T>(base: T, ours: T, theirs: T): { value: T } | { conflict: true } {
  if (same(ours, theirs) || same(theirs, base)) return { value: ours };
  if (same(ours, base)) return { value: theirs };
  return { conflict: true };
}

/**
 * String maps (variables) merge per key; a key set differently on both sides is a conflict, which
 * `prefer` settles with that side's value (the key is still listed in `conflicts`).
 */
export function mergeStringMaps(
  base: Record<string, string>,
  ours: Record<string, string>,
  theirs: Record<string, string>,
  prefer?: MergePreference,
): { value: Record<string, string>; conflicts: string[] } {
  const value: Record<string, string> = {};
  const conflicts: string[] = [];
  for (const key of new Set([...Object.keys(base), ...Object.keys(ours), ...Object.keys(theirs)])) {
    const result = pick(base[key], ours[key], theirs[key]);
    if ("conflict" in result) conflicts.push(key);
    const chosen = "value" in result ? result.value : prefer === "theirs" ? theirs[key] : ours[key];
    if (chosen !== undefined) value[key] = chosen;
  }
  return { value, conflicts };
}

export type PageMergeResult = { page: PageRecord; combined: boolean } | { conflict: string };

/**
 * Merges two versions of one page changed on both sides since `base`. Every field takes the side
 * that changed it; the same field changed differently on both sides is a conflict, except the
 * body, whose text is merged (`mergeBody`). `combined` says whether the result holds changes of
 * both sides (else it is one side's version as is, and shares its row).
 */
export async function mergePage(
  base: PageRecord,
  ours: PageRecord,
  theirs: PageRecord,
  mergeBody: (base: string | null, ours: string | null, theirs: string | null) => Promise<{ bodyId: string | null } | { conflict: true }>,
  now: Date,
): Promise<PageMergeResult> {
  const changed: string[] = [];
  const fields: Record<string, unknown> = {};
  for (const field of SCALAR_FIELDS) {
    const result = pick(base[field], ours[field], theirs[field]);
    if ("conflict" in result) changed.push(field);
    else fields[field] = result.value;
  }
  const location = pick(
    { parentId: base.parentId, position: base.position },
    { parentId: ours.parentId, position: ours.position },
    { parentId: theirs.parentId, position: theirs.position },
  );
  if ("conflict" in location) changed.push("location (moved differently on both sides)");
  const variables = mergeStringMaps(base.variables, ours.variables, theirs.variables);
  if (variables.conflicts.length > 0) changed.push(`variables ${variables.conflicts.join(", ")}`);
  if (changed.length > 0) return { conflict: `both sides changed ${changed.join(", ")}` };

  const body = await mergeBody(base.bodyId, ours.bodyId, theirs.bodyId);
  if ("conflict" in body) return { conflict: "both sides changed the same lines of the text" };

  const { id: _oursId, ...oursFields } = ours;
  const merged: Omit<PageRecord, "id"> = {
    ...oursFields,
    ...(fields as Partial<PageRecord>),
    ...("value" in location ? location.value : {}),
    variables: variables.value,
    bodyId: body.bodyId,
  };
  // The result may be one side's version exactly: keep that row rather than making a new one.
  for (const side of [ours, theirs]) {
    const { id: _id, ...sideFields } = side;
    if (same({ ...merged, updatedAt: side.updatedAt }, sideFields)) return { page: side, combined: false };
  }
  return { page: pageRecord({ ...merged, updatedAt: now }), combined: true };
}
