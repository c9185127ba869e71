/**
 * Headers for user-uploaded bytes served from one of Imprint's own origins (the gateway's signed
 * downloads, the reader's files of published pages): the bytes never run as a page of that origin.
 */

/** Types shown in the browser (inert: images, PDF, plain text, media); anything else downloads. */
const INERT_TYPES = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)|application\/pdf|text\/plain|video\/[\w.+-]+|audio\/[\w.+-]+)(;|$)/i;

export function isInertMediaType(contentType: string): boolean {
  return INERT_TYPES.test(contentType);
}

/**
 * Content-Disposition (an ASCII fallback name and the UTF-8 one), a sandboxing CSP and `nosniff`.
 * The disposition defaults to inline for inert types, attachment for the rest.
 */
export function downloadHeaders(
  name: string,
  contentType: string,
  disposition: "inline" | "attachment" = isInertMediaType(contentType) ? "inline" : "attachment",
): Record<string, string> {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return {
    "Content-Disposition": `${disposition}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'",
  };
}
