import type { Layer, MatchResult, Router } from "@koa/router";

/** How many leading path segments the index tells apart (`/v1/orgs/:id/sites` is four). */
const INDEXED_SEGMENTS = 4;

/** One level of the index: the routes whose next segment is this literal, or any one segment. */
interface IndexNode {
  literal: Map<string, IndexNode>;
  anySegment?: IndexNode;
  /** At the last level: positions in the router's stack of the routes that end up here. */
  positions: number[];
}

const emptyNode = (): IndexNode => ({ literal: new Map(), positions: [] });

/** The first segments of a path, lower-cased (routes match case-insensitively), "" past its end. */
function leadingSegments(path: string): string[] {
  const segments = path.split("/").slice(1, 1 + INDEXED_SEGMENTS);
  while (segments.length < INDEXED_SEGMENTS) segments.push("");
  return segments.map((segment) => segment.toLowerCase());
}

/**
 * @koa/router tests every route's regular expression on every request, in order: with the
 * gateway's 300-odd routes that scan was a tenth of the gateway's CPU under load. This makes
 * `router.match` answer exactly as @koa/router's own (same layers, same order) while testing only
 * the routes whose first four segments can match the request: a literal segment must be equal, a
 * `:param` takes any one non-empty segment. Routes it cannot index (a pattern that may span
 * segments, an optional part, a regular expression, a case-sensitive route) are tested on every
 * request, as before. Everything else (dispatch, parameters, the tracing instrumentation's
 * patching of layers) stays @koa/router's own.
 */
export function indexRouteMatching<R extends Pick<Router, "stack" | "match">>(router: R): R {
  let index: { size: number; root: IndexNode; always: number[] } | undefined;

  /** The index of the current stack (rebuilt when a route was added since). */
  const currentIndex = () => {
    if (index?.size === router.stack.length) return index;
    const root = emptyNode();
    const always: number[] = [];
    router.stack.forEach((layer: Layer, position) => {
      const segments = typeof layer.path === "string" && !layer.opts.sensitive ? leadingSegments(layer.path) : undefined;
      // A segment with anything but a plain `:name` in it may match across segments or not at all.
      if (!segments || segments.some((segment) => /[*?+(){}]/.test(segment) || (segment.includes(":") && !/^:[\w$]+$/.test(segment)))) {
        always.push(position);
        return;
      }
      let node = root;
      for (const segment of segments) {
        if (segment.startsWith(":")) node = node.anySegment ??= emptyNode();
        else {
          let next = node.literal.get(segment);
          if (!next) node.literal.set(segment, (next = emptyNode()));
          node = next;
        }
      }
      node.positions.push(position);
    });
    index = { size: router.stack.length, root, always };
    return index;
  };

  /** Stack positions of the routes that may match `path`, in stack order. */
  const candidates = (path: string): number[] => {
    const { root, always } = currentIndex();
    const found = [...always];
    const segments = leadingSegments(path);
    const visit = (node: IndexNode, depth: number) => {
      if (depth === INDEXED_SEGMENTS) {
        found.push(...node.positions);
        return;
      }
      const segment = segments[depth]!;
      const literal = node.literal.get(segment);
      if (literal) visit(literal, depth + 1);
      if (node.anySegment && segment !== "") visit(node.anySegment, depth + 1);
    };
    visit(root, 0);
    return found.length > 1 ? found.sort((a, b) => a - b) : found;
  };

  router.match = (path: string, method: string): MatchResult => {
    const result: MatchResult = { path: [], pathAndMethod: [], route: false };
    const normalizedMethod = method.toUpperCase();
    for (const position of candidates(path)) {
      const layer = router.stack[position]!;
      if (!layer.match(path)) continue;
      result.path.push(layer);
      const isMiddleware = layer.methods.length === 0;
      if (isMiddleware || layer.methods.includes(normalizedMethod)) {
        result.pathAndMethod.push(layer);
        if (!isMiddleware) result.route = true;
      }
    }
    return result;
  };
  return router;
}
