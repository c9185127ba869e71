import { CreatePageInput, EditingServiceService, UpdatePageInput, type PageOperation } from "@imprint/proto/content/v1/editing";
import { createIdentityClients, createPromiseClient } from "@imprint/runtime";
import { commitPageOperations, gatewayPost } from "./editing.js";

/**
 * The merge figures of `npm run bench`: a space of 10,000 pages built through the editing API;
 * for each size, a change request is created through the gateway, that many pages are edited on
 * its branch (the editing API), the space's main content moves on meanwhile (another page is
 * edited, so the merge is a real three-way merge and not a fast-forward), and
 * `POST /v1/spaces/{id}/change-requests/{n}/merge` is timed end to end (gateway → collaboration
 * → content). A last run edits different paragraphs of the same pages on both sides, so every
 * page's text is merged line by line.
 */

export interface MergeTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  contentGrpcAddress: string;
}

export interface MergeBenchmarkSettings {
  pages: number;
  /** Numbers of pages the change requests touch. */
  sizes: number[];
}

export interface MergeRun {
  /** Pages the change request edited. */
  pages: number;
  /** Whether main edited the same pages too (every page's text merged three-way). */
  bothSides: boolean;
  mergeMs: number;
}

export interface MergeFigures {
  pages: number;
  runs: MergeRun[];
}

type Log = (message: string) => void;

const sectionOf = (index: number) => Math.floor(index / 99);
const pageIdOf = (index: number) => `s${sectionOf(index)}p${index % 99}`;

/** The seeded text of a page: a heading and three paragraphs. */
const seededParagraphs = (section: number, page: number) => [
  `# Page ${page}`,
  `First paragraph of page ${page}.`,
  `Second paragraph of section ${section}.`,
  "Third paragraph.",
];

function spaceOperations(pages: number): PageOperation[] {
  const operations: PageOperation[] = [];
  for (let section = 0; operations.length < pages; section++) {
    operations.push({ create: CreatePageInput.fromPartial({ pageId: `s${section}`, title: `Section ${section}`, markdown: `# Section ${section}` }) });
    for (let page = 0; page < 99 && operations.length < pages; page++) {
      operations.push({
        create: CreatePageInput.fromPartial({
          pageId: `s${section}p${page}`,
          parentPageId: `s${section}`,
          title: `Page ${page}`,
          markdown: seededParagraphs(section, page).join("\n\n"),
        }),
      });
    }
  }
  return operations;
}

export async function runMergeBenchmark(target: MergeTarget, settings: MergeBenchmarkSettings, log: Log): Promise<MergeFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const editing = createPromiseClient(EditingServiceService, target.contentGrpcAddress, { defaultTimeoutMs: 300_000 });
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Merge Benchmark",
      ownerEmail: "bench-merge@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const caller = { userId: organization.userId, tokenId: "" };
    const post = gatewayPost(target.gatewayUrl, organization.token);
    const spaceId = (await post(`/v1/orgs/${organization.organizationId}/spaces`, { title: "Merge space" })).id as string;

    const edit = (changeRequestId: string, operations: PageOperation[]) => commitPageOperations(editing, { caller, spaceId, changeRequestId, operations });
    log(`merge: building a space of ${settings.pages} pages`);
    await edit("", spaceOperations(settings.pages));

    const runs: MergeRun[] = [];
    const plans = settings.sizes.map((pages) => ({ pages, bothSides: false }));
    if (settings.sizes.length > 0) plans.push({ pages: Math.max(...settings.sizes), bothSides: true });
    // Pages spread over the whole tree (a stride coprime with the count), never the same twice.
    const leafPages = Math.floor(settings.pages / 100) * 99;
    let next = 0;
    const takePages = (count: number) => Array.from({ length: count }, () => pageIdOf((next++ * 7919) % leafPages));
    for (const [index, plan] of plans.entries()) {
      const changeRequest = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: `Touch ${plan.pages} pages` });
      const touched = takePages(plan.pages);
      // One paragraph of the page's seeded text replaced, the rest kept: both sides' edits of
      // different paragraphs merge without conflict.
      const rewrite = (pageId: string, paragraph: 0 | 2, by: string): PageOperation => {
        const [section, page] = pageId.slice(1).split("p").map(Number) as [number, number];
        const paragraphs = seededParagraphs(section, page);
        paragraphs[paragraph + 1] = `${by} rewrote this paragraph.`;
        return { update: UpdatePageInput.fromPartial({ pageId, markdown: paragraphs.join("\n\n"), updateMask: ["markdown"] }) };
      };
      await edit(
        String(changeRequest.id),
        touched.map((pageId) => rewrite(pageId, 0, `run ${index}`)),
      );
      await edit("", [{ update: UpdatePageInput.fromPartial({ pageId: `s${index}`, title: `Main moved on ${index}`, updateMask: ["title"] }) }]);
      if (plan.bothSides)
        await edit(
          "",
          touched.map((pageId) => rewrite(pageId, 2, "main")),
        );
      const started = performance.now();
      await post(`/v1/spaces/${spaceId}/change-requests/${String(changeRequest.number)}/merge`);
      const mergeMs = performance.now() - started;
      runs.push({ pages: plan.pages, bothSides: plan.bothSides, mergeMs });
      log(`merge: ${plan.pages} pages${plan.bothSides ? " (both sides, text merged)" : ""}: ${mergeMs.toFixed(0)} ms`);
    }
    return { pages: settings.pages, runs };
  } finally {
    identity.close();
    editing.close();
  }
}
