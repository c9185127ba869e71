// Types of demo.mjs, for the test that runs it.
export const DEMO_SITE_BASENAME: string;
export const DEMO_TITLE: string;
export class DemoError extends Error {}
export interface DemoPage {
  ref: string;
  markdown: string;
}
export function demoPages(repoRoot: string): Promise<DemoPage[]>;
export function demoBatches(pages: DemoPage[]): Record<string, unknown>[][];
export interface DemoResult {
  created: boolean;
  organizationId: string;
  siteId: string;
  spaceId?: string;
  url: string | null;
  pages: number;
}
export function publishDemo(options: { apiUrl: string; token: string; repoRoot: string; organizationId?: string }): Promise<DemoResult>;
