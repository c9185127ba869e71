// What the runtime's vitest global setup provides (services/runtime/src/testing/global-setup.ts).
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}
