import type { ContentDeps } from "../service.js";

/** What the OpenAPI use cases need: the content service's deps and a way to wake the processor. */
export interface OpenApiDeps extends ContentDeps {
  openApiJobs: {
    /** A source was submitted: look for work now rather than at the next poll. */
    wake(): void;
  };
}
