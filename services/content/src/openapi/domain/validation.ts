import { AppError, parseFetchableUrl, SafeFetchError } from "@imprint/runtime";
import { OPENAPI_SLUG_MAX, OPENAPI_SLUG_PATTERN, OPENAPI_SOURCE_URL_MAX, OPENAPI_VISIBILITIES, type OpenApiVisibility } from "./entities.js";

/** Whether `slug` could name a specification (a lookup with any other value finds nothing). */
export function isOpenApiSlug(slug: string): boolean {
  return slug.length <= OPENAPI_SLUG_MAX && OPENAPI_SLUG_PATTERN.test(slug);
}

/** The slug of a new specification, or invalid_argument naming `field` and the rule. */
export function validateOpenApiSlug(slug: string, field = "slug"): string {
  if (slug === "") throw AppError.invalidArgument(`${field}: is required`);
  if (slug.length > OPENAPI_SLUG_MAX) throw AppError.invalidArgument(`${field}: must be at most ${OPENAPI_SLUG_MAX} characters`);
  if (!OPENAPI_SLUG_PATTERN.test(slug)) throw AppError.invalidArgument(`${field}: must match pattern ${OPENAPI_SLUG_PATTERN.source}`);
  return slug;
}

/**
 * The source URL, normalised: an absolute http(s) URL without credentials. Whether its host may
 * be reached is decided when it is fetched (DNS answers change), not here.
 */
export function validateSourceUrl(value: string): string {
  const trimmed = value.trim();
  if (trimmed === "") throw AppError.invalidArgument("source.url: is required");
  if (trimmed.length > OPENAPI_SOURCE_URL_MAX) throw AppError.invalidArgument(`source.url: must be at most ${OPENAPI_SOURCE_URL_MAX} characters`);
  try {
    const url = parseFetchableUrl(trimmed).toString();
    if (url.length > OPENAPI_SOURCE_URL_MAX) throw AppError.invalidArgument(`source.url: must be at most ${OPENAPI_SOURCE_URL_MAX} characters`);
    return url;
  } catch (error) {
    if (error instanceof SafeFetchError) throw AppError.invalidArgument(`source.url: ${error.reason}`);
    throw error;
  }
}

/** A visibility, or invalid_argument naming the field and the accepted values. */
export function validateVisibility(value: string): OpenApiVisibility {
  const found = OPENAPI_VISIBILITIES.find((visibility) => visibility === value);
  if (!found) throw AppError.invalidArgument(`visibility: must be one of ${OPENAPI_VISIBILITIES.join(", ")}`);
  return found;
}
