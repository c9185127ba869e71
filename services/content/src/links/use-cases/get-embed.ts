import { AppError, parseFetchableUrl, requireCaller, SafeFetchError, type CallerInput } from "@imprint/runtime";
import { linkEmbedOf, plainLinkEmbed, type LinkEmbed } from "../domain/embed.js";
import { fetchEmbeddedPage } from "../store/fetch-embed.js";
import type { LinkDeps } from "../deps.js";

const MAX_URL = 2048;

/**
 * The embed of a URL for any signed-in caller: what the page says of itself, read through the
 * fetch guard, or the URL alone when it cannot be read (nothing about why is told: a refused
 * private address looks like an unreachable one).
 */
export async function getEmbed(input: { caller: CallerInput | undefined; url: string }, deps: Pick<LinkDeps, "fetchPolicy">): Promise<LinkEmbed> {
  requireCaller(input.caller);
  if (input.url.length > MAX_URL) throw AppError.invalidArgument(`url: must be at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = parseFetchableUrl(input.url);
  } catch (error) {
    if (error instanceof SafeFetchError) throw AppError.invalidArgument(`url: ${error.reason}`);
    throw error;
  }
  const read = await fetchEmbeddedPage(url, deps.fetchPolicy);
  return read ? linkEmbedOf(read.page, read.url) : plainLinkEmbed(url);
}
