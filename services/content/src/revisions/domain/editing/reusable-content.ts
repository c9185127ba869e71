import { AppError } from "@imprint/runtime";
import { PAGE_LIMITS } from "./page-input.js";

/** A reusable content's title (trimmed, 1 to PAGE_LIMITS.title characters) and markdown (at most 2 MiB), as stored. */
export function validateReusableContent(input: { title: string; markdown: string }): { title: string; markdown: string } {
  const title = input.title.trim();
  if (title.length < 1 || title.length > PAGE_LIMITS.title) throw AppError.invalidArgument(`title: must be 1 to ${PAGE_LIMITS.title} characters`);
  if (Buffer.byteLength(input.markdown, "utf8") > PAGE_LIMITS.markdownBytes) throw AppError.invalidArgument("markdown: must be at most 2 MiB");
  return { title, markdown: input.markdown };
}
