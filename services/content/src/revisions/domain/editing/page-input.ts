import { AppError } from "@imprint/runtime";
import type { CreatePageInput, MovePageInput, PageLayoutInput, PagePosition, UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { PageType as ProtoPageType, type ImageRef, type PageCover } from "@imprint/proto/content/v1/revisions";
import {
  DEFAULT_LAYOUT,
  LAYOUT_COVER_MASKS,
  LAYOUT_COVER_SIZES,
  LAYOUT_WIDTHS,
  type ImageRefValue,
  type PageCoverValue,
  type PageLayoutValue,
  type PageType,
} from "../store/model.js";
import type { FieldName, NewPage, PageMove, PagePatch, PositionInput } from "./draft-editor.js";

/** Limits of page fields; a request breaking one answers invalid_argument naming the field. */
export const PAGE_LIMITS = {
  title: 255,
  slug: 100,
  emoji: 50,
  icon: 50,
  description: 1000,
  markdownBytes: 2 * 1024 * 1024,
  href: 2048,
  variables: 500,
  variableName: 64,
  variableValue: 256,
} as const;

export const CONTENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const SLUG = /^[\p{L}\p{N}_-]+$/u;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const invalid = (field: string, rule: string) => AppError.invalidArgument(`${field}: ${rule}`);

/** An id given by the client: the right shape, or an answer naming the field. */
export function contentIdFrom(value: string, field: string): string {
  if (!CONTENT_ID.test(value)) throw invalid(field, 'must be 1 to 64 letters, digits, "-" or "_"');
  return value;
}

function optionalId(value: string, field: string): string | null {
  return value === "" ? null : contentIdFrom(value, field);
}

function title(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > PAGE_LIMITS.title) throw invalid(field, `must be 1 to ${PAGE_LIMITS.title} characters`);
  return trimmed;
}

function slug(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > PAGE_LIMITS.slug || !SLUG.test(trimmed)) {
    throw invalid(field, `must be 1 to ${PAGE_LIMITS.slug} letters, digits, "-" or "_"`);
  }
  return trimmed;
}

function bounded(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length > max) throw invalid(field, `must be at most ${max} characters`);
  return trimmed;
}

function markdown(value: string, field: string): string {
  if (Buffer.byteLength(value, "utf8") > PAGE_LIMITS.markdownBytes) throw invalid(field, "must be at most 2 MiB");
  return value;
}

function href(value: string, field: string): string {
  const trimmed = value.trim();
  const absolute = /^https?:\/\//i.test(trimmed) && URL.canParse(trimmed);
  if (trimmed.length === 0 || trimmed.length > PAGE_LIMITS.href || !(absolute || trimmed.startsWith("/"))) {
    throw invalid(field, `must be an http(s) URL or a path starting with "/", at most ${PAGE_LIMITS.href} characters`);
  }
  return trimmed;
}

export function variablesFrom(values: Record<string, string>, field: string): Record<string, string> {
  const entries = Object.entries(values);
  if (entries.length > PAGE_LIMITS.variables) throw invalid(field, `at most ${PAGE_LIMITS.variables} variables`);
  for (const [name, value] of entries) {
    if (name.length > PAGE_LIMITS.variableName || !VARIABLE_NAME.test(name)) {
      throw invalid(`${field}.${name}`, `names are 1 to ${PAGE_LIMITS.variableName} letters, digits or "_", not starting with a digit`);
    }
    if (value.length > PAGE_LIMITS.variableValue) throw invalid(`${field}.${name}`, `must be at most ${PAGE_LIMITS.variableValue} characters`);
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}

function pageType(value: ProtoPageType, field: string): PageType {
  switch (value) {
    case ProtoPageType.PAGE_TYPE_UNSPECIFIED:
    case ProtoPageType.PAGE_TYPE_DOCUMENT:
      return "document";
    case ProtoPageType.PAGE_TYPE_GROUP:
      return "group";
    case ProtoPageType.PAGE_TYPE_LINK:
      return "link";
    default:
      throw invalid(field, "must be document, group or link");
  }
}

function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw invalid(field, `must be one of ${allowed.join(", ")}`);
  return value as T;
}

function layoutChanges(input: PageLayoutInput | undefined, field: FieldName): Partial<PageLayoutValue> {
  if (!input) return {};
  const changes: Partial<PageLayoutValue> = {};
  if (input.width !== undefined) changes.width = oneOf(input.width, LAYOUT_WIDTHS, field("layout.width"));
  if (input.coverSize !== undefined) changes.coverSize = oneOf(input.coverSize, LAYOUT_COVER_SIZES, field("layout.cover_size"));
  if (input.coverMask !== undefined) changes.coverMask = oneOf(input.coverMask, LAYOUT_COVER_MASKS, field("layout.cover_mask"));
  const flags = ["cover", "title", "description", "tableOfContents", "outline", "pagination", "metadata", "tags", "actions", "anchors"] as const;
  for (const flag of flags) {
    const value = input[flag];
    if (value !== undefined) changes[flag] = value;
  }
  return changes;
}

function imageRef(input: ImageRef | undefined, field: string): ImageRefValue {
  const fileId = input?.fileId ?? "";
  const url = input?.url ?? "";
  if ((fileId === "") === (url === "")) throw invalid(field, "give either file_id or url");
  if (fileId) return { kind: "file", file: contentIdFrom(fileId, `${field}.file_id`) };
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url) || url.length > 2048) throw invalid(`${field}.url`, "must be an http(s) URL of at most 2048 characters");
  return { kind: "url", url };
}

function cover(input: PageCover, field: FieldName): PageCoverValue {
  if (!Number.isFinite(input.yPos)) throw invalid(field("cover.y_pos"), "must be a number");
  return {
    ref: imageRef(input.ref, field("cover.ref")),
    ...(input.refDark ? { refDark: imageRef(input.refDark, field("cover.ref_dark")) } : {}),
    yPos: input.yPos,
  };
}

function position(input: PagePosition | undefined, field: FieldName): PositionInput {
  const before = input?.beforePageId ?? "";
  const after = input?.afterPageId ?? "";
  return {
    ...(before ? { before: contentIdFrom(before, field("position.before_page_id")) } : {}),
    ...(after ? { after: contentIdFrom(after, field("position.after_page_id")) } : {}),
  };
}

export function newPageFrom(input: CreatePageInput | undefined, field: FieldName): NewPage {
  if (!input) throw invalid(field("page"), "is required");
  const type = pageType(input.type, field("type"));
  if (type !== "document" && input.markdown !== "") throw invalid(field("markdown"), `only document pages have a body (this page is a ${type})`);
  if (type === "link" && input.href.trim() === "") throw invalid(field("href"), "is required for a link page");
  if (type !== "link" && input.href.trim() !== "") throw invalid(field("href"), "only link pages have a target URL");
  return {
    ...(input.pageId !== "" ? { pageId: contentIdFrom(input.pageId, field("page_id")) } : {}),
    parentId: optionalId(input.parentPageId, field("parent_page_id")),
    position: position(input.position, field),
    type,
    title: title(input.title, field("title")),
    ...(input.slug.trim() !== "" ? { slug: slug(input.slug, field("slug")) } : {}),
    emoji: bounded(input.emoji, field("emoji"), PAGE_LIMITS.emoji),
    icon: bounded(input.icon, field("icon"), PAGE_LIMITS.icon),
    description: bounded(input.description, field("description"), PAGE_LIMITS.description),
    markdown: markdown(input.markdown, field("markdown")),
    hidden: input.hidden,
    noIndex: input.noIndex,
    noRobotsIndex: input.noRobotsIndex,
    layout: { ...DEFAULT_LAYOUT, ...layoutChanges(input.layout, field) },
    cover: input.cover ? cover(input.cover, field) : null,
    variables: variablesFrom(input.variables, field("variables")),
    href: type === "link" ? href(input.href, field("href")) : null,
  };
}

export function pagePatchFrom(input: UpdatePageInput | undefined, field: FieldName): PagePatch {
  if (!input) throw invalid(field("page"), "is required");
  if (input.cover && input.removeCover) throw invalid(field("cover"), "give cover or remove_cover, not both");
  const patch: PagePatch = { pageId: contentIdFrom(input.pageId, field("page_id")) };
  if (input.title !== undefined) patch.title = title(input.title, field("title"));
  if (input.slug !== undefined) patch.slug = slug(input.slug, field("slug"));
  if (input.emoji !== undefined) patch.emoji = bounded(input.emoji, field("emoji"), PAGE_LIMITS.emoji);
  if (input.icon !== undefined) patch.icon = bounded(input.icon, field("icon"), PAGE_LIMITS.icon);
  if (input.description !== undefined) patch.description = bounded(input.description, field("description"), PAGE_LIMITS.description);
  if (input.markdown !== undefined) patch.markdown = markdown(input.markdown, field("markdown"));
  if (input.hidden !== undefined) patch.hidden = input.hidden;
  if (input.noIndex !== undefined) patch.noIndex = input.noIndex;
  if (input.noRobotsIndex !== undefined) patch.noRobotsIndex = input.noRobotsIndex;
  const layout = layoutChanges(input.layout, field);
  if (Object.keys(layout).length > 0) patch.layout = layout;
  if (input.cover) patch.cover = cover(input.cover, field);
  if (input.removeCover) patch.cover = null;
  if (input.variables) patch.variables = variablesFrom(input.variables.values, field("variables"));
  if (input.href !== undefined) patch.href = href(input.href, field("href"));
  return patch;
}

export function pageMoveFrom(input: MovePageInput | undefined, field: FieldName): PageMove {
  if (!input) throw invalid(field("move"), "is required");
  return {
    pageId: contentIdFrom(input.pageId, field("page_id")),
    parentId: optionalId(input.parentPageId, field("parent_page_id")),
    position: position(input.position, field),
  };
}
