import { createIdentityClients } from "@imprint/runtime";
import { findChromium } from "@imprint/runtime/infrastructure";
import { gatewayPost } from "./editing.js";
import type { LighthouseFailedAudit, LighthouseScores } from "./lighthouse.js";

/**
 * The app figures of `npm run bench` (issue 30): Lighthouse's audit of the space page and of the
 * editor page, signed in, and the JavaScript the space page loads to show itself.
 */
export interface AppBenchmarkSettings {
  /** Pages of the audited space (its tree is part of the space page). */
  pages: number;
}

export interface AppTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  /** Where the Lighthouse HTML reports are written (`-space.html`, `-editor.html` replace `.html`). */
  lighthouseReportPath: string;
}

/** One audited page of the app. */
export interface AppLighthouse {
  url: string;
  reportPath?: string;
  scores?: LighthouseScores;
  failedAudits?: LighthouseFailedAudit[];
  /** JavaScript the page loaded to show itself, as transferred (compressed), in bytes. */
  scriptTransferBytes?: number;
  /** Why it was not audited. */
  error?: string;
}

export interface AppFigures {
  pages: number;
  space: AppLighthouse;
  editor: AppLighthouse;
}

type Log = (message: string) => void;

/** A page of the audited space: a heading, prose, a table, a code block and a hint, as writers make them. */
function pageMarkdown(index: number): string {
  return [
    `# Guide ${index}`,
    "",
    `This guide explains part ${index} of the product: what it does, how to set it up, and what to check afterwards.`,
    "",
    "| Setting | Default | Meaning |",
    "|---|---|---|",
    "| `timeout` | 30 s | How long a call may take |",
    "| `retries` | 3 | How often a failed call is tried again |",
    "",
    "```ts",
    `export const part${index} = { timeout: 30_000, retries: 3 };`,
    "```",
    "",
    '{% hint style="info" %}',
    "Settings take effect on the next start.",
    "{% endhint %}",
    "",
  ].join("\n");
}

/** The password the benchmark's writer signs in with. */
const PASSWORD = "bench app password, long enough";

export async function runAppBenchmark(target: AppTarget, settings: AppBenchmarkSettings, log: Log): Promise<AppFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  try {
    const email = "bench-app@example.com";
    const organization = await identity.organizations.createOrganization({
      title: "App Benchmark",
      ownerEmail: email,
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const orgId = organization.organizationId;
    await identity.sessions.setPassword({ email, password: PASSWORD });
    const post = gatewayPost(target.gatewayUrl, organization.token);

    log(`app: a space of ${settings.pages} pages, and a change request open on it`);
    const spaceId = String((await post(`/v1/orgs/${orgId}/spaces`, { title: "App benchmark" })).id);
    const insert = (index: number) => ({
      operation: "insert_page",
      ref: `guide-${index}`,
      slug: `guide-${index}`,
      document: { markdown: pageMarkdown(index) },
    });
    const seed = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: "App benchmark pages" });
    const pages = Array.from({ length: settings.pages }, (_, index) => insert(index + 1));
    for (let start = 0; start < pages.length; start += 50) {
      await post(`/v1/spaces/${spaceId}/change-requests/${String(seed.id)}/content`, { changes: pages.slice(start, start + 50) });
    }
    await post(`/v1/spaces/${spaceId}/change-requests/${String(seed.id)}/merge`);
    const editing = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: "Editing guide 1" });

    // Signed in as a person does, through the password form's call: the session cookie is what Lighthouse's browser sends.
    const signIn = await fetch(`${target.gatewayUrl}/v1/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    if (signIn.status !== 200) throw new Error(`app: signing in answered ${signIn.status}: ${await signIn.text()}`);
    const cookie = signIn.headers
      .getSetCookie()
      .map((line) => line.split(";")[0]!)
      .join("; ");

    const space: AppLighthouse = { url: `${target.gatewayUrl}/o/${orgId}/s/${spaceId}/guide-1` };
    const editor: AppLighthouse = { url: `${target.gatewayUrl}/o/${orgId}/s/${spaceId}/~/edit/${String(editing.number)}/guide-1` };
    const chromePath = findChromium();
    for (const [name, audited] of [
      ["space", space],
      ["editor", editor],
    ] as const) {
      if (!chromePath) {
        audited.error = "Chromium was not found (set CHROMIUM_PATH)";
        continue;
      }
      const reportPath = target.lighthouseReportPath.replace(/\.html$/, `-app-${name}.html`);
      log(`app: Lighthouse audit of the ${name} page, ${audited.url}`);
      try {
        const { auditWithLighthouse } = await import("./lighthouse.js");
        const audit = await auditWithLighthouse(audited.url, { chromePath, reportPath, extraHeaders: { cookie } });
        Object.assign(audited, { reportPath, scores: audit.scores, failedAudits: audit.failedAudits, scriptTransferBytes: audit.scriptTransferBytes });
        const { performance, accessibility, bestPractices, seo } = audit.scores;
        log(
          `         performance ${performance}, accessibility ${accessibility}, best practices ${bestPractices}, SEO ${seo}; JavaScript ${(audit.scriptTransferBytes / 1024).toFixed(0)} KiB transferred`,
        );
      } catch (error) {
        audited.error = error instanceof Error ? error.message : String(error);
        log(`         not audited: ${audited.error}`);
      }
    }
    return { pages: settings.pages, space, editor };
  } finally {
    identity.close();
  }
}
