// What the shared global setup (global-setup.ts) provides to every test file through `inject`.
declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the `postgres` database of the shared test server; tests create their own databases on it. */
    pgAdminUrl: string;
  }
}

export {};
