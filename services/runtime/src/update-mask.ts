import { AppError } from "./errors.js";

function toSnakeCase(path: string): string {
  return path.trim().replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The fields an update names in its `update_mask` (paths snake_case or camelCase, as proto JSON
 * and GitBook's field names give them), each one of `allowed`; an unknown field is
 * invalid_argument naming `update_mask`, and so is an empty mask unless `emptyMeans` says what an
 * update naming nothing does (the RPC documents it: an installation's status settles again, a SAML
 * provider stays as it is), for the REST updates that accept an empty body.
 */
export function parseUpdateMask<Field extends string>(
  paths: readonly string[] | undefined,
  allowed: readonly Field[],
  options: { emptyMeans?: "no_field_changes" } = {},
): Set<Field> {
  if (!paths || paths.length === 0) {
    if (options.emptyMeans === "no_field_changes") return new Set();
    throw AppError.invalidArgument("update_mask: must name at least one field");
  }
  const fields = new Set<Field>();
  for (const path of paths) {
    const field = toSnakeCase(path);
    if (!(allowed as readonly string[]).includes(field)) {
      throw AppError.invalidArgument(`update_mask: unknown field "${path}"; allowed: ${allowed.join(", ")}`);
    }
    fields.add(field as Field);
  }
  return fields;
}
