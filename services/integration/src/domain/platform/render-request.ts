import { AppError } from "@imprint/runtime";
import { z } from "zod";
import type { ContentKitAction, ContentKitContext, PlainObject } from "./types.js";

/**
 * A request to render an integration's component (GitBook's RenderIntegrationUI): the body of
 * `POST /integrations/{name}/render`, or the `?request=` of its GET twin once the gateway has
 * decompressed it.
 */
export interface RenderRequest {
  componentId: string;
  props: PlainObject;
  state?: PlainObject;
  context: ContentKitContext;
  action?: ContentKitAction;
}

const plainObject = z.record(z.string(), z.unknown());
const theme = z.enum(["dark", "light"]);
// Contexts and actions keep fields GitBook may add: the script receives them as sent.
const context = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("configuration_account"), theme, organizationId: z.string() }),
  z.looseObject({ type: z.literal("configuration_space"), theme, spaceId: z.string() }),
  z.looseObject({ type: z.literal("configuration_site"), theme, siteId: z.string() }),
  z.looseObject({ type: z.literal("configuration_contentsource"), theme, organizationId: z.string(), spaceId: z.string().optional() }),
  z.looseObject({ type: z.literal("document"), theme, spaceId: z.string(), editable: z.boolean() }),
]);
const renderRequest = z.object({
  componentId: z.string(),
  props: plainObject,
  state: plainObject.optional(),
  context,
  action: z.looseObject({ action: z.string() }).optional(),
});

function pathOf(where: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${String(key)}`), where);
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** One zod issue as `path: rule`. */
function describe(issue: z.core.$ZodIssue, where: string): string {
  const path = pathOf(where, issue.path);
  if (issue.input === undefined && issue.path.length > 0) return `${path}: is required`;
  switch (issue.code) {
    case "invalid_type":
      return `${path}: must be ${article(issue.expected === "record" ? "object" : issue.expected)}`;
    case "invalid_value":
      return `${path}: must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "invalid_union":
      return "options" in issue && Array.isArray(issue.options)
        ? `${path}: must be one of ${issue.options.map((value) => JSON.stringify(value)).join(", ")}`
        : `${path}: does not match any of the accepted shapes`;
    default:
      return `${path}: ${issue.message}`;
  }
}

/** A render request's shape checked (`where` names it in messages), or invalid_argument naming the first problem. */
export function checkRenderRequest(value: unknown, where = "body"): RenderRequest {
  const result = renderRequest.safeParse(value, { reportInput: true });
  if (!result.success) throw AppError.invalidArgument(describe(result.error.issues[0]!, where));
  const { componentId, props, state, context: ctx, action } = result.data;
  return { componentId, props, ...(state ? { state } : {}), context: ctx, ...(action ? { action } : {}) };
}
