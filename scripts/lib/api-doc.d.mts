// Types of api-doc.mjs, for gateway/test/api-doc.test.ts.
export const API_DOC_FILE: string;
export const DIFFERENCES_FILE: string;
export const STALE_MESSAGE: string;

export interface RouteEntry {
  method: string;
  path: string;
  authenticated: boolean;
}
export interface Differences {
  resources: string[];
  different: Record<string, string>;
  /** Operations deliberately not served, each with its reason. */
  leftOut: Record<string, string>;
  notes: Record<string, string>;
  extensions: Record<string, string>;
}
export interface Counts {
  supported: number;
  different: number;
  leftOut: number;
  notYet: number;
  total: number;
}
export interface ApiDocInputs {
  // GitBook's OpenAPI document, as parsed JSON.
  openapi: unknown;
  gitbookVersion: string;
  differences: Differences;
}

export function loadApiDocInputs(): ApiDocInputs;
export function buildApiDoc(input: ApiDocInputs & { routes: RouteEntry[] }): { markdown: string; counts: Counts };
