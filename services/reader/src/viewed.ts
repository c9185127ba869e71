/**
 * What a page view is made of, apart from how views are sent (site-views.ts) and from where the
 * request was answered (Koa, or a kept answer: kept-answers.ts).
 */

/** What a view keeps of the request it answered: Koa's context, or a kept answer's raw request (kept-answers.ts). */
export interface ViewedRequest {
  method: string;
  /** The answer's status (a view is a 200, or a 304 for a page the browser kept). */
  status: number;
  path: string;
  /** The query string, without its "?". */
  querystring: string;
  /** The client's address (behind trusted proxies, the forwarded one). */
  ip: string;
  /** A request header ("" when absent). */
  header(name: string): string;
}

/** The page a view is of, and the origin its URL is written with. */
export interface ViewedPage {
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  spaceId: string;
  pageId: string;
  origin: string;
}

/** Where views are recorded. */
export interface ViewRecorder {
  /** Records the view `request` answered, if it is one: O(1), never waits; sent within a second. */
  record(request: ViewedRequest, page: ViewedPage): void;
}
