// What the shared global setup (services/runtime/src/testing/global-setup.ts) provides to tests.
declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}
export {};
