import { AppError, parseUpdateMask } from "@imprint/runtime";
import type { CreatePageInput, MovePageInput, PageLayoutInput, PagePosition, UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { PageType as ProtoPageType, type ImageRef, type PageCover } from "@imprint/proto/content/v1/revisions";
import type { FieldName, NewPage, PageMove, PagePatch, PositionInput } from "../../domain/editing/draft-editor.js";
import {
  bounded,
  contentIdFrom,
  invalid,
  optionalId,
  PAGE_LIMITS,
  pageHref,
  pageMarkdown,
  pageSlug,
  pageTitle,
  variablesFrom,
} from "../../domain/editing/page-input.js";
import {
  DEFAULT_LAYOUT,
  LAYOUT_COVER_MASKS,
  LAYOUT_COVER_SIZES,
  LAYOUT_WIDTHS,
  type ImageRefValue,
  type PageCoverValue,
  type PageLayoutValue,
  type PageType,
} from "../../domain/tree/model.js";

// The editing API's page input (proto) mapped onto the domain's page rules. Shared by the editing
// gRPC handlers and the website import, which builds the same input for the pages it creates.

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

const LAYOUT_FLAGS = ["cover", "title", "description", "tableOfContents", "outline", "pagination", "metadata", "tags", "actions", "anchors"] as const;
type LayoutField = "width" | "coverSize" | "coverMask" | (typeof LAYOUT_FLAGS)[number];
const LAYOUT_PATHS: Record<LayoutField, string> = {
  width: "layout.width",
  coverSize: "layout.cover_size",
  coverMask: "layout.cover_mask",
  cover: "layout.cover",
  title: "layout.title",
  description: "layout.description",
  tableOfContents: "layout.table_of_contents",
  outline: "layout.outline",
  pagination: "layout.pagination",
  metadata: "layout.metadata",
  tags: "layout.tags",
  actions: "layout.actions",
  anchors: "layout.anchors",
};

/** The layout fields `changes` names (a new page's: those set), validated; an unset one named is empty. */
function layoutChanges(input: PageLayoutInput | undefined, changes: (field: LayoutField) => boolean, field: FieldName): Partial<PageLayoutValue> {
  const layout: Partial<PageLayoutValue> = {};
  if (changes("width")) layout.width = oneOf(input?.width ?? "", LAYOUT_WIDTHS, field(LAYOUT_PATHS.width));
  if (changes("coverSize")) layout.coverSize = oneOf(input?.coverSize ?? "", LAYOUT_COVER_SIZES, field(LAYOUT_PATHS.coverSize));
  if (changes("coverMask")) layout.coverMask = oneOf(input?.coverMask ?? "", LAYOUT_COVER_MASKS, field(LAYOUT_PATHS.coverMask));
  for (const flag of LAYOUT_FLAGS) {
    if (changes(flag)) layout[flag] = input?.[flag] ?? false;
  }
  return layout;
}

const PAGE_FIELDS = [
  "title",
  "slug",
  "emoji",
  "icon",
  "description",
  "markdown",
  "hidden",
  "no_index",
  "no_robots_index",
  "cover",
  "variables",
  "href",
  ...Object.values(LAYOUT_PATHS),
] as const;

/** The fields an update's mask names; in a batch, an error names the operation's `update_mask`. */
function updatedFields(input: UpdatePageInput, field: FieldName): Set<string> {
  try {
    return parseUpdateMask(input.updateMask, PAGE_FIELDS);
  } catch (error) {
    if (error instanceof AppError && error.message.startsWith("update_mask")) {
      throw AppError.invalidArgument(field("update_mask") + error.message.slice("update_mask".length));
    }
    throw error;
  }
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
    title: pageTitle(input.title, field("title")),
    ...(input.slug.trim() !== "" ? { slug: pageSlug(input.slug, field("slug")) } : {}),
    emoji: bounded(input.emoji, field("emoji"), PAGE_LIMITS.emoji),
    icon: bounded(input.icon, field("icon"), PAGE_LIMITS.icon),
    description: bounded(input.description, field("description"), PAGE_LIMITS.description),
    markdown: pageMarkdown(input.markdown, field("markdown")),
    hidden: input.hidden,
    noIndex: input.noIndex,
    noRobotsIndex: input.noRobotsIndex,
    layout: { ...DEFAULT_LAYOUT, ...layoutChanges(input.layout, (name) => input.layout?.[name] !== undefined, field) },
    cover: input.cover ? cover(input.cover, field) : null,
    variables: variablesFrom(input.variables, field("variables")),
    href: type === "link" ? pageHref(input.href, field("href")) : null,
  };
}

/** A page update: exactly the fields its `update_mask` names, a named empty field cleared where the page allows. */
export function pagePatchFrom(input: UpdatePageInput | undefined, field: FieldName): PagePatch {
  if (!input) throw invalid(field("page"), "is required");
  const fields = updatedFields(input, field);
  const patch: PagePatch = { pageId: contentIdFrom(input.pageId, field("page_id")) };
  if (fields.has("title")) patch.title = pageTitle(input.title, field("title"));
  if (fields.has("slug")) patch.slug = pageSlug(input.slug, field("slug"));
  if (fields.has("emoji")) patch.emoji = bounded(input.emoji, field("emoji"), PAGE_LIMITS.emoji);
  if (fields.has("icon")) patch.icon = bounded(input.icon, field("icon"), PAGE_LIMITS.icon);
  if (fields.has("description")) patch.description = bounded(input.description, field("description"), PAGE_LIMITS.description);
  if (fields.has("markdown")) patch.markdown = pageMarkdown(input.markdown, field("markdown"));
  if (fields.has("hidden")) patch.hidden = input.hidden;
  if (fields.has("no_index")) patch.noIndex = input.noIndex;
  if (fields.has("no_robots_index")) patch.noRobotsIndex = input.noRobotsIndex;
  const layout = layoutChanges(input.layout, (name) => fields.has(LAYOUT_PATHS[name]), field);
  if (Object.keys(layout).length > 0) patch.layout = layout;
  if (fields.has("cover")) patch.cover = input.cover ? cover(input.cover, field) : null;
  if (fields.has("variables")) patch.variables = variablesFrom(input.variables?.values ?? {}, field("variables"));
  if (fields.has("href")) patch.href = pageHref(input.href, field("href"));
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
