/** Base URLs the mappers build `urls.*` from (no trailing slash). */
export interface PublicUrls {
  /** This API as clients reach it, e.g. https://docs-api.example.com. */
  api: string;
  /** The web application, e.g. https://docs.example.com. */
  app: string;
}
