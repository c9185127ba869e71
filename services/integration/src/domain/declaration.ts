import { z } from "zod";
import { AppError } from "@imprint/runtime";
import { LIMITS } from "./integration.js";

/** GitBook's IntegrationBlock, IntegrationContentSource and external links, with their limits (and bounds GitBook leaves open). */
const identifier = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits, _, . or -");
const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), "must be an http(s) URL");

const block = z.strictObject({
  id: identifier,
  title: z.string().min(2).max(40),
  description: z.string().max(150).optional(),
  icon: httpUrl.optional(),
  urlUnfurl: z.array(z.string().min(1).max(512)).max(20).optional(),
  markdown: z.strictObject({ codeblock: z.string().min(1).max(64), body: z.string().max(4096) }).optional(),
});

const contentSource = z.strictObject({
  id: identifier,
  title: z.string().min(2).max(40),
  description: z.string().max(150).optional(),
  icon: httpUrl.optional(),
  configuration: z.strictObject({ componentId: identifier }),
});

const externalLink = z.strictObject({ url: httpUrl, label: z.string().min(1).max(100) });

const parts = z.strictObject({
  blocks: z.array(block).max(LIMITS.blocks),
  contentSources: z.array(contentSource).max(LIMITS.contentSources),
  externalLinks: z.array(externalLink).max(LIMITS.externalLinks),
});

export type DeclaredParts = z.infer<typeof parts>;

/** Checks the blocks, content sources and external links an integration declares; the first problem names its path. */
export function checkDeclaredParts(value: { blocks: unknown; contentSources: unknown; externalLinks: unknown }): DeclaredParts {
  const result = parts.safeParse(value);
  if (result.success) {
    for (const [field, items] of [
      ["blocks", result.data.blocks],
      ["contentSources", result.data.contentSources],
    ] as const) {
      const seen = new Set<string>();
      items.forEach((item, index) => {
        if (seen.has(item.id)) throw AppError.invalidArgument(`${field}[${index}].id: "${item.id}" is declared twice`);
        seen.add(item.id);
      });
    }
    return result.data;
  }
  const issue = result.error.issues[0];
  const path = (issue?.path ?? [])
    .map((segment, index) => (typeof segment === "number" ? `[${segment}]` : `${index === 0 ? "" : "."}${String(segment)}`))
    .join("");
  throw AppError.invalidArgument(`${path}: ${issue?.message ?? "is invalid"}`);
}

/** The domains a block unfurls URLs of (for the `blockDomain` filter). */
export function unfurlDomains(blocks: readonly unknown[]): string[] {
  const domains = new Set<string>();
  for (const candidate of blocks as Array<{ urlUnfurl?: string[] }>) {
    for (const pattern of candidate.urlUnfurl ?? []) {
      const host = /^(?:[a-z]+:\/\/)?([^/?#:]+)/i.exec(pattern)?.[1];
      if (host) domains.add(host.replace(/^\*\./, "").toLowerCase());
    }
  }
  return [...domains];
}
